import { AppError, forbidden } from "../../shared/http/app_error.ts";
import type { Caller } from "../../shared/http/identity.ts";
import { randomToken, sha256Hex } from "../../shared/crypto/ids.ts";
import { errorMessage, errorText, type Logger } from "../../shared/log.ts";
import { nowIso, toIso } from "../../shared/time.ts";
import type { WorkspacesClient } from "../workspaces/client.ts";
import { linkedinConnectionKey as connectionKey, linkedinStateKey as stateKey } from "./keys.ts";
import type { LinkedInApi } from "./linkedin.ts";
import { canPublish, PUBLISH_MESSAGES } from "./publish_rules.ts";
import type { ReviewOperations } from "./review.ts";
import type { TokenCipher } from "./token_crypto.ts";

/**
 * The cookie that binds a LinkedIn authorization to the browser that started it: it holds a
 * random nonce whose hash is stored with the state, and the callback refuses a state without it,
 * so an authorize URL sent to someone else cannot connect their LinkedIn to this workspace.
 */
export const CONNECT_COOKIE = "cp_linkedin_connect";
export const CONNECT_COOKIE_PATH = "/oauth/linkedin";

const REMIND_BEFORE_MS = 7 * 86_400_000;
const STATE_TTL_MS = 10 * 60 * 1000;

/** A workspace's LinkedIn connection: `["linkedin_connections", workspaceId]`. */
export interface StoredConnection {
  workspace_id: string;
  member_sub: string;
  name: string;
  /** AES-GCM sealed access token (token_crypto.ts); never answered, never logged */
  token: string;
  expires_at: string;
  connected_by: string;
  connected_at: string;
  status: "active" | "expired";
  /** the `expires_at` a `linkedin_expiring` DM was sent for */
  reminded_for: string | null;
  /** the organization pages the member administers (LINKEDIN_ORGANIZATIONS), when connected */
  organizations?: { urn: string; name: string }[];
}

interface LinkedInState {
  workspace_id: string;
  user_id: string;
  created_at: string;
  /** SHA-256 of the nonce in the starting browser's `CONNECT_COOKIE` */
  nonce_hash?: string;
}

export interface LinkedInConnectionsDeps {
  kv: Deno.Kv;
  workspaces: WorkspacesClient;
  review: ReviewOperations;
  linkedin: LinkedInApi;
  cipher: TokenCipher;
  logger: Logger;
  publicUrl: string;
}

/**
 * A workspace's LinkedIn connection: the OAuth round trip bound to the browser that started it,
 * the sealed member token, its expiry and the reminder before it.
 */
export class LinkedInConnections {
  constructor(private readonly deps: LinkedInConnectionsDeps) {}

  /**
   * Starts a connection: LinkedIn's authorization URL, and the nonce the route puts in the
   * starting browser's `CONNECT_COOKIE` (only its hash is stored, with the state).
   */
  async connect(
    caller: Caller,
    workspaceId: string,
  ): Promise<{ authorize_url: string; nonce: string; max_age_seconds: number }> {
    const { workspaces, linkedin, kv } = this.deps;
    const m = await workspaces.requireMember(workspaceId, caller.user_id);
    if (!canPublish(m.role)) throw forbidden(PUBLISH_MESSAGES.connectRole);
    if (!linkedin.configured) throw new AppError(503, PUBLISH_MESSAGES.notConfigured);
    const state = randomToken(32);
    const nonce = randomToken(32);
    const record: LinkedInState = {
      workspace_id: workspaceId,
      user_id: caller.user_id,
      created_at: nowIso(),
      nonce_hash: await sha256Hex(nonce),
    };
    await kv.set(stateKey(await sha256Hex(state)), record, { expireIn: STATE_TTL_MS });
    return {
      authorize_url: linkedin.authorizeUrl(state),
      nonce,
      max_age_seconds: STATE_TTL_MS / 1000,
    };
  }

  /**
   * The OAuth callback, in the browser that started it (`nonce` from its cookie): the state is
   * used up first, so a replay is 400. Answers the workspace.
   */
  async callback(code: string, state: string, nonce: string | undefined): Promise<string> {
    const { kv, linkedin, cipher, workspaces } = this.deps;
    if (!state || state.length > 200 || !code || code.length > 2000) {
      throw new AppError(400, PUBLISH_MESSAGES.badState);
    }
    const key = stateKey(await sha256Hex(state));
    const entry = await kv.get<LinkedInState>(key);
    const fresh = entry.value &&
      Date.now() - Date.parse(entry.value.created_at) <= STATE_TTL_MS;
    if (!entry.value || !fresh) throw new AppError(400, PUBLISH_MESSAGES.badState);
    const sameBrowser = !!nonce && nonce.length <= 200 && !!entry.value.nonce_hash &&
      await sha256Hex(nonce) === entry.value.nonce_hash;
    if (!sameBrowser) throw new AppError(400, PUBLISH_MESSAGES.otherBrowser);
    const used = await kv.atomic().check(entry).delete(key).commit();
    if (!used.ok) throw new AppError(400, PUBLISH_MESSAGES.badState);
    const { workspace_id: workspaceId, user_id: userId } = entry.value;
    // The caller bound to the state must still be allowed to connect.
    const m = await workspaces.membership(workspaceId, userId);
    if (!canPublish(m.role)) throw forbidden(PUBLISH_MESSAGES.connectRole);
    let token: { accessToken: string; expiresIn: number };
    let member: { sub: string; name: string };
    let organizations: { urn: string; name: string }[] = [];
    try {
      token = await linkedin.exchangeCode(code);
      member = await linkedin.userinfo(token.accessToken);
      if (linkedin.organizationsEnabled) {
        organizations = await linkedin.organizations(token.accessToken);
      }
    } catch (err) {
      // The answer names LinkedIn's refusal; the stack goes to the log only.
      this.deps.logger.warn("LinkedIn connect failed", {
        workspace_id: workspaceId,
        error: errorMessage(err),
      });
      throw new AppError(400, errorText(err));
    }
    const now = Date.now();
    const connection: StoredConnection = {
      workspace_id: workspaceId,
      member_sub: member.sub,
      name: member.name,
      token: await cipher.encrypt(token.accessToken, workspaceId),
      expires_at: toIso(new Date(now + token.expiresIn * 1000)),
      connected_by: userId,
      connected_at: toIso(new Date(now)),
      status: "active",
      reminded_for: null,
      organizations,
    };
    await kv.set(connectionKey(workspaceId), connection);
    this.deps.logger.info("LinkedIn connected", { workspace_id: workspaceId, user_id: userId });
    return workspaceId;
  }

  async connectionView(caller: Caller, workspaceId: string) {
    await this.deps.workspaces.requireMember(workspaceId, caller.user_id);
    const c = (await this.deps.kv.get<StoredConnection>(connectionKey(workspaceId))).value;
    if (!c) {
      return {
        connected: false,
        name: null,
        member_urn: null,
        expires_at: null,
        connected_by: null,
        organizations: [],
      };
    }
    return {
      connected: c.status === "active" && Date.parse(c.expires_at) > Date.now(),
      name: c.name,
      member_urn: `urn:li:person:${c.member_sub}`,
      expires_at: c.expires_at,
      connected_by: c.connected_by,
      organizations: this.deps.linkedin.organizationsEnabled ? c.organizations ?? [] : [],
    };
  }

  /**
   * The URN `publish_as` publishes as with this connection: the member's for `"member"`, else
   * the organization's when the connection lists it; null when it does not.
   */
  authorUrn(connection: StoredConnection, publishAs: string): string | null {
    if (publishAs === "member") return `urn:li:person:${connection.member_sub}`;
    if (!this.deps.linkedin.organizationsEnabled) return null;
    return connection.organizations?.some((o) => o.urn === publishAs) ? publishAs : null;
  }

  /** The workspace's connection as stored (active or not), or null. */
  async stored(workspaceId: string): Promise<StoredConnection | null> {
    return (await this.deps.kv.get<StoredConnection>(connectionKey(workspaceId))).value;
  }

  async disconnect(caller: Caller, workspaceId: string): Promise<void> {
    const m = await this.deps.workspaces.requireMember(workspaceId, caller.user_id);
    if (!canPublish(m.role)) throw forbidden(PUBLISH_MESSAGES.disconnectRole);
    await this.deps.kv.delete(connectionKey(workspaceId));
  }

  /** The workspace's connection when it is active and unexpired, else null. */
  async active(workspaceId: string): Promise<StoredConnection | null> {
    const c = (await this.deps.kv.get<StoredConnection>(connectionKey(workspaceId))).value;
    return c && c.status === "active" && Date.parse(c.expires_at) > Date.now() ? c : null;
  }

  /** Marks the connection expired (LinkedIn answered 401 with its token). */
  async markExpired(workspaceId: string) {
    const { kv } = this.deps;
    const entry = await kv.get<StoredConnection>(connectionKey(workspaceId));
    if (!entry.value) return;
    await kv.atomic().check(entry).set(connectionKey(workspaceId), {
      ...entry.value,
      status: "expired",
    })
      .commit();
  }

  /**
   * Sends `linkedin_expiring` to whoever connected a workspace, once per expiry date, when it
   * expires within 7 days. Runs on every instance; the `reminded_for` check makes it once.
   */
  async remindExpiring(): Promise<number> {
    const { kv, review } = this.deps;
    let sent = 0;
    for await (const entry of kv.list<StoredConnection>({ prefix: ["linkedin_connections"] })) {
      const c = entry.value;
      const left = Date.parse(c.expires_at) - Date.now();
      if (c.status !== "active" || left > REMIND_BEFORE_MS || left <= 0) continue;
      if (c.reminded_for === c.expires_at) continue;
      const to = (await review.emails([c.connected_by])).get(c.connected_by);
      const ws = await review.settings(c.workspace_id).catch(() => null);
      const op = kv.atomic().check(entry).set(entry.key, { ...c, reminded_for: c.expires_at });
      if (to) {
        review.dm(op, [to], "linkedin_expiring", {
          member_name: c.name,
          workspace_name: ws?.name,
          expires_at: c.expires_at,
          url: `${this.deps.publicUrl}/workspaces/${c.workspace_id}/settings`,
        });
      }
      if ((await op.commit()).ok) sent++;
    }
    return sent;
  }
}
