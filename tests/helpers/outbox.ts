/** Reads the outbox file that every email and DM is appended to. */
export interface OutboxLine {
  channel: "email" | "dm";
  to: string;
  template: string;
  subject: string;
  text: string;
  data: Record<string, unknown>;
  at: string;
}

export async function readOutbox(file: string): Promise<OutboxLine[]> {
  let text = "";
  try {
    text = await Deno.readTextFile(file);
  } catch {
    return [];
  }
  return text.split("\n").filter((l) => l.trim()).map((l) => JSON.parse(l));
}

/** Waits (up to `timeoutMs`) for an outbox line matching `match`, newest first. */
export async function waitForOutbox(
  file: string,
  match: (line: OutboxLine) => boolean,
  timeoutMs = 10_000,
): Promise<OutboxLine> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const found = (await readOutbox(file)).reverse().find(match);
    if (found) return found;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error("no matching outbox line arrived");
}

/**
 * Waits until the outbox has stopped growing for `quietMs` (messages queued by earlier steps
 * have landed), then answers its line count: the baseline for "no message was sent".
 */
export async function settledOutboxLength(file: string, quietMs = 600): Promise<number> {
  let last = (await readOutbox(file)).length;
  let stableSince = Date.now();
  const deadline = Date.now() + 15_000;
  while (Date.now() - stableSince < quietMs && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 50));
    const now = (await readOutbox(file)).length;
    if (now !== last) {
      last = now;
      stableSince = Date.now();
    }
  }
  return last;
}
