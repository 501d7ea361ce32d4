/** How many tries a contended read-modify-write gets before it gives up (500). */
export const COMMIT_TRIES = 60;

/** A commit's result as `retryCommit` wants it: the value when it went through. */
export function outcome<T>(
  res: Deno.KvCommitResult | Deno.KvCommitError,
  value: T,
): { ok: true; value: T } | { ok: false } {
  return res.ok ? { ok: true, value } : { ok: false };
}
