/**
 * The one way tests wait: poll `probe` every 20 ms until it answers something other than
 * `undefined` or `false`, and answer that. Fails with "timed out waiting for <what>".
 */
export async function waitFor<T>(
  probe: () => T | undefined | false | Promise<T | undefined | false>,
  what: string,
  timeoutMs = 10_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  while (true) {
    const found = await probe();
    if (found !== undefined && found !== false) return found;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/**
 * Waits until `read` has answered the same value for `quietMs` (work queued by earlier steps
 * has landed), then answers it: the baseline for "nothing more happened".
 */
export async function settledValue<T>(
  read: () => T | Promise<T>,
  quietMs: number,
  timeoutMs = 30_000,
): Promise<T> {
  let last = await read();
  let stableSince = Date.now();
  const deadline = Date.now() + timeoutMs;
  while (Date.now() - stableSince < quietMs) {
    if (Date.now() > deadline) throw new Error("the value never settled");
    await new Promise((r) => setTimeout(r, 20));
    const now = await read();
    if (now !== last) {
      last = now;
      stableSince = Date.now();
    }
  }
  return last;
}
