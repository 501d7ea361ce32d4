import { AppError } from "../../shared/http/app_error.ts";
import { newId } from "../../shared/crypto/ids.ts";
import { retryCommit } from "../../shared/kv/kv.ts";
import {
  buildIndexes,
  getValues,
  indexChanges,
  type KvPage,
  readRangePage,
} from "../../shared/kv/kv_pages.ts";
import { nowIso, toIso } from "../../shared/time.ts";
import type { CaptureToken, Idea, IdeaPatch, IdeaStatus } from "./schemas.ts";
import {
  activeTokenByUserKey,
  activeTokenByWorkspaceKey,
  captureRateKey,
  captureTokenKey,
  captureTokensPrefix,
  ideaIndexKeys,
  ideaKey,
  ideasByAuthor,
  ideasByStatus,
  ideasByTag,
  ideasOfWorkspace,
  ideaWorkspaceKey,
  LIST_INDEXES_BUILT,
  tokenByUserKey,
  tokensOfUser,
  totalIdeasKey,
} from "./keys.ts";

/** The length of one capture rate-limit window. */
export const CAPTURE_WINDOW_MS = 60_000;
/**
 * A token's `last_used_at` moves at most this often, so a burst of captures writes it once
 * rather than on every capture.
 */
export const LAST_USED_EVERY_MS = 60_000;

/** A token as its owner sees it listed: never the token or its hash. */
export interface CaptureTokenInfo {
  token_id: string;
  workspace_id: string;
  created_at: string;
  last_used_at: string | null;
  active: boolean;
}

export type CaptureDecision =
  | { allowed: true; used: number }
  | { allowed: false; retryAfterSeconds: number };

/** KV values are at most 64 KiB; an idea stays well under it or is refused with a 400. */
const IDEA_VALUE_MAX_BYTES = 60_000;
const ONE = new Deno.KvU64(1n);
/** `sum` wraps around 2^64, so adding 2^64 - 1 subtracts one. */
const MINUS_ONE = new Deno.KvU64(0xFFFF_FFFF_FFFF_FFFFn);

function checkSize(idea: Idea): void {
  if (new TextEncoder().encode(JSON.stringify(idea)).length > IDEA_VALUE_MAX_BYTES) {
    throw new AppError(400, "Idea is too large");
  }
}

export interface NewIdea {
  workspace_id: string;
  title: string;
  description: string;
  tags: string[];
  source_url: string;
  created_by: string;
}

export interface IdeaFilters {
  status?: IdeaStatus;
  tags?: string[];
  authorId?: string;
}

/** Whether `idea` passes the list's filters (status, author, every listed tag). */
export function matchesFilters(idea: Idea, filters: IdeaFilters): boolean {
  if (filters.status && idea.status !== filters.status) return false;
  if (filters.authorId && idea.created_by !== filters.authorId) return false;
  return (filters.tags ?? []).every((t) => idea.tags.includes(t));
}

export type StatusChange =
  | { kind: "changed"; idea: Idea }
  | { kind: "not_found" }
  | { kind: "conflict"; current: IdeaStatus };

export class IdeasStore {
  constructor(private readonly kv: Deno.Kv, private readonly now: () => number = Date.now) {}

  async create(input: NewIdea): Promise<Idea> {
    const now = nowIso();
    const idea: Idea = {
      idea_id: newId(),
      workspace_id: input.workspace_id,
      title: input.title,
      description: input.description,
      tags: input.tags,
      source_url: input.source_url,
      status: "new",
      created_by: input.created_by,
      linked_post_id: null,
      created_at: now,
      updated_at: now,
    };
    checkSize(idea);
    const op = this.kv.atomic()
      .check({ key: ideaKey(idea.workspace_id, idea.idea_id), versionstamp: null })
      .set(ideaKey(idea.workspace_id, idea.idea_id), idea)
      .set(ideaWorkspaceKey(idea.idea_id), idea.workspace_id)
      .sum(totalIdeasKey(), ONE.value);
    indexChanges(op, [], ideaIndexKeys(idea));
    const res = await op.commit();
    if (!res.ok) throw new Error("idea id collision");
    return idea;
  }

  async get(workspaceId: string, ideaId: string): Promise<Idea | null> {
    return (await this.kv.get<Idea>(ideaKey(workspaceId, ideaId))).value;
  }

  /** An idea by id alone, whatever its workspace. */
  async getById(ideaId: string): Promise<Idea | null> {
    const ws = (await this.kv.get<string>(ideaWorkspaceKey(ideaId))).value;
    return ws === null ? null : await this.get(ws, ideaId);
  }

  /** The workspace's ideas, newest first (ULID ids sort by creation), filters ANDed. */
  async list(workspaceId: string, filters: IdeaFilters = {}): Promise<Idea[]> {
    const out: Idea[] = [];
    for await (
      const entry of this.kv.list<Idea>({ prefix: ideasOfWorkspace(workspaceId) }, {
        reverse: true,
      })
    ) {
      if (matchesFilters(entry.value, filters)) out.push(entry.value);
    }
    return out;
  }

  /**
   * One page of the workspace's ideas in the list's order (newest first), after the idea
   * `after`, filters ANDed. The range read is the one index its filters name (a tag's first,
   * else the author's, else the status'), or the ideas themselves without a filter; the other
   * filters are checked on the ideas read.
   */
  async listPage(
    workspaceId: string,
    filters: IdeaFilters,
    page: { limit: number; after?: string },
  ): Promise<KvPage<Idea>> {
    const tag = filters.tags?.[0];
    const prefix = tag !== undefined
      ? ideasByTag(workspaceId, tag)
      : filters.authorId
      ? ideasByAuthor(workspaceId, filters.authorId)
      : filters.status
      ? ideasByStatus(workspaceId, filters.status)
      : null;
    return await readRangePage<Idea>(this.kv, {
      prefix: prefix ?? ideasOfWorkspace(workspaceId),
      reverse: true,
      limit: page.limit,
      after: page.after,
      load: prefix
        ? (ids) => getValues(this.kv, ids.map((id) => ideaKey(workspaceId, id)))
        : undefined,
      keep: (idea) => matchesFilters(idea, filters),
    });
  }

  /**
   * Puts every idea into the paged list's indexes unless that was done: ideas stored before the
   * indexes existed (at start-up), or restored from a backup (the indexes are not in it).
   */
  buildListIndexes(): Promise<number> {
    return buildIndexes<Idea>(this.kv, LIST_INDEXES_BUILT, [
      { records: ["ideas"], indexKeys: ideaIndexKeys },
    ]);
  }

  /** Applies `change` to the stored idea in one checked commit; null when it is unknown. */
  async #modify(
    workspaceId: string,
    ideaId: string,
    change: (idea: Idea) => Idea,
  ): Promise<Idea | null> {
    const key = ideaKey(workspaceId, ideaId);
    return await retryCommit<Idea | null>(async () => {
      const entry = await this.kv.get<Idea>(key);
      if (!entry.value) return { ok: true, value: null };
      const next = change(entry.value);
      checkSize(next);
      const op = this.kv.atomic().check(entry).set(key, next);
      indexChanges(op, ideaIndexKeys(entry.value), ideaIndexKeys(next));
      const res = await op.commit();
      return res.ok ? { ok: true, value: next } : { ok: false };
    });
  }

  update(workspaceId: string, ideaId: string, patch: IdeaPatch): Promise<Idea | null> {
    return this.#modify(workspaceId, ideaId, (idea) => ({
      ...idea,
      ...(patch.title === undefined ? {} : { title: patch.title }),
      ...(patch.description === undefined ? {} : { description: patch.description }),
      ...(patch.source_url === undefined ? {} : { source_url: patch.source_url }),
      ...(patch.tags === undefined ? {} : { tags: patch.tags }),
      updated_at: nowIso(),
    }));
  }

  /** MCP's update_idea: only status and tags; omitted tags stay, an empty list clears them. */
  mcpUpdate(
    workspaceId: string,
    ideaId: string,
    patch: { status?: IdeaStatus; tags?: string[] | null },
  ): Promise<Idea | null> {
    return this.#modify(workspaceId, ideaId, (idea) => ({
      ...idea,
      ...(patch.status ? { status: patch.status } : {}),
      ...(patch.tags ? { tags: patch.tags } : {}),
      updated_at: nowIso(),
    }));
  }

  /** Hard delete, any status; false when there was nothing to delete. */
  async delete(workspaceId: string, ideaId: string): Promise<boolean> {
    const key = ideaKey(workspaceId, ideaId);
    return await retryCommit<boolean>(async () => {
      const entry = await this.kv.get<Idea>(key);
      if (!entry.value) return { ok: true, value: false };
      const op = this.kv.atomic()
        .check(entry)
        .delete(key)
        .delete(ideaWorkspaceKey(ideaId))
        .sum(totalIdeasKey(), MINUS_ONE.value);
      indexChanges(op, ideaIndexKeys(entry.value), []);
      const res = await op.commit();
      return res.ok ? { ok: true, value: true } : { ok: false };
    });
  }

  /** The only move allowed is `new` to `converted`; anything else is a conflict. */
  async changeStatus(workspaceId: string, ideaId: string, to: IdeaStatus): Promise<StatusChange> {
    if (to === "converted") return await this.convert(workspaceId, ideaId);
    const idea = await this.get(workspaceId, ideaId);
    return idea ? { kind: "conflict", current: idea.status } : { kind: "not_found" };
  }

  /**
   * `new` to `converted`, the one status move there is. With `postId` (a post was created from
   * the idea) the idea links to it, and repeating the move for the same post changes nothing
   * (queue deliveries and retries are at least once).
   */
  async convert(workspaceId: string, ideaId: string, postId?: string): Promise<StatusChange> {
    const key = ideaKey(workspaceId, ideaId);
    return await retryCommit<StatusChange>(async () => {
      const entry = await this.kv.get<Idea>(key);
      const idea = entry.value;
      if (!idea) return { ok: true, value: { kind: "not_found" } };
      if (postId && idea.status === "converted" && idea.linked_post_id === postId) {
        return { ok: true, value: { kind: "changed", idea } };
      }
      if (idea.status !== "new") {
        return { ok: true, value: { kind: "conflict", current: idea.status } };
      }
      const next: Idea = {
        ...idea,
        status: "converted",
        ...(postId ? { linked_post_id: postId } : {}),
        updated_at: nowIso(),
      };
      const op = this.kv.atomic().check(entry).set(key, next);
      indexChanges(op, ideaIndexKeys(idea), ideaIndexKeys(next));
      const res = await op.commit();
      return res.ok ? { ok: true, value: { kind: "changed", idea: next } } : { ok: false };
    });
  }

  async totalIdeas(): Promise<number> {
    const entry = await this.kv.get<Deno.KvU64>(totalIdeasKey());
    return entry.value ? Number(entry.value.value) : 0;
  }

  // Capture tokens: only the SHA-256 of a token is stored.

  /**
   * Stores a new token, indexes it under its user, and moves the user's and workspace's
   * pointers to it. Earlier tokens stay.
   */
  async createCaptureToken(
    tokenHash: string,
    workspaceId: string,
    userId: string,
  ): Promise<CaptureToken> {
    const record: CaptureToken = {
      token_id: newId(),
      token_hash: tokenHash,
      workspace_id: workspaceId,
      user_id: userId,
      revoked: false,
      created_at: toIso(new Date(this.now())),
      last_used_at: null,
    };
    const res = await this.kv.atomic()
      .check({ key: captureTokenKey(tokenHash), versionstamp: null })
      .set(captureTokenKey(tokenHash), record)
      .set(tokenByUserKey(userId, record.token_id), tokenHash)
      .set(activeTokenByUserKey(userId), tokenHash)
      .set(activeTokenByWorkspaceKey(workspaceId), tokenHash)
      .commit();
    if (!res.ok) throw new Error("capture token collision");
    return record;
  }

  async findCaptureToken(tokenHash: string): Promise<CaptureToken | null> {
    return (await this.findCaptureTokenEntry(tokenHash)).value;
  }

  /** The token's record with its versionstamp, for `touchCaptureToken`. */
  findCaptureTokenEntry(tokenHash: string): Promise<Deno.KvEntryMaybe<CaptureToken>> {
    return this.kv.get<CaptureToken>(captureTokenKey(tokenHash));
  }

  /**
   * Notes a use of the token: `last_used_at` is written only when it is unset or at least
   * `LAST_USED_EVERY_MS` old, so the capture path reads what it already has and writes at most
   * once a minute per token. The write checks the entry read, so it never brings back a token
   * revoked meanwhile; losing that race (or to another capture's write) just skips the note.
   */
  async touchCaptureToken(entry: Deno.KvEntryMaybe<CaptureToken>): Promise<void> {
    const record = entry.value;
    if (!record) return;
    const at = this.now();
    const last = record.last_used_at ? Date.parse(record.last_used_at) : NaN;
    if (at - last < LAST_USED_EVERY_MS) return;
    await this.kv.atomic()
      .check(entry)
      .set(entry.key, { ...record, last_used_at: toIso(new Date(at)) })
      .commit();
  }

  async activeTokenHash(userId: string): Promise<string | null> {
    return (await this.kv.get<string>(activeTokenByUserKey(userId))).value;
  }

  /** The user's working tokens, newest first; `active` marks the one `DELETE .../token` hits. */
  async listCaptureTokens(userId: string): Promise<CaptureTokenInfo[]> {
    const hashes: string[] = [];
    for await (
      const e of this.kv.list<string>({ prefix: tokensOfUser(userId) }, { reverse: true })
    ) hashes.push(e.value);
    const active = await this.activeTokenHash(userId);
    const out: CaptureTokenInfo[] = [];
    // getMany reads at most 10 keys at a time
    for (let i = 0; i < hashes.length; i += 10) {
      const entries = await this.kv.getMany<CaptureToken[]>(
        hashes.slice(i, i + 10).map(captureTokenKey),
      );
      for (const { value } of entries) {
        if (!value || value.revoked || value.user_id !== userId) continue;
        out.push({
          token_id: value.token_id,
          workspace_id: value.workspace_id,
          // Records written before timestamps were stored in wire form end in `Z`.
          created_at: toIso(new Date(value.created_at)),
          last_used_at: value.last_used_at ? toIso(new Date(value.last_used_at)) : null,
          active: value.token_hash === active,
        });
      }
    }
    return out;
  }

  /**
   * Hard-deletes one of the user's tokens by id, with its index entry and any pointer to it.
   * False when the user has no such token (another user's id included).
   */
  async revokeCaptureToken(userId: string, tokenId: string): Promise<boolean> {
    return await retryCommit<boolean>(async () => {
      const index = await this.kv.get<string>(tokenByUserKey(userId, tokenId));
      if (!index.value) return { ok: true, value: false };
      const op = this.kv.atomic().check(index).delete(index.key);
      await this.#dropToken(op, userId, index.value);
      const res = await op.commit();
      return res.ok ? { ok: true, value: true } : { ok: false };
    });
  }

  /**
   * Hard-deletes the user's active token and clears the pointers to it; older tokens stay.
   * False when the user had no active token.
   */
  async deleteActiveCaptureToken(userId: string): Promise<boolean> {
    return await retryCommit<boolean>(async () => {
      const pointer = await this.kv.get<string>(activeTokenByUserKey(userId));
      if (!pointer.value) return { ok: true, value: false };
      const op = this.kv.atomic().check(pointer);
      const record = await this.#dropToken(op, userId, pointer.value);
      if (record?.token_id) {
        const index = await this.kv.get<string>(tokenByUserKey(userId, record.token_id));
        op.check(index).delete(index.key);
      }
      const res = await op.commit();
      return res.ok ? { ok: true, value: true } : { ok: false };
    });
  }

  /**
   * Adds to `op` the deletion of the token `tokenHash` and of the user's and workspace's
   * pointers where they point at it, each checked as read. Answers the record deleted.
   */
  async #dropToken(
    op: Deno.AtomicOperation,
    userId: string,
    tokenHash: string,
  ): Promise<CaptureToken | null> {
    const tokenEntry = await this.kv.get<CaptureToken>(captureTokenKey(tokenHash));
    const userPointer = await this.kv.get<string>(activeTokenByUserKey(userId));
    op.check(tokenEntry).check(userPointer).delete(tokenEntry.key);
    if (userPointer.value === tokenHash) op.delete(userPointer.key);
    if (tokenEntry.value) {
      const wsPointer = await this.kv.get<string>(
        activeTokenByWorkspaceKey(tokenEntry.value.workspace_id),
      );
      op.check(wsPointer);
      if (wsPointer.value === tokenHash) op.delete(wsPointer.key);
    }
    return tokenEntry.value;
  }

  /**
   * Gives every token stored before tokens had ids (no `token_id`) an id, a `last_used_at`
   * and its entry under its user, so its owner can list and revoke it. Runs at start and after
   * a restore; a token already indexed is left alone, so running it again changes nothing.
   */
  async indexCaptureTokens(): Promise<number> {
    let indexed = 0;
    for await (const entry of this.kv.list<CaptureToken>({ prefix: captureTokensPrefix() })) {
      const record = entry.value;
      if (record.token_id) continue;
      const next: CaptureToken = { ...record, token_id: newId(), last_used_at: null };
      const res = await this.kv.atomic()
        .check(entry)
        .set(entry.key, next)
        .set(tokenByUserKey(record.user_id, next.token_id), record.token_hash)
        .commit();
      if (res.ok) indexed++;
    }
    return indexed;
  }

  /**
   * Counts one capture with the token `tokenHash` when fewer than `limit` were made in this
   * minute's window, in one atomic check-and-set (two concurrent captures cannot both take the
   * last slot). `limit` 0 turns the limit off: every capture is allowed and nothing is stored.
   */
  async takeCapture(tokenHash: string, limit: number): Promise<CaptureDecision> {
    if (limit <= 0) return { allowed: true, used: 0 };
    const at = this.now();
    const windowStart = at - (at % CAPTURE_WINDOW_MS);
    const key = captureRateKey(tokenHash, windowStart);
    return await retryCommit<CaptureDecision>(async () => {
      const entry = await this.kv.get<number>(key);
      const used = entry.value ?? 0;
      if (used >= limit) {
        const retryAfterSeconds = Math.max(
          1,
          Math.ceil((windowStart + CAPTURE_WINDOW_MS - at) / 1000),
        );
        return { ok: true, value: { allowed: false, retryAfterSeconds } };
      }
      const res = await this.kv.atomic()
        .check(entry)
        .set(key, used + 1, { expireIn: 2 * CAPTURE_WINDOW_MS })
        .commit();
      return res.ok ? { ok: true, value: { allowed: true, used: used + 1 } } : { ok: false };
    }, 50);
  }
}
