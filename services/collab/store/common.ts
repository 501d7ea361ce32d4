/** What collab's store topics share: the record shapes, KV's size limits, and byte helpers. */

/** Bytes of one stored part (an update chunk or a snapshot part): under KV's 64 KiB value limit. */
export const PART_BYTES = 60_000;
/** Bytes of values per commit: under KV's 800 KiB limit with room for keys and the head. */
export const COMMIT_BYTES = 9 * PART_BYTES;
/** Mutations per cleanup commit: under KV's limit of 1000. */
export const DELETE_BATCH = 500;

export interface DocHead {
  post_id: string;
  workspace_id: string | null;
  /** the sequence number of the last stored update */
  seq: number;
  /** updates up to and including this one are in the snapshot */
  snapshot_seq: number;
  snapshot_id: string | null;
  snapshot_parts: number;
  snapshot_bytes: number;
  compactions: number;
  created_at: string;
  updated_at: string;
  compacted_at: string | null;
}

export interface ChunkedUpdate {
  chunks: number;
  bytes: number;
}

/** A head as last committed, with its versionstamp (what the next append checks). */
export interface HeadEntry {
  head: DocHead;
  versionstamp: string;
}

export interface LoadedDoc {
  head: DocHead;
  versionstamp: string;
  /** the snapshot (when there is one) first, then every stored update after it, in order */
  updates: Uint8Array[];
}

/**
 * What one instance tells the others about a post: an awareness update of one of its sockets
 * (the entries it kept, as y-protocols encodes them), or an event for every socket.
 */
export type Signal =
  | { from: string; kind: "awareness"; user: string; update: Uint8Array }
  | { from: string; kind: "event"; message: unknown };

/** A post's head and its signal log's sequence, as one read sees them. */
export interface FollowedHeads {
  doc: HeadEntry | null;
  signalSeq: number;
}

/** Thrown when the stored records of a document do not add up (a bug, or a damaged file). */
export class CorruptDocError extends Error {}

/**
 * The restore epoch a room's state is from: the versionstamp of `["collab_restore_epoch"]` when
 * the room was loaded (null: no restore yet). What the room stores is checked against it
 * (restore_epoch.ts); undefined where nothing is checked.
 */
export type Epoch = string | null;

/**
 * Thrown when what a room would store is from before a restore (the epoch it was loaded in has
 * moved): nothing of it was stored, and nothing of that room may be.
 */
export class RestoredError extends Error {
  constructor() {
    super("The documents were restored from a backup");
  }
}

/**
 * Deletes every record `iter` lists, DELETE_BATCH to a commit, each commit making `check` when
 * given; answers false (having stopped) when a check failed.
 */
export async function deleteAll(
  kv: Deno.Kv,
  iter: Deno.KvListIterator<unknown>,
  check?: Deno.AtomicCheck,
): Promise<boolean> {
  const next = () => check ? kv.atomic().check(check) : kv.atomic();
  let op = next();
  let n = 0;
  for await (const e of iter) {
    op.delete(e.key);
    if (++n === DELETE_BATCH) {
      if (!(await op.commit()).ok) return false;
      op = next();
      n = 0;
    }
  }
  return n === 0 || (await op.commit()).ok;
}

/** `bytes` in parts of at most PART_BYTES (one part when it fits). */
export function split(bytes: Uint8Array): Uint8Array[] {
  if (bytes.length <= PART_BYTES) {
    // A view is copied: KV would serialize a view's whole underlying buffer.
    const whole = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength;
    return [whole ? bytes : bytes.slice()];
  }
  const parts: Uint8Array[] = [];
  for (let i = 0; i < bytes.length; i += PART_BYTES) {
    parts.push(bytes.slice(i, Math.min(bytes.length, i + PART_BYTES)));
  }
  return parts;
}

/** The parts joined again. */
export function concat(parts: Uint8Array[]): Uint8Array {
  if (parts.length === 1) return parts[0];
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let offset = 0;
  for (const p of parts) {
    out.set(p, offset);
    offset += p.length;
  }
  return out;
}
