import assert from "node:assert/strict";

/**
 * Asserts that a 429 says when to try again: a `Retry-After` of whole seconds, at least 1 and
 * no more than the refusing limiter's window (`windowSeconds`). Answers the delay.
 */
export function assertRetryAfter(headers: Headers, windowSeconds: number): number {
  const raw = headers.get("retry-after");
  assert.ok(raw !== null, "the 429 carries no Retry-After");
  assert.match(raw, /^\d+$/, `Retry-After is not whole seconds: ${raw}`);
  const seconds = Number(raw);
  assert.ok(seconds >= 1, `Retry-After is below 1: ${raw}`);
  assert.ok(seconds <= windowSeconds, `Retry-After ${raw} exceeds the ${windowSeconds} s window`);
  return seconds;
}
