import * as Y from "yjs";
import { errorMessage, type Logger } from "../../shared/log.ts";
import { type Connection, type ConnectionState, REMOTE, sendAll } from "./connection.ts";
import type { DocumentSize } from "./document_size.ts";
import { encodeUpdate } from "./protocol.ts";
import { type HeadEntry, type LoadedDoc, RestoredError } from "./store.ts";

/** Where a room keeps its document: the store, seen through one post's id. */
export interface RoomStorage {
  append(update: Uint8Array, expected: HeadEntry | null): Promise<HeadEntry>;
  compact(
    snapshot: Uint8Array,
    throughSeq: number,
    baseSnapshotId: string | null,
  ): Promise<HeadEntry | null>;
  /** the stored updates `fromSeq..toSeq`; null when a compaction folded one of them away */
  readUpdates(fromSeq: number, toSeq: number): Promise<Uint8Array[] | null>;
  load(): Promise<LoadedDoc | null>;
}

export interface PipelineOptions {
  postId: string;
  doc: Y.Doc;
  storage: RoomStorage;
  logger: Logger;
  /** compact once more than this many updates are stored after the snapshot */
  compactAfter: number;
  /** the room's connections (shared, not copied): each stored update goes to all of them */
  conns: Map<Connection, ConnectionState>;
  /** the room's size bound, measured again at each compaction */
  size: DocumentSize;
  /** applies an update to the room's document with `origin` */
  apply(update: Uint8Array, origin: unknown): void;
  /**
   * called once when storing fails for good (`err`; a RestoredError: a restore replaced the
   * document), so the room must close its connections and go
   */
  onBroken(err: unknown): void;
}

/**
 * A room's write-behind persistence: every change is stored before it is forwarded. Changes
 * are collected while a commit is in flight and stored together as one merged update (group
 * commit), then sent to every connection at once; what other instances stored is caught up
 * with in order, between commits; the stored updates are compacted into a snapshot when due.
 */
export class WritePipeline {
  readonly #o: PipelineOptions;
  #pending: Uint8Array[] = [];
  #flushing: Promise<void> | null = null;
  /**
   * The head as this room last committed or followed it: every update up to its `seq` is in
   * the in-memory document (null: nothing stored yet).
   */
  #headEntry: HeadEntry | null;
  /** a newer head another instance stored, which the pipeline catches up with */
  #followTo: HeadEntry | null = null;
  /** while a stored update of another instance is applied: whether the doc had pending structs */
  #remoteHadPending = false;
  #broken: unknown = null;
  #stopped = false;

  constructor(loaded: LoadedDoc | null, options: PipelineOptions) {
    this.#o = options;
    this.#headEntry = loaded ? { head: loaded.head, versionstamp: loaded.versionstamp } : null;
  }

  /** Compacts at once when the loaded document is due. */
  start(): void {
    if (this.#compactionDue()) this.#flushing = this.#run();
  }

  /** The sequence number of the last stored update the in-memory document holds. */
  get seq(): number {
    return this.#headEntry?.head.seq ?? 0;
  }

  /** Why storing failed for good, or null. */
  get broken(): unknown {
    return this.#broken;
  }

  /** The room is gone: nothing more is applied or followed. */
  stop(): void {
    this.#stopped = true;
  }

  /**
   * Every change of the document: one made here (a connection's update, a text replacement)
   * is queued for storing; one another instance stored is forwarded at once. (If applying it
   * also integrated structs that were waiting for it, which may be this instance's and never
   * stored, it is stored too: storing a known update again changes nothing.)
   */
  changed(update: Uint8Array, origin: unknown): void {
    if (origin === REMOTE && !this.#remoteHadPending) {
      sendAll(this.#o.conns, encodeUpdate(update));
      return;
    }
    if (this.#broken) return;
    this.#pending.push(update);
    if (!this.#flushing) this.#flushing = this.#run();
  }

  /**
   * Another instance's view of the stored head: when it is past what this room holds, the
   * pipeline reads the updates in between and forwards them, in order (before its own next
   * commit). Answers whether there is anything to catch up with.
   */
  follow(entry: HeadEntry): boolean {
    if (entry.head.seq <= Math.max(this.seq, this.#followTo?.head.seq ?? 0)) return false;
    if (this.#broken || this.#stopped) return false;
    this.#followTo = entry;
    if (!this.#flushing) this.#flushing = this.#run();
    return true;
  }

  /** Resolves once every change made so far is stored and forwarded; rejects if storing failed. */
  async flush(): Promise<void> {
    while (this.#flushing) await this.#flushing;
    if (this.#broken) throw this.#broken;
  }

  #compactionDue(): boolean {
    const head = this.#headEntry?.head;
    return !!head && head.seq - head.snapshot_seq > this.#o.compactAfter;
  }

  /**
   * The write pipeline: catch up with what other instances stored, store what is pending,
   * forward it, compact when due; repeat.
   */
  async #run(): Promise<void> {
    try {
      if (this.#compactionDue()) await this.#compact();
      while (this.#pending.length > 0 || (this.#followTo && this.#followTo.head.seq > this.seq)) {
        if (this.#followTo && this.#followTo.head.seq > this.seq) {
          const target = this.#followTo;
          this.#followTo = null;
          await this.#catchUp(target.head.seq);
          if (target.head.seq >= this.seq) this.#headEntry = target;
          continue;
        }
        this.#followTo = null;
        const batch = this.#pending;
        this.#pending = [];
        const update = batch.length === 1 ? batch[0] : Y.mergeUpdates(batch);
        const entry = await this.#storeWithRetry(update);
        // Another instance stored updates before this one: theirs go out first, in order.
        if (entry.head.seq > this.seq + 1) await this.#catchUp(entry.head.seq - 1);
        if (entry.head.seq >= this.seq) this.#headEntry = entry;
        sendAll(this.#o.conns, encodeUpdate(update));
        if (this.#compactionDue()) await this.#compact();
      }
    } catch (err) {
      this.#broken = err;
      this.#pending = [];
      if (err instanceof RestoredError) {
        this.#o.logger.info("a restore replaced the document; closing its connections", {
          post_id: this.#o.postId,
        });
      } else {
        this.#o.logger.error("storing a document update failed; closing its connections", {
          post_id: this.#o.postId,
          error: errorMessage(err),
        });
      }
      this.#o.onBroken(err);
    } finally {
      this.#flushing = null;
    }
  }

  /**
   * Applies the updates other instances stored after `seq` up to `toSeq`, in order; when a
   * compaction folded some of them into a snapshot, the whole stored document (applying what
   * is already here changes nothing, so only the rest is forwarded).
   */
  async #catchUp(toSeq: number): Promise<void> {
    const { storage } = this.#o;
    const updates = await storage.readUpdates(this.seq + 1, toSeq);
    if (updates) {
      for (const u of updates) this.#applyRemote(u);
      return;
    }
    const loaded = await storage.load();
    if (!loaded) return;
    for (const u of loaded.updates) this.#applyRemote(u);
    if (loaded.head.seq >= this.seq) {
      this.#headEntry = { head: loaded.head, versionstamp: loaded.versionstamp };
    }
  }

  #applyRemote(update: Uint8Array): void {
    if (this.#stopped) return;
    const store = this.#o.doc.store;
    this.#remoteHadPending = store.pendingStructs !== null || store.pendingDs !== null;
    try {
      this.#o.apply(update, REMOTE);
    } finally {
      this.#remoteHadPending = false;
    }
  }

  async #storeWithRetry(update: Uint8Array): Promise<HeadEntry> {
    let lastError: unknown;
    for (let attempt = 0; attempt < 3; attempt++) {
      try {
        return await this.#o.storage.append(update, attempt === 0 ? this.#headEntry : null);
      } catch (err) {
        // A restore replaced the document: nothing of this room may be stored, ever.
        if (err instanceof RestoredError) throw err;
        lastError = err;
        await new Promise((r) => setTimeout(r, 50 * (attempt + 1)));
      }
    }
    throw lastError;
  }

  /**
   * Compacts between two commits of this room's pipeline, so no update of this process can
   * arrive in between; the store's checks guard against any other writer. The snapshot is the
   * in-memory state, which holds every stored update up to the head this room last saw (and
   * maybe some still pending, which are stored again after it: applying an update twice
   * changes nothing). When another instance compacted first, the flip fails and this room
   * learns the new head from its next commit. A restore since the room was loaded fails it
   * for good (RestoredError): the in-memory state is the text from before.
   */
  async #compact(): Promise<void> {
    const base = this.#headEntry!.head;
    try {
      const snapshot = Y.encodeStateAsUpdate(this.#o.doc);
      this.#o.size.bytes = snapshot.byteLength;
      const flipped = await this.#o.storage.compact(snapshot, base.seq, base.snapshot_id);
      if (flipped?.head.seq === this.seq) this.#headEntry = flipped;
      else if (flipped) {
        // Another instance stored more meanwhile: catch up with it (the next commit's check
        // fails on the older versionstamp kept here and reads the head).
        const { snapshot_seq, snapshot_id } = flipped.head;
        this.#headEntry = { ...this.#headEntry!, head: { ...base, snapshot_seq, snapshot_id } };
        this.#followTo = flipped;
      }
    } catch (err) {
      if (err instanceof RestoredError) throw err;
      this.#o.logger.warn("compaction failed; will retry after the next update", {
        post_id: this.#o.postId,
        error: errorMessage(err),
      });
    }
  }
}
