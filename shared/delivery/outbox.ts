import { nowIso } from "../time.ts";
import type { OutgoingMessage } from "./message.ts";

/** One line of OUTBOX_FILE, exactly as clients read it. */
export interface OutboxEntry {
  channel: OutgoingMessage["channel"];
  to: string;
  template: OutgoingMessage["template"];
  subject: string;
  text: string;
  data: Record<string, unknown>;
  at: string;
}

/** The outbox line of `message`, its keys in the documented order. */
export function outboxEntry(message: OutgoingMessage, at: string = nowIso()): OutboxEntry {
  return {
    channel: message.channel,
    to: message.to,
    template: message.template,
    subject: message.subject,
    text: message.text,
    data: message.data,
    at,
  };
}

/** Appends in flight per file, so that this process writes one line at a time. */
const tails = new Map<string, Promise<unknown>>();

function parentDir(file: string): string | undefined {
  const i = Math.max(file.lastIndexOf("/"), file.lastIndexOf("\\"));
  if (i <= 0) return undefined;
  return file.slice(0, i);
}

async function appendLine(file: string, line: string): Promise<void> {
  const dir = parentDir(file);
  // Private: the lines hold confirmation and reset codes (0700 directory, 0600 file).
  if (dir) await Deno.mkdir(dir, { recursive: true, mode: 0o700 });
  const bytes = new TextEncoder().encode(line);
  const handle = await Deno.open(file, { append: true, create: true, mode: 0o600 });
  try {
    // One write call with O_APPEND puts the whole line at the end of the file, so writers in
    // other processes cannot land inside it. A short write (disk full) is finished, not lost.
    let written = await handle.write(bytes);
    while (written < bytes.length) written += await handle.write(bytes.subarray(written));
  } finally {
    handle.close();
  }
}

/**
 * Appends `message` to the outbox file as one JSON line, creating the file and its directory
 * when missing. Concurrent appends from this process are serialized; each is one write call.
 */
export function appendOutbox(file: string, message: OutgoingMessage): Promise<OutboxEntry> {
  const entry = outboxEntry(message);
  const line = JSON.stringify(entry) + "\n";
  const previous = tails.get(file) ?? Promise.resolve();
  const next = previous.catch(() => {}).then(() => appendLine(file, line));
  const settled = next.catch(() => {});
  tails.set(file, settled);
  settled.then(() => {
    if (tails.get(file) === settled) tails.delete(file);
  });
  return next.then(() => entry);
}
