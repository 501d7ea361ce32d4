/**
 * A user's live access state, as the auth service answers it (`AuthClient.access`). Defined
 * here so shared code and the auth client both import it without a cycle.
 */
export interface UserAccess {
  user_id: string;
  /** false for a disabled or rejected account */
  active: boolean;
  role: "admin" | "member";
  /**
   * When the account's sessions were last revoked (ms since the epoch; a password reset): what
   * was issued before is refused. Null or absent when never.
   */
  sessions_revoked_at?: number | null;
  /**
   * Answered to a lookup that names a session (refresh family): false once it was revoked
   * (logout, a reused refresh token) or began before `sessions_revoked_at`.
   */
  session_live?: boolean;
}

export type AccessLookup = (userId: string, sid?: string) => Promise<UserAccess | null>;

/**
 * Whether a verified token still stands by its account's live answer: a token of a session
 * (`sid`) while that session is live; a token without one (issued before sessions were named)
 * unless it was surely issued before the account's sessions were revoked (`iat` is in seconds).
 */
export function tokenSessionLive(
  live: UserAccess,
  token: { sid?: string; iat?: number },
): boolean {
  if (token.sid !== undefined) return live.session_live !== false;
  const revokedAt = live.sessions_revoked_at;
  if (!revokedAt || token.iat === undefined) return true;
  return (token.iat + 1) * 1000 > revokedAt;
}

/** A cached answer is trusted this long: revocation must land within 5 s. */
export const ACCESS_TTL_MS = 2_000;
const MAX_ENTRIES = 50_000;
/** Between a user id and a session id in a cache key (neither holds it). */
const SESSION_SEPARATOR = "\u0000";
const cacheKey = (userId: string, sid?: string) =>
  sid === undefined ? userId : `${userId}${SESSION_SEPARATOR}${sid}`;

/**
 * Remembers each user's live access state for a short time (at most 2 s), so a check on every
 * request costs a map lookup and the auth service sees one lookup per user (per user and
 * session, for lookups that name one) and TTL. Concurrent lookups of one user share one call.
 * A failed lookup is not cached: the caller sees the error.
 */
export class AccessCache {
  readonly #entries = new Map<
    string,
    { value: UserAccess | null; fetchedAt: number; expiresAt: number }
  >();
  readonly #pending = new Map<string, Promise<UserAccess | null>>();
  readonly #ttlMs: number;

  constructor(
    private readonly fetch: AccessLookup,
    ttlMs = ACCESS_TTL_MS,
    private readonly now: () => number = Date.now,
  ) {
    this.#ttlMs = Math.min(Math.max(0, ttlMs), ACCESS_TTL_MS);
  }

  /**
   * The user's access state, from the cache when it is fresh. `fetchedAfter` (epoch ms) refuses
   * a cached answer fetched before it: a token issued after the answer may carry a promotion
   * the answer predates. `sid` asks about one session of the user too (`session_live`).
   */
  get(
    userId: string,
    { fetchedAfter = 0, sid }: { fetchedAfter?: number; sid?: string } = {},
  ): Promise<UserAccess | null> {
    const key = cacheKey(userId, sid);
    const cached = this.#entries.get(key);
    if (cached && cached.expiresAt > this.now() && cached.fetchedAt >= fetchedAfter) {
      return Promise.resolve(cached.value);
    }
    const pending = this.#pending.get(key);
    if (pending) return pending;
    const lookup = this.#lookup(key, userId, sid);
    this.#pending.set(key, lookup);
    return lookup;
  }

  /**
   * The fresh cached answer for the user (and session), without waiting: undefined when there
   * is none and `get` must ask.
   */
  peek(userId: string, sid?: string): UserAccess | null | undefined {
    const cached = this.#entries.get(cacheKey(userId, sid));
    return cached && cached.expiresAt > this.now() ? cached.value : undefined;
  }

  /** Forgets what is known of `userId` (or of everyone), so the next `get` asks again. */
  invalidate(userId?: string): void {
    if (userId === undefined) {
      this.#entries.clear();
      return;
    }
    this.#entries.delete(userId);
    const sessions = `${userId}${SESSION_SEPARATOR}`;
    for (const key of this.#entries.keys()) {
      if (key.startsWith(sessions)) this.#entries.delete(key);
    }
  }

  async #lookup(key: string, userId: string, sid?: string): Promise<UserAccess | null> {
    try {
      const fetchedAt = this.now();
      const value = await (sid === undefined ? this.fetch(userId) : this.fetch(userId, sid));
      if (this.#ttlMs > 0) {
        if (this.#entries.size >= MAX_ENTRIES) this.#prune();
        this.#entries.set(key, { value, fetchedAt, expiresAt: fetchedAt + this.#ttlMs });
      }
      return value;
    } finally {
      this.#pending.delete(key);
    }
  }

  /** Drops expired entries; when every entry is fresh, drops the oldest half. */
  #prune(): void {
    const now = this.now();
    for (const [id, entry] of this.#entries) {
      if (entry.expiresAt <= now) this.#entries.delete(id);
    }
    if (this.#entries.size < MAX_ENTRIES) return;
    let drop = Math.floor(this.#entries.size / 2);
    for (const id of this.#entries.keys()) {
      if (drop-- <= 0) break;
      this.#entries.delete(id);
    }
  }
}

/** The role a request may act with: the token's, unless the live role is lower (demotion). */
export function effectiveRole(
  tokenRole: "admin" | "member",
  liveRole: "admin" | "member",
): "admin" | "member" {
  return tokenRole === "admin" && liveRole === "member" ? "member" : tokenRole;
}
