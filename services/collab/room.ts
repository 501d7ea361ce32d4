import * as Y from "yjs";
import { errorMessage, type Logger } from "../../shared/log.ts";
import { countMetric } from "../../shared/service/metrics.ts";
import {
  type AwarenessEntry,
  type CollabLimits,
  decodeAwarenessEntries,
  DEFAULT_LIMITS,
  encodeAwarenessEntries,
  isRemoval,
  RateBucket,
} from "./limits.ts";
import {
  awarenessProtocol,
  CloseCode,
  decoding,
  encodeAppEvent,
  encodeAwareness,
  encodeSyncStep1,
  encodeUpdate,
  encoding,
  MESSAGE_AWARENESS,
  MESSAGE_QUERY_AWARENESS,
  MESSAGE_SYNC,
  syncProtocol,
} from "./protocol.ts";
import type { HeadEntry, LoadedDoc } from "./store.ts";
import { type LengthBounds, textLengthBounds } from "./text_bounds.ts";

/** The name of the Y.Text that holds a post's text. */
export const CONTENT_FIELD = "content";

/**
 * One open socket as the core sees it: the transport (Deno's WebSocket, or a fake in tests)
 * stays outside, behind send and close.
 */
export interface Connection {
  readonly id: string;
  readonly userId: string;
  readonly workspaceId: string;
  send(data: Uint8Array | string): void;
  close(code: CloseCode, reason: string): void;
}

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

/** The origin of changes another instance stored (or sent): applied, forwarded, never stored. */
export const REMOTE = Symbol("remote");
/** The origin of the awareness removal made when a connection leaves. */
const LEAVE = Symbol("leave");

export interface RoomOptions {
  postId: string;
  storage: RoomStorage;
  logger: Logger;
  /** compact once more than this many updates are stored after the snapshot */
  compactAfter: number;
  /** called once when storing fails for good: the room must be dropped */
  onBroken?: (room: DocumentRoom) => void;
  /** frame, document and awareness limits (docs/collab.md); DEFAULT_LIMITS when absent */
  limits?: CollabLimits;
  /**
   * Told each awareness change of this room's own connections (the entries applied, encoded
   * as y-protocols does, and the user they belong to), for the other instances.
   */
  publishAwareness?: (update: Uint8Array, userId: string) => void;
}

interface ConnectionState {
  /**
   * The awareness client id this connection owns: the first one it announced with a state
   * that no other connection owned. Its entries for any other id are dropped.
   */
  own: number | null;
  lastSeen: number;
  /** whether it has sent a Yjs protocol message (a y-websocket provider does on open) */
  speaksYjs: boolean;
  /** every frame it sends */
  frames: RateBucket;
  /** awareness updates of its own state */
  awareness: RateBucket;
}

/** How long the id of a client that left stays reserved for its user (against stale echoes). */
const DEPARTED_RESERVE_MS = 60_000;

/**
 * One post's live document: the in-memory Y.Doc (snapshot + stored updates), the awareness
 * of its editors, and its connections. Every change is stored before it is forwarded: changes
 * are collected while a commit is in flight and stored together as one merged update (group
 * commit), then sent to every connection at once. Transport-free: it only sees Connections.
 */
export class DocumentRoom {
  readonly postId: string;
  readonly doc: Y.Doc;
  readonly awareness: awarenessProtocol.Awareness;
  readonly #conns = new Map<Connection, ConnectionState>();
  /** awareness client id -> the connection that owns it */
  readonly #owners = new Map<number, Connection>();
  /** awareness client ids whose connection left: claimable again by the same user only */
  readonly #departed = new Map<number, { userId: string; at: number }>();
  readonly #options: RoomOptions;
  readonly #limits: CollabLimits;
  /**
   * An upper bound of the encoded document's size: measured at load and compaction, plus every
   * update applied since. Only when an update would take it past the limit is the real size
   * computed.
   */
  #docBytes = 0;
  /**
   * The sync step 2 answering an empty state vector (a client with a fresh document), kept
   * until the document changes: a room whose text stays as it is (as at the text limit, every
   * writer refused) sends the same whole document to each joining client without encoding it
   * again.
   */
  #wholeState: Uint8Array | null = null;
  #pending: Uint8Array[] = [];
  #flushing: Promise<void> | null = null;
  /**
   * The head as this room last committed or followed it: every update up to its `seq` is in
   * the in-memory document (null: nothing stored yet).
   */
  #headEntry: HeadEntry | null;
  /** a newer head another instance stored, which the pipeline catches up with */
  #followTo: HeadEntry | null = null;
  /** awareness client ids whose state came from another instance -> their user */
  readonly #remote = new Map<number, string>();
  /** while a stored update of another instance is applied: whether the doc had pending structs */
  #remoteHadPending = false;
  #broken: unknown = null;
  #destroyed = false;

  constructor(loaded: LoadedDoc | null, options: RoomOptions) {
    this.postId = options.postId;
    this.#options = options;
    this.#limits = options.limits ?? DEFAULT_LIMITS;
    this.doc = new Y.Doc();
    for (const update of loaded?.updates ?? []) {
      Y.applyUpdate(this.doc, update, "load");
      this.#docBytes += update.byteLength;
    }
    this.#headEntry = loaded ? { head: loaded.head, versionstamp: loaded.versionstamp } : null;
    this.doc.on("update", this.#onUpdate);
    this.awareness = new awarenessProtocol.Awareness(this.doc);
    this.awareness.setLocalState(null);
    this.awareness.on("update", this.#onAwareness);
    if (this.#compactionDue()) this.#flushing = this.#run();
  }

  /** The sequence number of the last stored update the in-memory document holds. */
  get seq(): number {
    return this.#headEntry?.head.seq ?? 0;
  }

  get size(): number {
    return this.#conns.size;
  }

  get broken(): boolean {
    return this.#broken !== null;
  }

  connections(): Connection[] {
    return [...this.#conns.keys()];
  }

  text(): string {
    return this.doc.getText(CONTENT_FIELD).toString();
  }

  /** Adds a connection and starts the sync: our sync step 1, and the editors' awareness. */
  join(conn: Connection): void {
    const now = Date.now();
    const { framesPerSecond, awarenessPerSecond } = this.#limits;
    this.#conns.set(conn, {
      own: null,
      lastSeen: now,
      speaksYjs: false,
      frames: new RateBucket(framesPerSecond, framesPerSecond * 2, now),
      awareness: new RateBucket(awarenessPerSecond, awarenessPerSecond, now),
    });
    conn.send(encodeSyncStep1(this.doc));
    const states = this.awareness.getStates();
    if (states.size > 0) conn.send(encodeAwareness(this.awareness, [...states.keys()]));
  }

  /** Removes a connection; its cursors disappear for everyone else. */
  leave(conn: Connection): void {
    const state = this.#conns.get(conn);
    if (!state) return;
    this.#conns.delete(conn);
    const own = state.own;
    if (own === null || this.#owners.get(own) !== conn) return;
    this.#owners.delete(own);
    const now = Date.now();
    for (const [id, d] of this.#departed) {
      if (now - d.at > DEPARTED_RESERVE_MS) this.#departed.delete(id);
    }
    this.#departed.set(own, { userId: conn.userId, at: now });
    if (this.awareness.getStates().has(own)) {
      awarenessProtocol.removeAwarenessStates(this.awareness, [own], LEAVE);
      this.#options.publishAwareness?.(
        awarenessProtocol.encodeAwarenessUpdate(this.awareness, [own]),
        conn.userId,
      );
    }
  }

  /** Counts as a sign of life. */
  touch(conn: Connection): void {
    const state = this.#conns.get(conn);
    if (state) state.lastSeen = Date.now();
  }

  /**
   * A text frame: ignored but for the limits, and a sign of life. `bytes` is its size (at
   * least its length in UTF-16 units).
   */
  receiveText(conn: Connection, bytes: number): void {
    const state = this.#conns.get(conn);
    if (!state) return;
    state.lastSeen = Date.now();
    this.#admitFrame(conn, state, bytes);
  }

  /** Checks a frame against the frame size and rate limits; closes the socket when over. */
  #admitFrame(conn: Connection, state: ConnectionState, bytes: number): boolean {
    if (bytes > this.#limits.maxFrameBytes) {
      countMetric("collab_refused_frames", 1, { reason: "frame_size" });
      this.#refuse(conn, CloseCode.TooLarge, `Frame over ${this.#limits.maxFrameBytes} bytes`);
      return false;
    }
    if (!state.frames.take(state.lastSeen)) {
      countMetric("collab_refused_frames", 1, { reason: "rate" });
      this.#refuse(conn, CloseCode.RateLimited, "Too many messages");
      return false;
    }
    return true;
  }

  /** Closes `conn` and forgets it at once, so nothing more it sent is applied. */
  #refuse(conn: Connection, code: CloseCode, reason: string): void {
    try {
      conn.close(code, reason);
    } catch { /* already closed */ }
    this.leave(conn);
  }

  /** Connections silent for longer than `timeoutMs`. */
  idleConnections(now: number, timeoutMs: number): Connection[] {
    const out: Connection[] = [];
    for (const [conn, state] of this.#conns) {
      if (now - state.lastSeen > timeoutMs) out.push(conn);
    }
    return out;
  }

  /** Handles one binary frame of the Yjs protocol from `conn`. */
  receive(conn: Connection, data: Uint8Array): void {
    const state = this.#conns.get(conn);
    if (!state) return;
    state.lastSeen = Date.now();
    if (!this.#admitFrame(conn, state, data.byteLength)) return;
    try {
      const decoder = decoding.createDecoder(data);
      const type = decoding.readVarUint(decoder);
      state.speaksYjs = true;
      switch (type) {
        case MESSAGE_SYNC: {
          const step = decoding.readVarUint(decoder);
          if (step === syncProtocol.messageYjsSyncStep1) {
            conn.send(this.#syncStep2(decoding.readVarUint8Array(decoder)));
          } else if (
            step === syncProtocol.messageYjsSyncStep2 || step === syncProtocol.messageYjsUpdate
          ) {
            // Applied here rather than through y-protocols, which swallows a malformed update;
            // with the connection as origin, the doc's update event queues it for storing.
            const update = decoding.readVarUint8Array(decoder);
            const refusal = this.#checkSize(update);
            if (refusal) {
              countMetric("collab_refused_frames", 1, { reason: "document_size" });
              this.#options.logger.warn("refused an update over the document limits", {
                post_id: this.postId,
                connection: conn.id,
                bytes: update.byteLength,
                reason: refusal,
              });
              // Not applied, so the text every other editor has stays as it was; the sender's
              // copy now differs, so its socket cannot go on.
              this.#refuse(conn, CloseCode.TooLarge, refusal);
              return;
            }
            this.#apply(update, conn);
          } else {
            throw new Error(`Unknown sync message type ${step}`);
          }
          break;
        }
        case MESSAGE_AWARENESS:
          this.#receiveAwareness(conn, state, decoding.readVarUint8Array(decoder));
          break;
        case MESSAGE_QUERY_AWARENESS:
          conn.send(encodeAwareness(this.awareness, [...this.awareness.getStates().keys()]));
          break;
        default:
          // Other message types (auth) are not used by this server; ignored like the stock one.
          break;
      }
    } catch (err) {
      this.#options.logger.warn("closing a connection that sent a malformed frame", {
        post_id: this.postId,
        connection: conn.id,
        error: errorMessage(err),
      });
      conn.close(CloseCode.BadMessage, "Malformed Yjs message");
    }
  }

  /**
   * Sends an application event (a comment broadcast) to every connection. A plain socket gets
   * it as a JSON text frame. A socket that speaks the Yjs protocol gets the same JSON in a
   * binary frame of message type `MESSAGE_APP_EVENT`: a stock y-websocket provider throws on
   * any text frame (it reads every frame as binary) but skips an unknown message type, and an
   * app receives the event with `provider.messageHandlers[MESSAGE_APP_EVENT]`
   * (docs/collab.md).
   */
  broadcastJson(message: unknown): number {
    const text = JSON.stringify(message);
    let binary: Uint8Array | null = null;
    for (const [conn, state] of this.#conns) {
      if (!state.speaksYjs) {
        safeSend(conn, text);
        continue;
      }
      binary ??= encodeAppEvent(text);
      safeSend(conn, binary);
    }
    return this.#conns.size;
  }

  /**
   * Replaces the post's text with `content` as one Yjs update (only the changed middle is
   * replaced, so editors' cursors outside it stay put), stored and then forwarded.
   */
  async replaceText(content: string): Promise<void> {
    const text = this.doc.getText(CONTENT_FIELD);
    const current = text.toString();
    if (current !== content) {
      let start = 0;
      const max = Math.min(current.length, content.length);
      while (start < max && current.charCodeAt(start) === content.charCodeAt(start)) start++;
      if (start > 0 && isHighSurrogate(current.charCodeAt(start - 1))) start--;
      let end = 0;
      while (
        end < max - start &&
        current.charCodeAt(current.length - 1 - end) ===
          content.charCodeAt(content.length - 1 - end)
      ) end++;
      if (end > 0 && isLowSurrogate(current.charCodeAt(current.length - end))) end--;
      this.doc.transact(() => {
        const removed = current.length - start - end;
        if (removed > 0) text.delete(start, removed);
        const inserted = content.slice(start, content.length - end);
        if (inserted) text.insert(start, inserted);
      }, "server");
    }
    await this.flush();
  }

  /** Resolves once every change made so far is stored and forwarded; rejects if storing failed. */
  async flush(): Promise<void> {
    while (this.#flushing) await this.#flushing;
    if (this.#broken) throw this.#broken;
  }

  /** Closes every connection with `code`. */
  closeAll(code: CloseCode, reason: string): void {
    for (const conn of [...this.#conns.keys()]) {
      try {
        conn.close(code, reason);
      } catch { /* already closed */ }
      this.leave(conn);
    }
  }

  destroy(): void {
    if (this.#destroyed) return;
    this.#destroyed = true;
    this.awareness.off("update", this.#onAwareness);
    this.awareness.destroy();
    this.#wholeState = null;
    this.doc.destroy();
  }

  /**
   * Applies `update` to the document. One that only adds to (or releases) what waits for a
   * missing update fires no update event but changes what a sync step 2 carries.
   */
  #apply(update: Uint8Array, origin: unknown): void {
    const store = this.doc.store;
    const structs = store.pendingStructs;
    const before = [structs, structs?.update, store.pendingDs];
    try {
      Y.applyUpdate(this.doc, update, origin);
    } finally {
      const after = store.pendingStructs;
      if (
        after !== before[0] || after?.update !== before[1] || store.pendingDs !== before[2]
      ) this.#wholeState = null;
    }
  }

  /**
   * Our sync step 2 for a client's sync step 1 carrying `stateVector`: the document's updates
   * that client lacks (the whole document for an empty state vector, encoded once per change).
   */
  #syncStep2(stateVector: Uint8Array): Uint8Array {
    const empty = stateVector.byteLength === 1 && stateVector[0] === 0;
    if (empty && this.#wholeState) return this.#wholeState;
    const encoder = encoding.createEncoder();
    encoding.writeVarUint(encoder, MESSAGE_SYNC);
    syncProtocol.writeSyncStep2(encoder, this.doc, stateVector);
    const message = encoding.toUint8Array(encoder);
    if (empty) this.#wholeState = message;
    return message;
  }

  /**
   * Why `update` may not be applied (it would take the text past `maxTextChars` characters or
   * the encoded document past `maxDocBytes` bytes), or null when it may. An update cannot add
   * more characters than it has bytes, so far from the limits nothing more is checked. Near
   * the text limit the update is read against the document (`textLengthBounds`, costing the
   * update's size, not the document's): most updates are then settled, and a writer refused
   * at the limit costs no more than its update. Only what that leaves open (an update both
   * adding and removing text across the limit, one near the byte limit, or while the document
   * holds updates still missing a dependency) is applied to a copy of the document. An update
   * that shrinks a document already over a limit is let through.
   */
  #checkSize(update: Uint8Array): string | null {
    const { maxTextChars, maxDocBytes } = this.#limits;
    const length = this.doc.getText(CONTENT_FIELD).length;
    const bytesFit = this.#docBytes + update.byteLength <= maxDocBytes;
    const waiting = this.doc.store.pendingStructs !== null || this.doc.store.pendingDs !== null;
    if (length + update.byteLength <= maxTextChars && bytesFit && !waiting) return null;
    const bounds = waiting ? null : this.#textBounds(update);
    if (bounds && bounds.min > maxTextChars && bounds.min > length) {
      return `Document over ${maxTextChars} characters`;
    }
    if (bounds && (bounds.max <= maxTextChars || bounds.max <= length) && bytesFit) return null;
    const state = Y.encodeStateAsUpdate(this.doc);
    const trial = new Y.Doc({ gc: this.doc.gc });
    try {
      Y.applyUpdate(trial, state);
      Y.applyUpdate(trial, update);
      const after = trial.getText(CONTENT_FIELD).length;
      if (after > maxTextChars && after > length) {
        return `Document over ${maxTextChars} characters`;
      }
      const bytes = Y.encodeStateAsUpdate(trial).byteLength;
      if (bytes > maxDocBytes && bytes > state.byteLength) {
        return `Document over ${maxDocBytes} bytes`;
      }
      // Measured: the update itself is added when it is applied.
      this.#docBytes = state.byteLength;
      return null;
    } finally {
      trial.destroy();
    }
  }

  /** textLengthBounds of the `content` text; null (the exact check) when it cannot read it. */
  #textBounds(update: Uint8Array): LengthBounds | null {
    try {
      return textLengthBounds(this.doc, CONTENT_FIELD, update);
    } catch {
      return null;
    }
  }

  /**
   * An awareness update from `conn`: only entries for the client id it owns are kept (a stock
   * provider also echoes every other client's changes back, and nobody may set or remove
   * someone else's cursor), a state over `maxAwarenessBytes` is dropped, and so is an update
   * beyond the socket's awareness rate.
   */
  #receiveAwareness(conn: Connection, state: ConnectionState, update: Uint8Array): void {
    const kept: AwarenessEntry[] = [];
    for (const entry of decodeAwarenessEntries(update)) {
      if (!this.#ownsClient(conn, state, entry)) continue;
      if (entry.json.byteLength > this.#limits.maxAwarenessBytes) {
        countMetric("collab_awareness_dropped", 1, { reason: "size" });
        continue;
      }
      kept.push(entry);
    }
    if (kept.length === 0) return;
    if (!state.awareness.take(state.lastSeen)) {
      countMetric("collab_awareness_dropped", 1, { reason: "rate" });
      return;
    }
    const applied = encodeAwarenessEntries(kept);
    awarenessProtocol.applyAwarenessUpdate(this.awareness, applied, conn);
    this.#options.publishAwareness?.(applied, conn.userId);
  }

  /**
   * An awareness update another instance's connection made (`userId`'s): applied and forwarded
   * to this room's connections, except entries for client ids a connection here owns.
   */
  applyRemoteAwareness(update: Uint8Array, userId: string): void {
    const kept = decodeAwarenessEntries(update).filter((e) => !this.#owners.has(e.clientID));
    if (kept.length === 0) return;
    for (const e of kept) {
      if (isRemoval(e)) this.#remote.delete(e.clientID);
      else this.#remote.set(e.clientID, userId);
    }
    awarenessProtocol.applyAwarenessUpdate(this.awareness, encodeAwarenessEntries(kept), REMOTE);
  }

  /**
   * Whether `conn` may write `entry`. A connection owns one client id: the first it announces
   * with a state (not a removal) that is not the server's own, not owned by another open
   * connection, and not one whose connection left lately under another user.
   */
  #ownsClient(conn: Connection, state: ConnectionState, entry: AwarenessEntry): boolean {
    if (state.own !== null) return entry.clientID === state.own;
    const id = entry.clientID;
    if (isRemoval(entry) || id === this.awareness.clientID || this.#owners.has(id)) return false;
    // Owned by a connection on another instance (the same user may move it here).
    const remoteUser = this.#remote.get(id);
    if (remoteUser !== undefined && remoteUser !== conn.userId) return false;
    this.#remote.delete(id);
    const departed = this.#departed.get(id);
    if (
      departed && departed.userId !== conn.userId &&
      Date.now() - departed.at <= DEPARTED_RESERVE_MS
    ) return false;
    this.#departed.delete(id);
    this.#owners.set(id, conn);
    state.own = id;
    return true;
  }

  /**
   * Every change of the document: one made here (a connection's update, a text replacement)
   * is queued for storing; one another instance stored is forwarded at once. (If applying it
   * also integrated structs that were waiting for it, which may be this instance's and never
   * stored, it is stored too: storing a known update again changes nothing.)
   */
  #onUpdate = (update: Uint8Array, origin: unknown): void => {
    this.#docBytes += update.byteLength;
    this.#wholeState = null;
    if (origin === REMOTE && !this.#remoteHadPending) {
      const message = encodeUpdate(update);
      for (const conn of this.#conns.keys()) safeSend(conn, message);
      return;
    }
    if (this.#broken) return;
    this.#pending.push(update);
    if (!this.#flushing) this.#flushing = this.#run();
  };

  /**
   * Another instance's view of the stored head: when it is past what this room holds, the
   * pipeline reads the updates in between and forwards them, in order (before its own next
   * commit). Answers whether there is anything to catch up with.
   */
  follow(entry: HeadEntry): boolean {
    if (entry.head.seq <= Math.max(this.seq, this.#followTo?.head.seq ?? 0)) return false;
    if (this.#broken || this.#destroyed) return false;
    this.#followTo = entry;
    if (!this.#flushing) this.#flushing = this.#run();
    return true;
  }

  #compactionDue(): boolean {
    const head = this.#headEntry?.head;
    return !!head && head.seq - head.snapshot_seq > this.#options.compactAfter;
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
        const message = encodeUpdate(update);
        for (const conn of this.#conns.keys()) safeSend(conn, message);
        if (this.#compactionDue()) await this.#compact();
      }
    } catch (err) {
      this.#broken = err;
      this.#pending = [];
      this.#options.logger.error("storing a document update failed; closing its connections", {
        post_id: this.postId,
        error: errorMessage(err),
      });
      this.closeAll(CloseCode.InternalError, "Storing the document failed");
      this.#options.onBroken?.(this);
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
    const { storage } = this.#options;
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
    if (this.#destroyed) return;
    const store = this.doc.store;
    this.#remoteHadPending = store.pendingStructs !== null || store.pendingDs !== null;
    try {
      this.#apply(update, REMOTE);
    } finally {
      this.#remoteHadPending = false;
    }
  }

  async #storeWithRetry(update: Uint8Array): Promise<HeadEntry> {
    let lastError: unknown;
    for (let attempt = 0; attempt < 3; attempt++) {
      try {
        return await this.#options.storage.append(update, attempt === 0 ? this.#headEntry : null);
      } catch (err) {
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
   * learns the new head from its next commit.
   */
  async #compact(): Promise<void> {
    const base = this.#headEntry!.head;
    try {
      const snapshot = Y.encodeStateAsUpdate(this.doc);
      this.#docBytes = snapshot.byteLength;
      const flipped = await this.#options.storage.compact(snapshot, base.seq, base.snapshot_id);
      if (flipped?.head.seq === this.seq) this.#headEntry = flipped;
      else if (flipped) {
        // Another instance stored more meanwhile: catch up with it (the next commit's check
        // fails on the older versionstamp kept here and reads the head).
        const { snapshot_seq, snapshot_id } = flipped.head;
        this.#headEntry = { ...this.#headEntry!, head: { ...base, snapshot_seq, snapshot_id } };
        this.#followTo = flipped;
      }
    } catch (err) {
      this.#options.logger.warn("compaction failed; will retry after the next update", {
        post_id: this.postId,
        error: errorMessage(err),
      });
    }
  }

  #onAwareness = (
    { added, updated, removed }: { added: number[]; updated: number[]; removed: number[] },
    origin: unknown,
  ) => {
    // A remote state that timed out here: the other instance removes it for its own reasons.
    if (origin === "timeout") { for (const id of removed) this.#remote.delete(id); }
    const changed = added.concat(updated, removed);
    if (changed.length === 0) return;
    // To everyone, the sender included, as the stock server does: a lone client's own
    // renewed state coming back is what keeps its connection from looking dead to it.
    const message = encodeAwareness(this.awareness, changed);
    for (const conn of this.#conns.keys()) safeSend(conn, message);
  };
}

function safeSend(conn: Connection, data: Uint8Array | string): void {
  try {
    conn.send(data);
  } catch {
    // A socket that is closing; its close handler removes it.
  }
}

const isHighSurrogate = (c: number) => c >= 0xd800 && c <= 0xdbff;
const isLowSurrogate = (c: number) => c >= 0xdc00 && c <= 0xdfff;
