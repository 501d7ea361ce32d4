import { AppError, conflict, forbidden, notFound } from "../../shared/http/app_error.ts";
import type { Caller } from "../../shared/http/identity.ts";
import { newId, randomToken, sha256Hex } from "../../shared/crypto/ids.ts";
import { errorMessage, type Logger } from "../../shared/log.ts";
import type { ServiceQueue } from "../../shared/queue/queue.ts";
import { nowIso, toIso } from "../../shared/time.ts";
import type { WorkspacesClient } from "../workspaces/client.ts";
import type { LinkedInConfig } from "./config.ts";
import type { PostsJob } from "./jobs.ts";
import type { LinkedInApi } from "./linkedin.ts";
import type { PostOperations } from "./operations.ts";
import { type ReviewOperations, textFingerprint } from "./review.ts";
import { type Post, POST_NOT_FOUND } from "./schemas.ts";
import { nextFreeSlot } from "./slots.ts";
import type { PostsStore, StoredPost } from "./store.ts";
import type { TokenCipher } from "./token_crypto.ts";
import {
  linkedinConnectionKey as connectionKey,
  linkedinPublicationKey,
  linkedinStateKey as stateKey,
} from "./keys.ts";
import { MESSAGES } from "../../shared/http/messages.ts";

export const PUBLISH_MESSAGES = {
  notConfigured: "LinkedIn is not configured",
  notConnected: "LinkedIn is not connected",
  connectRole: "Only the owner or an editor can connect LinkedIn",
  disconnectRole: "Only the owner or an editor can disconnect LinkedIn",
  badState: "Unknown or used LinkedIn authorization state",
  noSlots: "No publishing slots",
  notFuture: "at must be in the future",
  notApproved: "Post must be approved before it is scheduled: this workspace requires approval",
  alreadyPublished: "Post is already published",
  notScheduled: "Post is not scheduled",
  publishing: "Post is being published; wait for the outcome",
  unknownOutcome: "Publishing outcome unknown; check LinkedIn before retrying",
  editorRole: MESSAGES.ownerOrEditorRequired,
  changedSinceApproval: "Changed since approval",
  otherBrowser:
    "This LinkedIn authorization was started in another browser: connect again from the workspace settings",
  restored: "Restored from a backup: check LinkedIn before publishing",
} as const;

/**
 * The cookie that binds a LinkedIn authorization to the browser that started it: it holds a
 * random nonce whose hash is stored with the state, and the callback refuses a state without it,
 * so an authorize URL sent to someone else cannot connect their LinkedIn to this workspace.
 */
export const CONNECT_COOKIE = "cp_linkedin_connect";
export const CONNECT_COOKIE_PATH = "/oauth/linkedin";

/** Retries of 429 and 5xx stop this long after the first try of a schedule. */
const RETRY_WINDOW_MS = 60 * 60 * 1000;
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
}

interface LinkedInState {
  workspace_id: string;
  user_id: string;
  created_at: string;
  /** SHA-256 of the nonce in the starting browser's `CONNECT_COOKIE` */
  nonce_hash?: string;
}

/** Whether a workspace role may publish for the workspace's LinkedIn member or page. */
function canPublish(role: string | null): boolean {
  return role === "owner" || role === "editor";
}

export interface PublishingDeps {
  kv: Deno.Kv;
  store: PostsStore;
  posts: PostOperations;
  review: ReviewOperations;
  workspaces: WorkspacesClient;
  queue: ServiceQueue<PostsJob>;
  linkedin: LinkedInApi;
  cipher: TokenCipher;
  config: LinkedInConfig;
  logger: Logger;
  publicUrl: string;
}

/**
 * The LinkedIn connection of a workspace, scheduling on its slots and publishing at most once
 * . Kept in the posts service: the publish attempt must be recorded in the same
 * atomic commit as the post it publishes, and the post's status, schedule and approval live here.
 */
export class Publishing {
  constructor(private readonly deps: PublishingDeps) {}

  // ------------------------------------------------------------ connection

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
    try {
      token = await linkedin.exchangeCode(code);
      member = await linkedin.userinfo(token.accessToken);
    } catch (err) {
      throw new AppError(400, errorMessage(err));
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
      };
    }
    return {
      connected: c.status === "active" && Date.parse(c.expires_at) > Date.now(),
      name: c.name,
      member_urn: `urn:li:person:${c.member_sub}`,
      expires_at: c.expires_at,
      connected_by: c.connected_by,
    };
  }

  async disconnect(caller: Caller, workspaceId: string): Promise<void> {
    const m = await this.deps.workspaces.requireMember(workspaceId, caller.user_id);
    if (!canPublish(m.role)) throw forbidden(PUBLISH_MESSAGES.disconnectRole);
    await this.deps.kv.delete(connectionKey(workspaceId));
  }

  async #activeConnection(workspaceId: string): Promise<StoredConnection | null> {
    const c = (await this.deps.kv.get<StoredConnection>(connectionKey(workspaceId))).value;
    return c && c.status === "active" && Date.parse(c.expires_at) > Date.now() ? c : null;
  }

  // ------------------------------------------------------------ scheduling

  /**
   * Schedules the post at `at`, or (null) in the next publishing slot no other scheduled post
   * of the workspace holds; `now` publishes at once (`POST .../publish`).
   */
  async schedule(
    caller: Caller,
    workspaceId: string,
    postId: string,
    at: string | null | undefined,
    now = false,
  ): Promise<Post> {
    const { posts, store, review, queue } = this.deps;
    await this.#requirePublisher(caller, workspaceId);
    const post = await posts.require(workspaceId, postId);
    const ws = await review.settings(workspaceId);
    const approvalRequired = ws?.approval_required ?? false;
    if (post.status === "published") throw conflict(PUBLISH_MESSAGES.alreadyPublished);
    if (approvalRequired && post.status !== "approved" && post.status !== "scheduled") {
      throw conflict(PUBLISH_MESSAGES.notApproved);
    }
    if (!await this.#activeConnection(workspaceId)) throw conflict(PUBLISH_MESSAGES.notConnected);
    let when: number;
    if (now) {
      when = Date.now();
    } else if (at) {
      when = Date.parse(at);
      if (!(when > Date.now())) throw new AppError(400, PUBLISH_MESSAGES.notFuture);
    } else {
      const taken = new Set(
        (await store.listPosts(workspaceId))
          .filter((p) => p.status === "scheduled" && p.post_id !== postId && p.scheduled_at)
          .map((p) => Date.parse(p.scheduled_at!)),
      );
      const slot = nextFreeSlot(
        ws?.publishing_slots ?? [],
        ws?.timezone ?? "UTC",
        Date.now(),
        taken,
      );
      if (slot === null) throw new AppError(400, PUBLISH_MESSAGES.noSlots);
      when = slot;
    }
    const scheduleId = newId();
    const result = await store.modifyPost(workspaceId, postId, (current, op) => {
      if (current.publish_attempt) throw conflict(PUBLISH_MESSAGES.publishing);
      if (current.status === "published") throw conflict(PUBLISH_MESSAGES.alreadyPublished);
      if (approvalRequired && current.status !== "approved" && current.status !== "scheduled") {
        throw conflict(PUBLISH_MESSAGES.notApproved);
      }
      const next: StoredPost = {
        ...current,
        status: "scheduled",
        scheduled_at: toIso(new Date(when)),
        schedule_id: scheduleId,
        scheduled_by: caller.user_id,
        publish_error: null,
        publish_attempt: null,
        publish_first_try: null,
        publish_retries: 0,
        updated_at: nowIso(),
      };
      queue.enqueue(op, {
        type: "publish",
        post_id: postId,
        workspace_id: workspaceId,
        schedule_id: scheduleId,
      }, { delay: Math.max(0, when - Date.now()) });
      return next;
    });
    if (!result) throw notFound(POST_NOT_FOUND);
    return await posts.read(result.after);
  }

  async unschedule(caller: Caller, workspaceId: string, postId: string): Promise<Post> {
    const { posts, store, review } = this.deps;
    await this.#requirePublisher(caller, workspaceId);
    await posts.require(workspaceId, postId);
    const approvalRequired = (await review.settings(workspaceId))?.approval_required ?? false;
    const result = await store.modifyPost(workspaceId, postId, (current) => {
      if (current.status !== "scheduled") throw conflict(PUBLISH_MESSAGES.notScheduled);
      if (current.publish_attempt) throw conflict(PUBLISH_MESSAGES.publishing);
      return {
        ...current,
        status: approvalRequired ? "approved" : "draft",
        scheduled_at: null,
        schedule_id: null,
        updated_at: nowIso(),
      };
    });
    if (!result) throw notFound(POST_NOT_FOUND);
    return await posts.read(result.after);
  }

  // ------------------------------------------------------------ publishing (queue job)

  /**
   * The `publish` job. At most once: the attempt is recorded before LinkedIn is called; a run
   * that finds an attempt recorded (its process died mid-call, or the handler was retried)
   * never calls again and reports the outcome as unknown.
   */
  async publishJob(job: { post_id: string; workspace_id: string; schedule_id: string }) {
    const { store, posts, linkedin, cipher, logger, config } = this.deps;
    const { post_id: postId, workspace_id: workspaceId } = job;
    const stored = await store.getStored(workspaceId, postId);
    if (!stored || stored.status !== "scheduled" || stored.schedule_id !== job.schedule_id) return;
    if (stored.publish_attempt) {
      await this.#fail(workspaceId, postId, job.schedule_id, PUBLISH_MESSAGES.unknownOutcome);
      return;
    }
    const connection = await this.#activeConnection(workspaceId);
    if (!connection) {
      await this.#fail(workspaceId, postId, job.schedule_id, PUBLISH_MESSAGES.notConnected);
      return;
    }
    const attemptId = newId();
    const recorded = await store.modifyPost(workspaceId, postId, (current) => {
      if (current.schedule_id !== job.schedule_id || current.status !== "scheduled") return null;
      if (current.publish_attempt) return null;
      return {
        ...current,
        publish_attempt: {
          attempt_id: attemptId,
          schedule_id: job.schedule_id,
          started_at: nowIso(),
        },
        publish_first_try: current.publish_first_try ?? nowIso(),
      };
    });
    if (!recorded?.changed) return;
    // What is sent is fingerprinted after the attempt is recorded: from here on the text read
    // is exactly what LinkedIn receives, and it must be the text that was approved.
    const text = (await posts.read(recorded.after)).content;
    const refusal = await this.#unapproved(recorded.after, text);
    if (refusal) {
      await this.#refuseUnapproved(workspaceId, postId, attemptId, refusal);
      return;
    }
    const token = await cipher.decrypt(connection.token, workspaceId);
    const outcome = await linkedin.createPost(token, connection.member_sub, text);
    if (outcome.kind === "created") {
      await this.#published(workspaceId, postId, attemptId, outcome.urn);
      return;
    }
    if (outcome.kind === "unknown") {
      logger.warn("LinkedIn publish outcome unknown", { post_id: postId, error: outcome.error });
      await this.#fail(workspaceId, postId, job.schedule_id, PUBLISH_MESSAGES.unknownOutcome);
      return;
    }
    const { status } = outcome;
    if (status === 429 || status >= 500) {
      const first = Date.parse(recorded.after.publish_first_try ?? nowIso());
      const retries = (recorded.after.publish_retries ?? 0) + 1;
      const backoff = outcome.retryAfterSeconds !== null
        ? outcome.retryAfterSeconds * 1000
        : Math.min(5_000 * 2 ** (retries - 1), 10 * 60_000);
      if (Date.now() + backoff - first > RETRY_WINDOW_MS) {
        await this.#fail(
          workspaceId,
          postId,
          job.schedule_id,
          `LinkedIn kept answering ${status} for an hour; try again later`,
        );
        return;
      }
      // Known not posted: clear the attempt and try again later.
      await store.modifyPost(workspaceId, postId, (current, op) => {
        if (current.publish_attempt?.attempt_id !== attemptId) return null;
        this.deps.queue.enqueue(op, { type: "publish", ...job }, { delay: backoff });
        return { ...current, publish_attempt: null, publish_retries: retries };
      });
      logger.info("LinkedIn asked to retry the publication later", {
        post_id: postId,
        status,
        retry_in_ms: backoff,
      });
      return;
    }
    let message: string;
    if (status === 401) {
      await this.#markExpired(workspaceId);
      message = "LinkedIn refused the connection (401); connect LinkedIn again in the workspace " +
        "settings";
    } else if (status === 426) {
      message = `LinkedIn no longer accepts LinkedIn-Version ${config.version} (426); ` +
        "set LINKEDIN_VERSION to a current version (YYYYMM)";
      logger.error("LinkedIn refused the configured LINKEDIN_VERSION", {
        version: config.version,
        post_id: postId,
      });
    } else {
      message = `LinkedIn refused the post (${status})${
        outcome.body ? `: ${outcome.body.slice(0, 200)}` : ""
      }`;
    }
    await this.#fail(workspaceId, postId, job.schedule_id, message);
  }

  /** 403 unless the caller is the workspace's owner or an editor (membership first). */
  async #requirePublisher(caller: Caller, workspaceId: string): Promise<void> {
    const m = await this.deps.workspaces.requireMember(workspaceId, caller.user_id);
    if (!canPublish(m.role)) throw forbidden(PUBLISH_MESSAGES.editorRole);
  }

  /**
   * Why `text` must not go out for `post`, or null: it is not the text the approval covers, or
   * the workspace requires approval and nothing approved it.
   */
  async #unapproved(post: StoredPost, text: string): Promise<string | null> {
    if (post.approved_fingerprint) {
      return await textFingerprint(text) === post.approved_fingerprint
        ? null
        : PUBLISH_MESSAGES.changedSinceApproval;
    }
    const required = (await this.deps.review.settings(post.workspace_id))?.approval_required;
    return required ? PUBLISH_MESSAGES.notApproved : null;
  }

  /**
   * Ends the attempt `attemptId` without calling LinkedIn: what would go out is not what was
   * approved. The post goes back to review (the voiding recorded, reviewers asked again), with
   * `error`; the author and the scheduler get `publish_failed`.
   */
  async #refuseUnapproved(workspaceId: string, postId: string, attemptId: string, error: string) {
    const { store, review } = this.deps;
    const before = await store.getStored(workspaceId, postId);
    if (!before) return;
    const { emails, approverName } = await review.sendBackInputs(before);
    const notified = await review.emails(
      [before.author_id, before.scheduled_by].filter((v): v is string => !!v),
    );
    const now = nowIso();
    await store.modifyPost(workspaceId, postId, (current, op) => {
      if (current.publish_attempt?.attempt_id !== attemptId) return null;
      const next: StoredPost = current.approved_fingerprint
        ? review.sendBackToReview(op, current, emails, approverName, now)
        : { ...current, status: "in_review", updated_at: now };
      this.#tellPublishFailed(op, current, notified, error);
      return {
        ...next,
        scheduled_at: null,
        schedule_id: null,
        publish_attempt: null,
        publish_error: error,
      };
    });
    this.deps.logger.warn("publishing refused: not the approved text", { post_id: postId, error });
  }

  async #published(workspaceId: string, postId: string, attemptId: string, urn: string) {
    const { store, review } = this.deps;
    const before = await store.getStored(workspaceId, postId);
    const emails = await review.emails(
      [before?.author_id, before?.scheduled_by].filter((v): v is string => !!v),
    );
    const now = nowIso();
    const linkedinUrl = `https://www.linkedin.com/feed/update/${urn}/`;
    await store.modifyPost(workspaceId, postId, (current, op) => {
      if (current.publish_attempt?.attempt_id !== attemptId) return null;
      op.set(linkedinPublicationKey(now, postId), workspaceId);
      review.dm(
        op,
        [current.author_id, current.scheduled_by ?? undefined].map((id) =>
          id ? emails.get(id) : undefined
        ),
        "post_published",
        {
          post_title: current.title || "Untitled post",
          linkedin_post_url: linkedinUrl,
          url: review.postUrl(workspaceId, postId),
        },
      );
      return {
        ...current,
        status: "published",
        published_at: now,
        linkedin_post_urn: urn,
        linkedin_post_url: linkedinUrl,
        publish_error: null,
        publish_attempt: null,
        schedule_id: null,
        updated_at: now,
      };
    });
    this.deps.logger.info("post published on LinkedIn", { post_id: postId, urn });
  }

  /** Adds `publish_failed` DMs to the post's author and scheduler to the commit `op`. */
  #tellPublishFailed(
    op: Deno.AtomicOperation,
    post: StoredPost,
    emails: Map<string, string>,
    error: string,
  ): void {
    const { review } = this.deps;
    review.dm(
      op,
      [post.author_id, post.scheduled_by ?? undefined].map((id) => id ? emails.get(id) : undefined),
      "publish_failed",
      {
        post_title: post.title || "Untitled post",
        error,
        url: review.postUrl(post.workspace_id, post.post_id),
      },
    );
  }

  /** Ends a schedule with `error`: back to approved (or draft), `publish_failed` DMs. */
  async #fail(workspaceId: string, postId: string, scheduleId: string, error: string) {
    const { store, review } = this.deps;
    const approvalRequired = (await review.settings(workspaceId))?.approval_required ?? false;
    const before = await store.getStored(workspaceId, postId);
    const emails = await review.emails(
      [before?.author_id, before?.scheduled_by].filter((v): v is string => !!v),
    );
    await store.modifyPost(workspaceId, postId, (current, op) => {
      if (current.schedule_id !== scheduleId) return null;
      this.#tellPublishFailed(op, current, emails, error);
      return {
        ...current,
        status: approvalRequired || current.approved_by ? "approved" : "draft",
        scheduled_at: null,
        schedule_id: null,
        publish_attempt: null,
        publish_error: error,
        updated_at: nowIso(),
      };
    });
    this.deps.logger.warn("publishing failed", { post_id: postId, error });
  }

  async #markExpired(workspaceId: string) {
    const { kv } = this.deps;
    const entry = await kv.get<StoredConnection>(connectionKey(workspaceId));
    if (!entry.value) return;
    await kv.atomic().check(entry).set(connectionKey(workspaceId), {
      ...entry.value,
      status: "expired",
    })
      .commit();
  }

  // ------------------------------------------------------------ after a restore

  /**
   * A restored keyspace never publishes twice: a post restored `scheduled` at a time before the
   * restore (`restoredAt`) may have gone out since the backup was taken, so it comes back
   * unscheduled (approved, or draft) with a `publish_error` that says to check LinkedIn. A post
   * scheduled later gets a fresh publish job (the queue is this deployment's, not the archive's);
   * any job of its old schedule is dropped as stale. Answers how many posts were unscheduled.
   */
  async afterRestore(restoredAt: number): Promise<number> {
    const { store, review, queue } = this.deps;
    const approvalRequired = new Map<string, boolean>();
    let unscheduled = 0;
    for (const post of await store.listScheduled()) {
      const workspaceId = post.workspace_id;
      const at = Date.parse(post.scheduled_at ?? "");
      if (Number.isNaN(at)) continue;
      if (at >= restoredAt && !post.publish_attempt) {
        const scheduleId = newId();
        await store.modifyPost(workspaceId, post.post_id, (current, op) => {
          if (current.status !== "scheduled" || current.scheduled_at !== post.scheduled_at) {
            return null;
          }
          queue.enqueue(op, {
            type: "publish",
            post_id: post.post_id,
            workspace_id: workspaceId,
            schedule_id: scheduleId,
          }, { delay: Math.max(0, at - Date.now()) });
          return { ...current, schedule_id: scheduleId, publish_retries: 0 };
        });
        continue;
      }
      if (!approvalRequired.has(workspaceId)) {
        const ws = await review.settings(workspaceId).catch(() => null);
        approvalRequired.set(workspaceId, ws?.approval_required ?? false);
      }
      const result = await store.modifyPost(workspaceId, post.post_id, (current) => {
        if (current.status !== "scheduled") return null;
        return {
          ...current,
          status: approvalRequired.get(workspaceId) || current.approved_by ? "approved" : "draft",
          scheduled_at: null,
          schedule_id: null,
          publish_attempt: null,
          publish_error: PUBLISH_MESSAGES.restored,
          updated_at: nowIso(),
        };
      });
      if (result?.changed) unscheduled++;
    }
    if (unscheduled > 0) {
      this.deps.logger.warn("restored posts whose schedule had passed were unscheduled", {
        posts: unscheduled,
      });
    }
    return unscheduled;
  }

  // ------------------------------------------------------------ expiry reminder

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
