/**
 * A user's live access state, as the auth service answers it (`AuthClient.access`). Defined
 * here so shared code and the auth client both import it without a cycle.
 */
export interface UserAccess {
  user_id: string;
  /** false for a disabled or rejected account */
  active: boolean;
  role: "admin" | "member";
}

export type AccessLookup = (userId: string) => Promise<UserAccess | null>;

/** A cached answer is trusted this long: revocation must land within 5 s (CONTRACT 11). */
export const ACCESS_TTL_MS = 2_000;
const MAX_ENTRIES = 50_000;

/**
 * Remembers each user's live access state for a short time (at most 2 s), so a check on every
 * request costs a map lookup and the auth service sees one lookup per user and TTL. Concurrent
 * lookups of one user share one call. A failed lookup is not cached: the caller sees the error.
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
   * the answer predates.
   */
  get(userId: string, { fetchedAfter = 0 }: { fetchedAfter?: number } = {}): Promise<
    UserAccess | null
  > {
    const cached = this.#entries.get(userId);
    if (cached && cached.expiresAt > this.now() && cached.fetchedAt >= fetchedAfter) {
      return Promise.resolve(cached.value);
    }
    const pending = this.#pending.get(userId);
    if (pending) return pending;
    const lookup = this.#lookup(userId);
    this.#pending.set(userId, lookup);
    return lookup;
  }

  /** Forgets what is known of `userId` (or of everyone), so the next `get` asks again. */
  invalidate(userId?: string): void {
    if (userId === undefined) this.#entries.clear();
    else this.#entries.delete(userId);
  }

  async #lookup(userId: string): Promise<UserAccess | null> {
    try {
      const fetchedAt = this.now();
      const value = await this.fetch(userId);
      if (this.#ttlMs > 0) {
        if (this.#entries.size >= MAX_ENTRIES) this.#prune();
        this.#entries.set(userId, { value, fetchedAt, expiresAt: fetchedAt + this.#ttlMs });
      }
      return value;
    } finally {
      this.#pending.delete(userId);
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
