import { retryCommit } from "../../shared/kv/kv.ts";
import { aiCallsKey } from "./keys.ts";

/** The length of one rate-limit window. */
export const WINDOW_MS = 60_000;

export type CallDecision =
  | { allowed: true; used: number }
  | { allowed: false; retryAfterSeconds: number };

/**
 * The genai service's KV: only the per-user AI call counters (fixed one-minute windows). The
 * counters expire on their own shortly after their window, so nothing else needs cleaning.
 */
export class GenaiStore {
  constructor(private readonly kv: Deno.Kv, private readonly now: () => number = Date.now) {}

  /**
   * Counts one AI call for `userId` when fewer than `limit` were made in this minute's window,
   * in one atomic check-and-set (two concurrent calls cannot both take the last slot).
   * `limit` 0 turns the limit off: every call is allowed and nothing is stored.
   */
  async takeAiCall(userId: string, limit: number): Promise<CallDecision> {
    if (limit <= 0) return { allowed: true, used: 0 };
    const at = this.now();
    const windowStart = at - (at % WINDOW_MS);
    const key = aiCallsKey(userId, windowStart);
    return await retryCommit<CallDecision>(async () => {
      const entry = await this.kv.get<number>(key);
      const used = entry.value ?? 0;
      if (used >= limit) {
        const retryAfterSeconds = Math.max(1, Math.ceil((windowStart + WINDOW_MS - at) / 1000));
        return { ok: true, value: { allowed: false, retryAfterSeconds } };
      }
      const result = await this.kv.atomic()
        .check(entry)
        .set(key, used + 1, { expireIn: 2 * WINDOW_MS })
        .commit();
      return result.ok ? { ok: true, value: { allowed: true, used: used + 1 } } : { ok: false };
    }, 50);
  }
}
