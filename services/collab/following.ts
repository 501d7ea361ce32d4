import { newId } from "../../shared/crypto/ids.ts";
import { errorMessage, type Logger } from "../../shared/log.ts";
import { CloseCode } from "./protocol.ts";
import type { DocumentRoom } from "./room.ts";
import {
  type DocStore,
  type Epoch,
  type FollowedHeads,
  INSTANCE_TTL_MS,
  RestoredError,
  type Signal,
} from "./store.ts";

/** One post's room as the hub holds it, with what following the other instances needs. */
export interface RoomSlot {
  loading: Promise<DocumentRoom>;
  room: DocumentRoom | null;
  /** connections and in-flight operations holding the room open */
  users: number;
  timer: ReturnType<typeof setTimeout> | null;
  /** the signal log is read up to here; `signalTarget` is the newest sequence seen */
  signalSeq: number;
  signalTarget: number;
  signalReading: boolean;
  /** signals of this instance waiting for the commit in flight (group commit) */
  outbox: Signal[];
  /** the commit loop of `outbox`, while it runs */
  sending: Promise<void> | null;
  watcher: ReadableStreamDefaultReader<FollowedHeads> | null;
  /** the restore epoch the room was loaded in (its signals are checked against it too) */
  epoch?: Epoch;
}

/** A slot whose room is still to load, held by nobody yet. */
export function newSlot(): RoomSlot {
  return {
    loading: null!,
    room: null,
    users: 0,
    timer: null,
    signalSeq: 0,
    signalTarget: 0,
    signalReading: false,
    outbox: [],
    sending: null,
    watcher: null,
  };
}

/** Stops the slot's `kv.watch`, if any. */
export function stopWatching(slot: RoomSlot): void {
  slot.watcher?.cancel().catch(() => {});
  slot.watcher = null;
}

export interface FollowingOptions {
  store: DocStore;
  logger: Logger;
  /** also `kv.watch` each open document; default true */
  watch?: boolean;
}

/**
 * How the open rooms of this instance follow the other instances on the same KV: while another
 * instance is registered on it (and at the first poll after the last one left, for what it
 * stored before it went), each open document's head and signal log are polled; each is watched
 * too where the KV delivers other writers' changes. Updates they stored are caught up with,
 * their signals (awareness changes, comment events) delivered, a document they deleted closed
 * here too; and this instance's signals are stored for them, grouped per commit. An instance
 * alone on its KV reads only the registry at each poll, however many documents it has open.
 */
export class InstanceFollowing {
  /** tells this instance's signals from the others' */
  readonly instanceId = newId();
  readonly #slots: Map<string, RoomSlot>;
  readonly #options: FollowingOptions;
  #polling = false;
  #closed = false;
  /** whether the last poll found another instance registered */
  #othersSeen = false;
  /**
   * Whether the last poll found this instance alone on its KV: then nobody reads the cursors
   * it would append to the signal log (an instance that registers later is told them when
   * this one's next poll finds it: `#othersAppeared`). False until a poll has read the registry,
   * and for good when nothing polls.
   */
  #alone = false;
  #renewal: ReturnType<typeof setInterval> | null = null;
  #registering: Promise<void> | null = null;

  /**
   * `slots`: the hub's open rooms (shared, not copied); `restoreSeen`: called when what a room
   * follows shows a restore may have come (the hub reads the restore epoch)
   */
  constructor(
    slots: Map<string, RoomSlot>,
    options: FollowingOptions,
    private readonly restoreSeen: () => void = () => {},
  ) {
    this.#slots = slots;
    this.#options = options;
  }

  /**
   * Registers this instance on the KV, renewed every third of its lifetime; resolves once
   * registered (a failure is logged, and the renewal tries again).
   */
  start(): Promise<void> {
    this.#renewal ??= setInterval(() => this.#register(), INSTANCE_TTL_MS / 3);
    return this.#register();
  }

  #register(): Promise<void> {
    if (this.#closed) return Promise.resolve();
    this.#registering = this.#options.store.registerInstance(this.instanceId).catch((err) => {
      this.#options.logger.warn("registering this collab instance failed", {
        error: errorMessage(err),
      });
    });
    return this.#registering;
  }

  /** Stops polling and watching; the registration stays until `unregister`. */
  close(): void {
    this.#closed = true;
    if (this.#renewal !== null) clearInterval(this.#renewal);
    this.#renewal = null;
  }

  /** Removes the registration, once this instance stored all it will (its rooms flushed). */
  async unregister(): Promise<void> {
    await this.#registering;
    await this.#options.store.unregisterInstance(this.instanceId).catch(() => {});
  }

  /** Follows the document with `kv.watch` too, where the KV delivers other writers' changes. */
  watch(postId: string, slot: RoomSlot): void {
    if (this.#options.watch === false || this.#closed) return;
    const reader = this.#options.store.watch(postId).getReader();
    slot.watcher = reader;
    (async () => {
      for (;;) {
        const { value, done } = await reader.read();
        if (done || this.#slots.get(postId) !== slot) break;
        this.#onHeads(postId, slot, value);
      }
    })().catch((err) => {
      this.#options.logger.warn("watching a document stopped; polling goes on", {
        post_id: postId,
        error: errorMessage(err),
      });
    }).finally(() => reader.cancel().catch(() => {}));
  }

  /**
   * Reads every open document's head and signal log sequence (a few reads for all of them),
   * when another instance is registered or was at the previous poll.
   */
  async poll(): Promise<void> {
    if (this.#polling || this.#closed) return;
    this.#polling = true;
    try {
      const open = [...this.#slots].filter(([, slot]) => slot.room);
      if (open.length === 0) return;
      const others = await this.#options.store.othersAlive(this.instanceId);
      // The poll after the last other instance left still reads: what it stored before it
      // removed its registration is then in the heads.
      const follow = others || this.#othersSeen;
      this.#othersSeen = others;
      const wasAlone = this.#alone;
      this.#alone = !others;
      if (wasAlone && others) this.#othersAppeared();
      if (!follow) return;
      const heads = await this.#options.store.followedHeads(open.map(([id]) => id));
      for (const [postId, slot] of open) {
        if (this.#slots.get(postId) === slot) this.#onHeads(postId, slot, heads.get(postId)!);
      }
    } catch (err) {
      this.#options.logger.warn("reading the heads of open documents failed", {
        error: errorMessage(err),
      });
    } finally {
      this.#polling = false;
    }
  }

  /**
   * What the KV holds for an open document now: updates another instance stored are caught up
   * with (in order, by the room's pipeline), new signals are read, and a document deleted
   * through another instance closes its sockets here too.
   */
  #onHeads(postId: string, slot: RoomSlot, heads: FollowedHeads): void {
    const room = slot.room;
    if (!room || room.broken) return;
    if (heads.doc) room.follow(heads.doc);
    else if (room.seq > 0) {
      void this.#dropDeleted(postId, slot);
      return;
    }
    if (heads.signalSeq > slot.signalTarget) {
      slot.signalTarget = heads.signalSeq;
      void this.#readSignals(postId, slot);
    }
  }

  /** Delivers the other instances' signals past `slot.signalSeq`, in order, once each. */
  async #readSignals(postId: string, slot: RoomSlot): Promise<void> {
    if (slot.signalReading) return;
    slot.signalReading = true;
    try {
      while (slot.signalTarget > slot.signalSeq && this.#slots.get(postId) === slot) {
        const target = slot.signalTarget;
        const signals = await this.#options.store.readSignals(postId, slot.signalSeq + 1, target);
        slot.signalSeq = Math.max(slot.signalSeq, target);
        const room = slot.room;
        if (!room) continue;
        for (const signal of signals) {
          if (signal.from === this.instanceId) continue;
          if (signal.kind === "awareness") room.applyRemoteAwareness(signal.update, signal.user);
          else room.broadcastJson(signal.message);
        }
      }
    } catch (err) {
      this.#options.logger.warn("reading a document's signals failed", {
        post_id: postId,
        error: errorMessage(err),
      });
    } finally {
      slot.signalReading = false;
    }
  }

  /**
   * Another instance registered while this one was alone (so its cursors went unstored): each
   * open room tells the cursors its sockets own now, which the newcomer reads from the log.
   */
  #othersAppeared(): void {
    for (const slot of this.#slots.values()) slot.room?.publishOwnAwareness();
  }

  /**
   * Stores a signal for the other instances: while a commit of this document's signals is in
   * flight, the next ones wait and go together in one commit. A cursor change made while this
   * instance is alone on its KV is not stored (nobody would read it).
   */
  publish(postId: string, slot: RoomSlot, signal: Signal): Promise<void> {
    if (signal.kind === "awareness" && this.#alone) return Promise.resolve();
    slot.outbox.push(signal);
    slot.sending ??= this.#send(postId, slot).finally(() => slot.sending = null);
    return slot.sending;
  }

  async #send(postId: string, slot: RoomSlot): Promise<void> {
    try {
      while (slot.outbox.length > 0) {
        const batch = slot.outbox;
        slot.outbox = [];
        const { first, last } = await this.#options.store.appendSignals(
          postId,
          batch,
          slot.epoch,
        );
        // Nothing of another instance in between: there is nothing of ours to read back.
        if (first === slot.signalSeq + 1 && !slot.signalReading) {
          slot.signalSeq = slot.signalTarget = Math.max(slot.signalTarget, last);
        }
      }
    } catch (err) {
      slot.outbox = [];
      // A restore replaced the document: the room goes (restoreSeen), nothing to tell.
      if (err instanceof RestoredError) return this.restoreSeen();
      this.#options.logger.warn("telling other instances of a change failed", {
        post_id: postId,
        error: errorMessage(err),
      });
    }
  }

  /**
   * The document was deleted through another instance: as `deleteDoc` does here. (A restore
   * also takes every head away for a moment: then the restore's drop closes the room.)
   */
  async #dropDeleted(postId: string, slot: RoomSlot): Promise<void> {
    // Read again through the store: a head seen missing once is only a sign.
    const { store } = this.#options;
    if (await store.getHeadEntry(postId)) return;
    if (slot.epoch !== undefined && await store.restoreEpoch() !== slot.epoch) {
      return this.restoreSeen();
    }
    if (this.#slots.get(postId) !== slot) return;
    this.#slots.delete(postId);
    if (slot.timer !== null) clearTimeout(slot.timer);
    stopWatching(slot);
    const room = slot.room;
    if (!room) return;
    room.closeAll(CloseCode.NotFound, "Post deleted");
    room.destroy();
  }
}
