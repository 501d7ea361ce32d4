import * as Y from "yjs";
import { newId } from "../../shared/crypto/ids.ts";
import { nowIso } from "../../shared/time.ts";
import {
  chunkKey,
  docWorkspaceKey,
  headKey,
  signalHeadKey,
  signalKey,
  snapshotKey,
  updateKey,
} from "./keys.ts";

/**
 * The only code that touches collab's KV. A document is a snapshot plus the updates stored
 * after it:
 *
 * - `["doc_heads", postId]`: the head record. Every append checks and moves it (so two writers
 *   never take the same sequence number), and a compaction flips it to a new snapshot in one
 *   checked commit.
 * - `["doc_updates", postId, seq]`: one stored update (a batch of client updates merged), or,
 *   for one over KV's 64 KiB value limit, a `{chunks, bytes}` marker whose bytes are at
 *   `["doc_update_chunks", postId, seq, i]`.
 * - `["doc_snapshots", postId, snapshotId, part]`: the compacted state, in parts. A snapshot
 *   has its own id, so its parts are written before the head points at it (a large snapshot
 *   needs several commits) and a concurrent compaction can never mix parts with it.
 * - `["doc_workspaces", postId]`: the post's workspace, as the posts service tells it when the
 *   post is created (or its text set); a socket may open only for that workspace.
 * - `["doc_signal_heads", postId]` and `["doc_signals", postId, seq]`: what instances tell each
 *   other about a post besides its text (awareness changes, comment events), a short-lived log
 *   (each entry expires after `SIGNAL_TTL_MS`) that every instance with the post open follows.
 */
export const PART_BYTES = 60_000;
/** Bytes of values per commit: under KV's 800 KiB limit with room for keys and the head. */
const COMMIT_BYTES = 9 * PART_BYTES;
/** Mutations per cleanup commit: under KV's limit of 1000. */
const DELETE_BATCH = 500;
/** How long a signal stays readable: longer than a provider's awareness renewal (15 s). */
export const SIGNAL_TTL_MS = 30_000;
/** Bytes of signals per log entry (an estimate): under KV's 64 KiB value limit. */
const SIGNAL_ENTRY_BYTES = 48_000;

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

interface ChunkedUpdate {
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

export class DocStore {
  constructor(private readonly kv: Deno.Kv) {}

  async getHead(postId: string): Promise<DocHead | null> {
    return (await this.kv.get<DocHead>(headKey(postId))).value;
  }

  /** The head entry as stored now (null: no document). */
  async getHeadEntry(postId: string): Promise<HeadEntry | null> {
    const e = await this.kv.get<DocHead>(headKey(postId));
    return e.value ? { head: e.value, versionstamp: e.versionstamp } : null;
  }

  /** The head entries of the posts that have a document, ten posts to a read. */
  async headEntries(postIds: string[]): Promise<Map<string, HeadEntry>> {
    const out = new Map<string, HeadEntry>();
    for (let i = 0; i < postIds.length; i += 10) {
      const entries = await this.kv.getMany<DocHead[]>(postIds.slice(i, i + 10).map(headKey));
      for (const e of entries) {
        if (e.value) out.set(e.value.post_id, { head: e.value, versionstamp: e.versionstamp! });
      }
    }
    return out;
  }

  /** The post's workspace as told by posts, else as its document recorded it; null: unknown. */
  async docWorkspace(postId: string): Promise<string | null> {
    const [told, head] = await this.kv.getMany<[string, DocHead]>([
      docWorkspaceKey(postId),
      headKey(postId),
    ]);
    return told.value ?? head.value?.workspace_id ?? null;
  }

  /** Records the workspace of each post (idempotent; 500 posts to a commit). */
  async setDocWorkspaces(docs: { post_id: string; workspace_id: string }[]): Promise<void> {
    for (let i = 0; i < docs.length; i += DELETE_BATCH) {
      const op = this.kv.atomic();
      for (const d of docs.slice(i, i + DELETE_BATCH)) {
        op.set(docWorkspaceKey(d.post_id), d.workspace_id);
      }
      const res = await op.commit();
      if (!res.ok) throw new Error("Recording the posts' workspaces failed");
    }
  }

  /** The doc heads and signal sequences of several posts, five posts to a read. */
  async followedHeads(postIds: string[]): Promise<Map<string, FollowedHeads>> {
    const out = new Map<string, FollowedHeads>();
    for (let i = 0; i < postIds.length; i += 5) {
      const ids = postIds.slice(i, i + 5);
      const entries = await this.kv.getMany<unknown[]>(
        ids.flatMap((id) => [headKey(id), signalHeadKey(id)]),
      );
      ids.forEach((id, j) => out.set(id, toFollowed(entries[2 * j], entries[2 * j + 1])));
    }
    return out;
  }

  /** Every change of the post's head or signal log, as `kv.watch` delivers it. */
  watch(postId: string): ReadableStream<FollowedHeads> {
    return this.kv.watch([headKey(postId), signalHeadKey(postId)]).pipeThrough(
      new TransformStream<Deno.KvEntryMaybe<unknown>[], FollowedHeads>({
        transform: ([doc, signals], out) => out.enqueue(toFollowed(doc, signals)),
      }),
    );
  }

  /**
   * The stored updates `fromSeq..toSeq`, in order; null when one of them is gone (a compaction
   * folded it into a snapshot: read the whole document instead).
   */
  async readUpdates(postId: string, fromSeq: number, toSeq: number): Promise<Uint8Array[] | null> {
    const updates: Uint8Array[] = [];
    if (fromSeq > toSeq) return updates;
    let expected = fromSeq;
    const iter = this.kv.list<Uint8Array | ChunkedUpdate>({
      start: updateKey(postId, fromSeq),
      end: updateKey(postId, toSeq + 1),
    });
    for await (const e of iter) {
      const seq = e.key[2] as number;
      if (seq !== expected++) return null;
      if (e.value instanceof Uint8Array) updates.push(e.value);
      else {
        const bytes = await this.#readChunks(postId, seq, e.value);
        if (!bytes) return null;
        updates.push(bytes);
      }
    }
    return expected === toSeq + 1 ? updates : null;
  }

  /**
   * Appends signals to the post's log (grouped into entries under the value limit, in one
   * checked commit); a signal too large for one entry is dropped. Answers the sequence
   * numbers taken.
   */
  async appendSignals(
    postId: string,
    signals: Signal[],
  ): Promise<{ first: number; last: number }> {
    const groups: Signal[][] = [];
    let bytes = SIGNAL_ENTRY_BYTES;
    for (const signal of signals) {
      const size = signalBytes(signal);
      if (size > SIGNAL_ENTRY_BYTES) continue;
      if (bytes + size > SIGNAL_ENTRY_BYTES) {
        groups.push([]);
        bytes = 0;
      }
      groups[groups.length - 1].push(signal);
      bytes += size;
    }
    if (groups.length === 0) return { first: 0, last: 0 };
    for (let attempt = 0; attempt < 50; attempt++) {
      const entry = await this.kv.get<{ seq: number }>(signalHeadKey(postId));
      const first = (entry.value?.seq ?? 0) + 1;
      const op = this.kv.atomic().check(entry);
      groups.forEach((group, i) =>
        op.set(signalKey(postId, first + i), group, { expireIn: SIGNAL_TTL_MS })
      );
      const last = first + groups.length - 1;
      op.set(signalHeadKey(postId), { seq: last });
      if ((await op.commit()).ok) return { first, last };
      await new Promise((r) => setTimeout(r, Math.random() * 2 * (attempt + 1)));
    }
    throw new Error(`Storing a signal of document ${postId} kept conflicting`);
  }

  /** The signals stored as `fromSeq..toSeq` that have not expired, in order. */
  async readSignals(postId: string, fromSeq: number, toSeq: number): Promise<Signal[]> {
    const out: Signal[] = [];
    for await (
      const e of this.kv.list<Signal[]>({
        start: signalKey(postId, fromSeq),
        end: signalKey(postId, toSeq + 1),
      })
    ) out.push(...e.value);
    return out;
  }

  /** Whether each post has a document; ids without one are absent. */
  async existing(postIds: string[]): Promise<Set<string>> {
    const found = new Set<string>();
    for (let i = 0; i < postIds.length; i += 10) {
      const entries = await this.kv.getMany<DocHead[]>(postIds.slice(i, i + 10).map(headKey));
      for (const e of entries) if (e.value) found.add(e.value.post_id);
    }
    return found;
  }

  /**
   * The document's snapshot and updates, read consistently: if a compaction flips the head
   * while we read, we read again (appends meanwhile only add records past the head we read).
   */
  async load(postId: string): Promise<LoadedDoc | null> {
    for (let attempt = 0; attempt < 10; attempt++) {
      const entry = await this.kv.get<DocHead>(headKey(postId));
      const head = entry.value;
      if (!head) return null;
      const updates: Uint8Array[] = [];
      if (head.snapshot_id) {
        const parts: Uint8Array[] = [];
        for await (
          const e of this.kv.list<Uint8Array>({
            prefix: ["doc_snapshots", postId, head.snapshot_id],
          })
        ) parts.push(e.value);
        if (parts.length !== head.snapshot_parts) continue;
        updates.push(concat(parts));
      }
      const rest = head.seq > head.snapshot_seq
        ? await this.readUpdates(postId, head.snapshot_seq + 1, head.seq)
        : [];
      if (rest) return { head, versionstamp: entry.versionstamp!, updates: updates.concat(rest) };
      // A record is missing: a compaction deleted it under us, or the data is damaged.
      const now = await this.getHead(postId);
      if (now && now.snapshot_id === head.snapshot_id && now.seq >= head.seq) {
        throw new CorruptDocError(`Document ${postId} is missing stored updates`);
      }
    }
    throw new Error(`Document ${postId} kept changing while it was loaded`);
  }

  async #readChunks(postId: string, seq: number, marker: ChunkedUpdate) {
    const parts: Uint8Array[] = [];
    for await (
      const e of this.kv.list<Uint8Array>({ prefix: ["doc_update_chunks", postId, seq] })
    ) parts.push(e.value);
    if (parts.length !== marker.chunks) return null;
    return concat(parts);
  }

  /**
   * Stores one update as the next sequence number (creating the document when absent) and
   * answers the new head. An update over 60 000 bytes is chunked; chunks that do not fit the
   * final commit are written first, each commit checking the head did not move.
   */
  async append(
    postId: string,
    update: Uint8Array,
    options: { workspaceId?: string; expected?: HeadEntry | null } = {},
  ): Promise<HeadEntry> {
    const parts = split(update);
    for (let attempt = 0; attempt < 50; attempt++) {
      // The head the caller saw after its last commit saves a read; a wrong guess only costs
      // a failed check and a retry with the real one.
      const entry: Deno.KvEntryMaybe<DocHead> = attempt === 0 && options.expected
        ? {
          key: headKey(postId),
          value: options.expected.head,
          versionstamp: options.expected.versionstamp,
        }
        : await this.kv.get<DocHead>(headKey(postId));
      const now = nowIso();
      const prev = entry.value;
      const seq = (prev?.seq ?? 0) + 1;
      const head: DocHead = prev
        ? {
          ...prev,
          workspace_id: prev.workspace_id ?? options.workspaceId ?? null,
          seq,
          updated_at: now,
        }
        : {
          post_id: postId,
          workspace_id: options.workspaceId ?? null,
          seq,
          snapshot_seq: 0,
          snapshot_id: null,
          snapshot_parts: 0,
          snapshot_bytes: 0,
          compactions: 0,
          created_at: now,
          updated_at: now,
          compacted_at: null,
        };
      const op = this.kv.atomic().check(entry);
      if (parts.length === 1) {
        op.set(updateKey(postId, seq), update);
      } else {
        const perCommit = Math.floor(COMMIT_BYTES / PART_BYTES);
        let i = 0;
        let moved = false;
        // All chunks but the last group go first; nothing references them until the head moves.
        for (; parts.length - i > perCommit; i += perCommit) {
          const pre = this.kv.atomic().check(entry);
          for (let j = i; j < i + perCommit; j++) pre.set(chunkKey(postId, seq, j), parts[j]);
          if (!(await pre.commit()).ok) {
            moved = true;
            break;
          }
        }
        if (moved) continue;
        for (let j = i; j < parts.length; j++) op.set(chunkKey(postId, seq, j), parts[j]);
        op.set(updateKey(postId, seq), { chunks: parts.length, bytes: update.length });
      }
      op.set(headKey(postId), head);
      const res = await op.commit();
      if (res.ok) return { head, versionstamp: res.versionstamp };
      await new Promise((r) => setTimeout(r, Math.random() * 2 * (attempt + 1)));
    }
    throw new Error(`Storing an update of document ${postId} kept conflicting`);
  }

  /**
   * Replaces the snapshot and the updates up to `throughSeq` with `snapshot`, which must hold
   * at least everything in them. Safe against updates arriving meanwhile: the head flip is
   * checked (retried while only appends moved it) and never touches records past
   * `throughSeq`. Answers the new head, or null when another compaction got there first.
   */
  async compact(
    postId: string,
    snapshot: Uint8Array,
    throughSeq: number,
    baseSnapshotId: string | null,
  ): Promise<HeadEntry | null> {
    const id = newId();
    const parts = split(snapshot);
    const perCommit = Math.floor(COMMIT_BYTES / PART_BYTES);
    for (let i = 0; i < parts.length; i += perCommit) {
      const op = this.kv.atomic();
      for (let j = i; j < Math.min(parts.length, i + perCommit); j++) {
        op.set(snapshotKey(postId, id, j), parts[j]);
      }
      await op.commit();
    }
    let flipped: HeadEntry | null = null;
    for (let attempt = 0; attempt < 50 && !flipped; attempt++) {
      const entry = await this.kv.get<DocHead>(headKey(postId));
      const head = entry.value;
      if (!head || head.snapshot_id !== baseSnapshotId || head.seq < throughSeq) break;
      const next: DocHead = {
        ...head,
        snapshot_id: id,
        snapshot_seq: throughSeq,
        snapshot_parts: parts.length,
        snapshot_bytes: snapshot.length,
        compactions: head.compactions + 1,
        compacted_at: nowIso(),
      };
      const res = await this.kv.atomic().check(entry).set(headKey(postId), next).commit();
      if (res.ok) flipped = { head: next, versionstamp: res.versionstamp };
    }
    if (!flipped) {
      await this.#deleteAll(this.kv.list({ prefix: ["doc_snapshots", postId, id] }));
      return null;
    }
    // The old snapshot and the updates it replaced are unreachable now: clear them away.
    if (baseSnapshotId) {
      await this.#deleteAll(this.kv.list({ prefix: ["doc_snapshots", postId, baseSnapshotId] }));
    }
    await this.#deleteAll(this.kv.list({
      prefix: ["doc_updates", postId],
      end: updateKey(postId, throughSeq + 1),
    }));
    await this.#deleteAll(this.kv.list({
      prefix: ["doc_update_chunks", postId],
      end: ["doc_update_chunks", postId, throughSeq + 1],
    }));
    return flipped;
  }

  /**
   * Compacts from what is stored (when the caller has no complete state in memory): the
   * snapshot and updates are applied to a fresh document, whose state becomes the snapshot.
   */
  async compactFromStorage(postId: string): Promise<HeadEntry | null> {
    const loaded = await this.load(postId);
    if (!loaded) return null;
    if (loaded.head.seq === loaded.head.snapshot_seq) {
      return { head: loaded.head, versionstamp: loaded.versionstamp };
    }
    const doc = new Y.Doc();
    try {
      for (const u of loaded.updates) Y.applyUpdate(doc, u);
      return await this.compact(
        postId,
        Y.encodeStateAsUpdate(doc),
        loaded.head.seq,
        loaded.head.snapshot_id,
      );
    } finally {
      doc.destroy();
    }
  }

  /** Removes the document: the head first (so it is gone at once), then every record. */
  async delete(postId: string): Promise<boolean> {
    const head = await this.kv.get<DocHead>(headKey(postId));
    await this.kv.delete(headKey(postId));
    for (
      const collection of ["doc_updates", "doc_update_chunks", "doc_snapshots", "doc_signals"]
    ) {
      await this.#deleteAll(this.kv.list({ prefix: [collection, postId] }));
    }
    await this.kv.delete(signalHeadKey(postId));
    await this.kv.delete(docWorkspaceKey(postId));
    return head.value !== null;
  }

  /** How the document is stored, for operators and tests. */
  async stats(postId: string) {
    const head = await this.getHead(postId);
    if (!head) return null;
    let records = 0;
    for await (
      const _ of this.kv.list({ prefix: ["doc_updates", postId] }, { batchSize: 500 })
    ) records++;
    return {
      post_id: postId,
      seq: head.seq,
      snapshot_seq: head.snapshot_seq,
      stored_updates: head.seq - head.snapshot_seq,
      update_records: records,
      snapshot_bytes: head.snapshot_bytes,
      snapshot_parts: head.snapshot_parts,
      compactions: head.compactions,
      compacted_at: head.compacted_at,
    };
  }

  async #deleteAll(iter: Deno.KvListIterator<unknown>) {
    let op = this.kv.atomic();
    let n = 0;
    for await (const e of iter) {
      op.delete(e.key);
      if (++n === DELETE_BATCH) {
        await op.commit();
        op = this.kv.atomic();
        n = 0;
      }
    }
    if (n > 0) await op.commit();
  }
}

function toFollowed(
  doc: Deno.KvEntryMaybe<unknown>,
  signals: Deno.KvEntryMaybe<unknown>,
): FollowedHeads {
  return {
    doc: doc.value ? { head: doc.value as DocHead, versionstamp: doc.versionstamp! } : null,
    signalSeq: (signals.value as { seq: number } | null)?.seq ?? 0,
  };
}

/** A signal's stored size, roughly (its JSON, or its bytes plus a margin). */
function signalBytes(signal: Signal): number {
  return signal.kind === "awareness"
    ? signal.update.byteLength + signal.user.length + 64
    : JSON.stringify(signal.message).length * 3 + 64;
}

function split(bytes: Uint8Array): Uint8Array[] {
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

function concat(parts: Uint8Array[]): Uint8Array {
  if (parts.length === 1) return parts[0];
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let offset = 0;
  for (const p of parts) {
    out.set(p, offset);
    offset += p.length;
  }
  return out;
}
