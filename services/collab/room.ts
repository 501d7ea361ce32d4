import * as Y from "yjs";
import { errorMessage, type Logger } from "../../shared/log.ts";
import { countMetric } from "../../shared/service/metrics.ts";
import { AwarenessOwners } from "./awareness_owners.ts";
import { type Connection, type ConnectionState, safeSend } from "./connection.ts";
import { DocumentSize } from "./document_size.ts";
import { type CollabLimits, DEFAULT_LIMITS, RateBucket } from "./limits.ts";
import {
  awarenessProtocol,
  CloseCode,
  decoding,
  encodeAppEvent,
  encodeAwareness,
  encodeSyncStep1,
  encoding,
  MESSAGE_AWARENESS,
  MESSAGE_QUERY_AWARENESS,
  MESSAGE_SYNC,
  syncProtocol,
} from "./protocol.ts";
import { type HeadEntry, type LoadedDoc, RestoredError } from "./store.ts";
import { type RoomStorage, WritePipeline } from "./write_pipeline.ts";

export type { Connection } from "./connection.ts";
export type { RoomStorage } from "./write_pipeline.ts";

/** The name of the Y.Text that holds a post's text. */
export const CONTENT_FIELD = "content";

/** The reason of the close after a restore replaced the documents (with CloseCode.Restored). */
export const RESTORED_REASON = "Restored from a backup";

/**
 * How long after joining a silent socket's application events wait to learn what it speaks:
 * a stock provider's sync step 1 arrives within a round trip; a plain socket that stays silent
 * gets them as text when the hold ends.
 */
export const EVENT_HOLD_MS = 1_000;

export interface RoomOptions {
  postId: string;
  storage: RoomStorage;
  logger: Logger;
  /** compact once more than this many updates are stored after the snapshot */
  compactAfter: number;
  /**
   * called once when storing fails for good (`err`; a RestoredError: a restore replaced the
   * document): the room must be dropped
   */
  onBroken?: (room: DocumentRoom, err: unknown) => void;
  /** frame, document and awareness limits (docs/collab.md); DEFAULT_LIMITS when absent */
  limits?: CollabLimits;
  /**
   * Told each awareness change of this room's own connections (the entries applied, encoded
   * as y-protocols does, and the user they belong to), for the other instances.
   */
  publishAwareness?: (update: Uint8Array, userId: string) => void;
}

/**
 * One post's live document: the in-memory Y.Doc (snapshot + stored updates), the awareness
 * of its editors, and its connections: their admission (frame size and rate), the Yjs sync,
 * and the application events. Every change is checked against the document limits
 * (DocumentSize), stored before it is forwarded (WritePipeline), and each connection writes
 * only its own cursor (AwarenessOwners). Transport-free: it only sees Connections.
 */
export class DocumentRoom {
  readonly postId: string;
  readonly doc: Y.Doc;
  readonly awareness: awarenessProtocol.Awareness;
  readonly #conns = new Map<Connection, ConnectionState>();
  readonly #options: RoomOptions;
  readonly #limits: CollabLimits;
  readonly #size: DocumentSize;
  readonly #owners: AwarenessOwners;
  readonly #pipeline: WritePipeline;
  /**
   * The sync step 2 answering an empty state vector (a client with a fresh document), kept
   * until the document changes: a room whose text stays as it is (as at the text limit, every
   * writer refused) sends the same whole document to each joining client without encoding it
   * again.
   */
  #wholeState: Uint8Array | null = null;
  #destroyed = false;

  constructor(loaded: LoadedDoc | null, options: RoomOptions) {
    this.postId = options.postId;
    this.#options = options;
    this.#limits = options.limits ?? DEFAULT_LIMITS;
    this.#size = new DocumentSize(this.#limits, CONTENT_FIELD);
    this.doc = new Y.Doc();
    for (const update of loaded?.updates ?? []) {
      Y.applyUpdate(this.doc, update, "load");
      this.#size.bytes += update.byteLength;
    }
    this.#pipeline = new WritePipeline(loaded, {
      postId: this.postId,
      doc: this.doc,
      storage: options.storage,
      logger: options.logger,
      compactAfter: options.compactAfter,
      conns: this.#conns,
      size: this.#size,
      apply: (update, origin) => this.#apply(update, origin),
      onBroken: (err) => {
        // After a restore the close is final: a reconnecting provider would merge the text from
        // before back into the restored one.
        if (err instanceof RestoredError) this.closeAll(CloseCode.Restored, RESTORED_REASON);
        else this.closeAll(CloseCode.InternalError, "Storing the document failed");
        this.#options.onBroken?.(this, err);
      },
    });
    this.doc.on("update", this.#onUpdate);
    this.awareness = new awarenessProtocol.Awareness(this.doc);
    this.awareness.setLocalState(null);
    // y-protocols gives each Awareness its own 3 s timer for expiring cursors; the hub runs that
    // check for every room from one timer instead (expireAwareness).
    clearInterval((this.awareness as unknown as { _checkInterval: number })._checkInterval);
    this.#owners = new AwarenessOwners(
      this.awareness,
      this.#conns,
      this.#limits,
      options.publishAwareness,
    );
    this.#pipeline.start();
  }

  /** The sequence number of the last stored update the in-memory document holds. */
  get seq(): number {
    return this.#pipeline.seq;
  }

  get size(): number {
    return this.#conns.size;
  }

  get broken(): boolean {
    return this.#pipeline.broken !== null;
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
      joinedAt: now,
      held: [],
      frames: new RateBucket(framesPerSecond, framesPerSecond * 2, now),
      awareness: new RateBucket(awarenessPerSecond, awarenessPerSecond, now),
    });
    conn.send(encodeSyncStep1(this.doc));
    const states = this.awareness.getStates();
    if (states.size > 0) conn.send(encodeAwareness(this.awareness, [...states.keys()]));
  }

  /**
   * Removes the cursors of other clients not renewed for `outdatedTimeout` (30 s; a provider
   * renews its own every 15 s), as y-protocols' own timer would: origin "timeout".
   */
  expireAwareness(now = Date.now()): void {
    const remove: number[] = [];
    for (const [id, meta] of this.awareness.meta) {
      if (
        id !== this.awareness.clientID && this.awareness.states.has(id) &&
        now - meta.lastUpdated >= awarenessProtocol.outdatedTimeout
      ) remove.push(id);
    }
    if (remove.length > 0) {
      awarenessProtocol.removeAwarenessStates(this.awareness, remove, "timeout");
    }
  }

  /** Removes a connection; its cursors disappear for everyone else. */
  leave(conn: Connection): void {
    const state = this.#conns.get(conn);
    if (!state) return;
    clearTimeout(state.holdTimer);
    this.#conns.delete(conn);
    this.#owners.release(conn, state.own);
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
    if (!this.#admitFrame(conn, state, bytes)) return;
    if (state.held) this.#releaseHeld(conn, state);
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
      if (state.held) this.#releaseHeld(conn, state);
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
            const refusal = this.#size.refusal(this.doc, update);
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
          this.#owners.receive(conn, state, decoding.readVarUint8Array(decoder));
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
      if (state.held && this.#hold(conn, state, text)) continue;
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
   * Keeps `text` for a connection that joined less than `EVENT_HOLD_MS` ago and has sent
   * nothing yet, until its first frame says what it speaks (or the hold ends); false when the
   * hold is already over (the events held so far are then sent as text, and so is this one).
   */
  #hold(conn: Connection, state: ConnectionState, text: string): boolean {
    const wait = state.joinedAt + EVENT_HOLD_MS - Date.now();
    if (wait <= 0) {
      this.#releaseHeld(conn, state);
      return false;
    }
    state.held!.push(text);
    state.holdTimer ??= setTimeout(() => {
      if (this.#conns.get(conn) === state) this.#releaseHeld(conn, state);
    }, wait);
    return true;
  }

  /** Sends the held events, in binary frames to a Yjs speaker and as text to any other. */
  #releaseHeld(conn: Connection, state: ConnectionState): void {
    clearTimeout(state.holdTimer);
    const held = state.held ?? [];
    state.held = null;
    for (const text of held) safeSend(conn, state.speaksYjs ? encodeAppEvent(text) : text);
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
  flush(): Promise<void> {
    return this.#pipeline.flush();
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
    for (const state of this.#conns.values()) clearTimeout(state.holdTimer);
    this.#pipeline.stop();
    this.#owners.destroy();
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
   * An awareness update another instance's connection made (`userId`'s): applied and forwarded
   * to this room's connections, except entries for client ids a connection here owns.
   */
  applyRemoteAwareness(update: Uint8Array, userId: string): void {
    this.#owners.applyRemote(update, userId);
  }

  /** Tells the other instances, again, the cursors this room's connections own. */
  publishOwnAwareness(): void {
    this.#owners.publishOwn();
  }

  /**
   * Another instance's view of the stored head: when it is past what this room holds, the
   * pipeline reads the updates in between and forwards them, in order (before its own next
   * commit). Answers whether there is anything to catch up with.
   */
  follow(entry: HeadEntry): boolean {
    return this.#pipeline.follow(entry);
  }

  /**
   * Every change of the document: counted in its size bound, the cached whole state dropped,
   * then stored (or, when another instance stored it, forwarded) by the pipeline.
   */
  #onUpdate = (update: Uint8Array, origin: unknown): void => {
    this.#size.bytes += update.byteLength;
    this.#wholeState = null;
    this.#pipeline.changed(update, origin);
  };
}

const isHighSurrogate = (c: number) => c >= 0xd800 && c <= 0xdbff;
const isLowSurrogate = (c: number) => c >= 0xdc00 && c <= 0xdfff;
