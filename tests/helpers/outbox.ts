/** Reads the outbox file (CONTRACT section 6) that every email and DM is appended to. */
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
