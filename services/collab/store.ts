import { AppendBatch } from "./store/append_batch.ts";
import type { Epoch, FollowedHeads, HeadEntry, Signal } from "./store/common.ts";
import { Compaction } from "./store/compaction.ts";
import { DocumentRecords } from "./store/documents.ts";
import { InstanceRegistry } from "./store/instances.ts";
import { RestoreEpochs } from "./store/restore_epoch.ts";
import { SignalLog } from "./store/signals.ts";

export * from "./store/common.ts";
export { SIGNAL_TTL_MS } from "./store/signals.ts";
export { INSTANCE_TTL_MS } from "./store/instances.ts";

/**
 * The only code that touches collab's KV, one module per topic (each in store/): a document's
 * records (documents.ts), its compaction (compaction.ts) and the signal log (signals.ts). A
 * document is a snapshot plus the updates stored after it:
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
 * - `["collab_instances", instanceId]`: the instances serving from this KV, each registration
 *   expiring unless renewed (instances.ts): an instance alone has no other writer to follow.
 * - `["collab_restore_epoch"]`: moved by each restore (restore_epoch.ts); what a room stores is
 *   checked against the epoch it was loaded in, so nothing from before a restore lands on the
 *   restored records.
 */
export class DocStore {
  readonly #docs: DocumentRecords;
  readonly #compaction: Compaction;
  readonly #signals: SignalLog;
  readonly #instances: InstanceRegistry;
  readonly #epochs: RestoreEpochs;

  constructor(kv: Deno.Kv) {
    // Appends of updates and of signals, of every document, share commits.
    const batch = new AppendBatch(kv);
    this.#epochs = new RestoreEpochs(kv);
    this.#docs = new DocumentRecords(kv, batch, this.#epochs);
    this.#compaction = new Compaction(kv, this.#docs, this.#epochs);
    this.#signals = new SignalLog(kv, batch);
    this.#instances = new InstanceRegistry(kv);
  }

  // ---------------------------------------------------------------- documents

  getHead(postId: string) {
    return this.#docs.getHead(postId);
  }

  /** The head entry as stored now (null: no document). */
  getHeadEntry(postId: string) {
    return this.#docs.getHeadEntry(postId);
  }

  /** The head entries of the posts that have a document, ten posts to a read. */
  headEntries(postIds: string[]) {
    return this.#docs.headEntries(postIds);
  }

  /** Whether each post has a document; ids without one are absent. */
  existing(postIds: string[]) {
    return this.#docs.existing(postIds);
  }

  /** The post's workspace as told by posts, else as its document recorded it; null: unknown. */
  docWorkspace(postId: string) {
    return this.#docs.docWorkspace(postId);
  }

  /** Records the workspace of each post (idempotent; 500 posts to a commit). */
  setDocWorkspaces(docs: { post_id: string; workspace_id: string }[]) {
    return this.#docs.setDocWorkspaces(docs);
  }

  /** The stored updates `fromSeq..toSeq`, in order; null when a compaction folded one away. */
  readUpdates(postId: string, fromSeq: number, toSeq: number) {
    return this.#docs.readUpdates(postId, fromSeq, toSeq);
  }

  /** The document's snapshot and updates, read consistently; null: no document. */
  load(postId: string) {
    return this.#docs.load(postId);
  }

  /**
   * Stores one update as the next sequence number and answers the new head; with `epoch`, a
   * RestoredError (nothing stored) once a restore moved it.
   */
  append(
    postId: string,
    update: Uint8Array,
    options?: { workspaceId?: string; expected?: HeadEntry | null; epoch?: Epoch },
  ) {
    return this.#docs.append(postId, update, options);
  }

  /** Removes the document: the head first (so it is gone at once), then every record. */
  delete(postId: string) {
    return this.#docs.delete(postId);
  }

  /** How the document is stored, for operators and tests. */
  stats(postId: string) {
    return this.#docs.stats(postId);
  }

  // ---------------------------------------------------------------- compaction

  /**
   * Replaces the snapshot and the updates up to `throughSeq` with `snapshot`, checking the
   * restore epoch the snapshot is from (absent: the epoch now); a RestoredError once a restore
   * moved it.
   */
  async compact(
    postId: string,
    snapshot: Uint8Array,
    throughSeq: number,
    baseSnapshotId: string | null,
    epoch?: Epoch,
  ) {
    const from = epoch === undefined ? await this.#epochs.current() : epoch;
    return await this.#compaction.compact(postId, snapshot, throughSeq, baseSnapshotId, from);
  }

  /** Compacts from what is stored (when the caller has no complete state in memory). */
  compactFromStorage(postId: string) {
    return this.#compaction.compactFromStorage(postId);
  }

  // ---------------------------------------------------------------- following other instances

  /** The doc heads and signal sequences of several posts, five posts to a read. */
  followedHeads(postIds: string[]): Promise<Map<string, FollowedHeads>> {
    return this.#signals.followedHeads(postIds);
  }

  /** Every change of the post's head or signal log, as `kv.watch` delivers it. */
  watch(postId: string): ReadableStream<FollowedHeads> {
    return this.#signals.watch(postId);
  }

  /**
   * Appends signals to the post's log; answers the sequence numbers taken. With `epoch` (the
   * room's), a RestoredError once a restore moved it.
   */
  appendSignals(postId: string, signals: Signal[], epoch?: Epoch) {
    return this.#signals.appendSignals(postId, signals, epoch);
  }

  /** The signals stored as `fromSeq..toSeq` that have not expired, in order. */
  readSignals(postId: string, fromSeq: number, toSeq: number) {
    return this.#signals.readSignals(postId, fromSeq, toSeq);
  }

  /** Registers (or renews) a serving instance; it expires after INSTANCE_TTL_MS. */
  registerInstance(instanceId: string) {
    return this.#instances.register(instanceId);
  }

  unregisterInstance(instanceId: string) {
    return this.#instances.unregister(instanceId);
  }

  /** Whether another instance serves from this KV. */
  othersAlive(instanceId: string) {
    return this.#instances.othersAlive(instanceId);
  }

  // ---------------------------------------------------------------- restores

  /** The restore epoch now (the epoch record's versionstamp; null: never restored). */
  restoreEpoch(): Promise<Epoch> {
    return this.#epochs.current();
  }

  /** Moves the restore epoch: a restore's import, before and after it writes the records. */
  moveRestoreEpoch(): Promise<void> {
    return this.#epochs.move();
  }
}
