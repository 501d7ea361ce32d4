import { nowIso } from "../../../shared/time.ts";
import { chunkKey, docWorkspaceKey, headKey, signalHeadKey, updateKey } from "../keys.ts";
import type { AppendBatch } from "./append_batch.ts";
import {
  type ChunkedUpdate,
  COMMIT_BYTES,
  concat,
  CorruptDocError,
  DELETE_BATCH,
  deleteAll,
  type DocHead,
  type Epoch,
  type HeadEntry,
  type LoadedDoc,
  PART_BYTES,
  RestoredError,
  split,
} from "./common.ts";
import { epochCheck, type RestoreEpochs } from "./restore_epoch.ts";

/** Bytes a head record takes in a commit, roughly (its JSON is about 300). */
const HEAD_BYTES = 1_000;

/** A document's records: its head, its stored updates, its workspace; loading and appending. */
export class DocumentRecords {
  constructor(
    private readonly kv: Deno.Kv,
    /** the commits appends share (with other documents', and signals') */
    private readonly batch: AppendBatch,
    /** the restore epoch a chunked append's commits check */
    private readonly epochs: RestoreEpochs,
  ) {}

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
   * final commit are written first, each commit checking the head did not move. A one-part
   * update goes in a commit shared with other documents' appends (AppendBatch). With `epoch`,
   * every commit checks the restore epoch too: a RestoredError once a restore moved it.
   */
  async append(
    postId: string,
    update: Uint8Array,
    options: { workspaceId?: string; expected?: HeadEntry | null; epoch?: Epoch } = {},
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
      const stored = parts.length === 1
        ? await this.batch.submit(
          `doc:${postId}`,
          update.byteLength + HEAD_BYTES,
          entry,
          (op) => op.set(updateKey(postId, seq), parts[0]).set(headKey(postId), head),
          options.epoch,
        )
        : await this.#appendChunked(postId, seq, update, parts, entry, head, options.epoch);
      if (stored !== null) return { head, versionstamp: stored };
      await new Promise((r) => setTimeout(r, Math.random() * 2 * (attempt + 1)));
    }
    throw new Error(`Storing an update of document ${postId} kept conflicting`);
  }

  /**
   * Stores an update in chunks: those that do not fit the final commit first, each commit
   * checking the head did not move (and the restore epoch, given one); answers the final
   * commit's versionstamp, or null when the head moved.
   */
  async #appendChunked(
    postId: string,
    seq: number,
    update: Uint8Array,
    parts: Uint8Array[],
    entry: Deno.KvEntryMaybe<DocHead>,
    head: DocHead,
    epoch: Epoch | undefined,
  ): Promise<string | null> {
    const perCommit = Math.floor(COMMIT_BYTES / PART_BYTES);
    const checked = () => {
      const op = this.kv.atomic().check(entry);
      return epoch === undefined ? op : op.check(epochCheck(epoch));
    };
    const failed = async () => {
      if (epoch !== undefined && await this.epochs.movedSince(epoch)) throw new RestoredError();
      return null;
    };
    let i = 0;
    // All chunks but the last group go first; nothing references them until the head moves.
    for (; parts.length - i > perCommit; i += perCommit) {
      const pre = checked();
      for (let j = i; j < i + perCommit; j++) pre.set(chunkKey(postId, seq, j), parts[j]);
      if (!(await pre.commit()).ok) return await failed();
    }
    const op = checked();
    for (let j = i; j < parts.length; j++) op.set(chunkKey(postId, seq, j), parts[j]);
    op.set(updateKey(postId, seq), { chunks: parts.length, bytes: update.length });
    op.set(headKey(postId), head);
    const res = await op.commit();
    return res.ok ? res.versionstamp : await failed();
  }

  /** Removes the document: the head first (so it is gone at once), then every record. */
  async delete(postId: string): Promise<boolean> {
    const head = await this.kv.get<DocHead>(headKey(postId));
    await this.kv.delete(headKey(postId));
    for (
      const collection of ["doc_updates", "doc_update_chunks", "doc_snapshots", "doc_signals"]
    ) {
      await deleteAll(this.kv, this.kv.list({ prefix: [collection, postId] }));
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
}
