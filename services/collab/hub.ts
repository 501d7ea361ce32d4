import * as Y from "yjs";
import { sha256Hex } from "../../shared/crypto/ids.ts";
import type { Logger } from "../../shared/log.ts";
import { InstanceFollowing, newSlot, type RoomSlot, stopWatching } from "./following.ts";
import { type CollabLimits, DEFAULT_LIMITS } from "./limits.ts";
import { CloseCode } from "./protocol.ts";
import { RESTORE_CHECK_MS, RestoreWatch } from "./restores.ts";
import { type Connection, CONTENT_FIELD, DocumentRoom, RESTORED_REASON } from "./room.ts";
import { type DocStore, type Epoch, RestoredError, type Signal } from "./store.ts";
import { closeIdle, MembershipSweep, type MembershipSweepOptions } from "./sweeps.ts";

/** How often every room's cursors are checked for expiry (y-protocols checks every 3 s). */
const AWARENESS_CHECK_MS = 3_000;

/** How many texts' fingerprints are remembered (the oldest are forgotten first). */
const MAX_FINGERPRINTS = 10_000;

export interface HubOptions {
  store: DocStore;
  logger: Logger;
  /** compaction threshold: more than this many stored updates after the snapshot */
  compactAfter: number;
  /** a connection that sent nothing for this long is closed */
  idleTimeoutMs: number;
  /** how long a room stays in memory after its last connection left */
  graceMs: number;
  /** how often every connection's account and workspace membership are checked again */
  membershipCheckMs: number;
  /** true: still a member; false: not any more (close); throws: unknown (keep) */
  isMember(workspaceId: string, userId: string): Promise<boolean>;
  /** the account's state through a socket's session (sweeps.ts); absent: not re-checked */
  accountState?: MembershipSweepOptions["accountState"];
  /** frame, document, awareness and per-user limits; each absent one is the default */
  limits?: Partial<CollabLimits>;
  /**
   * How often (ms) each open document's head and signal log are read, to pick up what other
   * instances stored (a local SQLite KV shared by several processes tells no process of the
   * others' writes). 0: never; default 50.
   */
  followPollMs?: number;
  /** also `kv.watch` each open document (Deno Deploy, KV Connect deliver other writers' changes); default true */
  watch?: boolean;
  /** how often (ms) the restore epoch is read, to learn of a restore another instance ran */
  restoreCheckMs?: number;
}

/**
 * The collaboration core, independent of the transport: one DocumentRoom per open post,
 * loaded from the store on first use and dropped a grace period after the last user leaves,
 * following what the other instances store (following.ts) and the restores any of them ran
 * (restores.ts); the idle and membership sweeps (sweeps.ts); and the operations the posts
 * service drives (replace the text, read it, broadcast a comment event, delete the document).
 */
export class CollabHub {
  readonly #slots = new Map<string, RoomSlot>();
  readonly #options: HubOptions;
  readonly #limits: CollabLimits;
  /** open sockets per user, across every post */
  readonly #userSockets = new Map<string, number>();
  #timers: ReturnType<typeof setInterval>[] = [];
  /** post id → the SHA-256 of its text at the head versionstamp it was computed for */
  readonly #fingerprints = new Map<string, { versionstamp: string; sha256: string }>();
  readonly #following: InstanceFollowing;
  readonly #membership: MembershipSweep;
  readonly #restores: RestoreWatch;
  #closed = false;

  constructor(options: HubOptions) {
    this.#options = options;
    this.#limits = { ...DEFAULT_LIMITS, ...options.limits };
    this.#restores = new RestoreWatch(options.store, options.logger, () => this.dropAll());
    this.#following = new InstanceFollowing(this.#slots, options, () => this.#restores.poke());
    this.#membership = new MembershipSweep(options);
  }

  get limits(): CollabLimits {
    return this.#limits;
  }

  /**
   * Counts a socket of `userId` against the per-user limit; false (nothing counted) when the
   * user already has the most open sockets allowed. Each true is matched by `releaseSocket`.
   */
  reserveSocket(userId: string): boolean {
    const open = this.#userSockets.get(userId) ?? 0;
    if (open >= this.#limits.maxConnectionsPerUser) return false;
    this.#userSockets.set(userId, open + 1);
    return true;
  }

  releaseSocket(userId: string): void {
    const open = (this.#userSockets.get(userId) ?? 0) - 1;
    if (open > 0) this.#userSockets.set(userId, open);
    else this.#userSockets.delete(userId);
  }

  /** Starts the sweeps and following; resolves once this instance is registered on the KV. */
  start(): Promise<void> {
    const idleEvery = Math.max(50, Math.min(5_000, Math.floor(this.#options.idleTimeoutMs / 3)));
    const { idleTimeoutMs, membershipCheckMs } = this.#options;
    this.#timers.push(setInterval(() => closeIdle(this.#slots.values(), idleTimeoutMs), idleEvery));
    // Expired cursors, for every room at once, as often as y-protocols checks its own.
    this.#timers.push(setInterval(() => {
      const now = Date.now();
      for (const slot of this.#slots.values()) slot.room?.expireAwareness(now);
    }, AWARENESS_CHECK_MS));
    this.#timers.push(
      setInterval(() => void this.#membership.run(this.connections()), membershipCheckMs),
    );
    const pollMs = this.#options.followPollMs ?? 50;
    if (pollMs > 0) this.#timers.push(setInterval(() => void this.#following.poll(), pollMs));
    const restoreMs = this.#options.restoreCheckMs ?? RESTORE_CHECK_MS;
    this.#timers.push(setInterval(() => {
      if (this.#slots.size > 0) this.#restores.poke();
      else this.#restores.forget();
    }, restoreMs));
    return this.#following.start();
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#following.close();
    for (const t of this.#timers) clearInterval(t);
    this.#timers = [];
    const rooms = [...this.#slots.values()];
    this.#slots.clear();
    for (const slot of rooms) {
      await endRoom(slot, CloseCode.GoingAway, "Server shutting down", { store: true });
    }
    // Last: another instance's poll after this goes still reads what these rooms stored.
    await this.#following.unregister();
  }

  /** The room of `postId`, loaded if needed and held open until `release`. */
  async acquire(postId: string, workspaceId?: string): Promise<DocumentRoom> {
    if (this.#closed) throw new Error("The collaboration hub is closed");
    let slot = this.#slots.get(postId);
    if (slot?.room?.broken) {
      this.#slots.delete(postId);
      slot = undefined;
    }
    if (!slot) {
      const created = newSlot();
      created.loading = this.#load(postId, created, workspaceId).then((room) => {
        created.room = room;
        this.#following.watch(postId, created);
        return room;
      });
      created.loading.catch(() => {
        if (this.#slots.get(postId) === created) this.#slots.delete(postId);
      });
      this.#slots.set(postId, created);
      slot = created;
    }
    slot.users++;
    if (slot.timer !== null) {
      clearTimeout(slot.timer);
      slot.timer = null;
    }
    try {
      return await slot.loading;
    } catch (err) {
      slot.users--;
      throw err;
    }
  }

  /** Lets go of a room; the last one out starts the grace period. */
  release(postId: string): void {
    const slot = this.#slots.get(postId);
    if (!slot) return;
    slot.users = Math.max(0, slot.users - 1);
    if (slot.users > 0 || slot.timer !== null) return;
    slot.timer = setTimeout(() => {
      slot.timer = null;
      if (slot.users > 0 || this.#slots.get(postId) !== slot) return;
      this.#slots.delete(postId);
      stopWatching(slot);
      const room = slot.room;
      if (room) room.flush().catch(() => {}).finally(() => room.destroy());
    }, this.#options.graceMs);
  }

  async #load(
    postId: string,
    slot: RoomSlot,
    workspaceId: string | undefined,
  ): Promise<DocumentRoom> {
    const { store, logger, compactAfter } = this.#options;
    const from = this.#following.instanceId;
    // The restore epoch known as the slot is made (before this first await): a restore the hub
    // learns of later drops this slot with the others. Taken before anything is read, so
    // nothing read after a restore began is stored under the epoch from before it.
    const epoch = slot.epoch = await this.#restores.epoch();
    // The signal log first: what is in it now holds the other instances' current cursors
    // (renewed every 15 s, kept 30 s); anything later is followed.
    const signalSeq = (await store.followedHeads([postId])).get(postId)!.signalSeq;
    const recent = signalSeq > 0 ? await store.readSignals(postId, 1, signalSeq) : [];
    slot.signalSeq = slot.signalTarget = signalSeq;
    const loaded = await store.load(postId);
    const storedWorkspace = loaded?.head.workspace_id ?? workspaceId;
    const room = new DocumentRoom(loaded, {
      postId,
      logger,
      compactAfter,
      limits: this.#limits,
      storage: {
        append: async (update, expected) => {
          return await store.append(postId, update, {
            workspaceId: storedWorkspace,
            expected,
            epoch,
          });
        },
        compact: (snapshot, throughSeq, base) =>
          store.compact(postId, snapshot, throughSeq, base, epoch),
        readUpdates: (fromSeq, toSeq) =>
          restoredOr(store.readUpdates(postId, fromSeq, toSeq), store, epoch),
        load: () => restoredOr(store.load(postId), store, epoch),
      },
      onBroken: (room, err) => {
        const slot = this.#slots.get(postId);
        if (slot?.room === room) {
          this.#slots.delete(postId);
          stopWatching(slot);
        }
        // A restore came: the other rooms held from before it go too.
        if (err instanceof RestoredError) this.#restores.poke();
      },
      publishAwareness: (update, user) =>
        this.#following.publish(postId, slot, { from, kind: "awareness", user, update }),
    });
    for (const signal of recent) {
      if (signal.kind === "awareness" && signal.from !== from) {
        room.applyRemoteAwareness(signal.update, signal.user);
      }
    }
    return room;
  }

  /** Catches `room` up with what is stored now (before reading or replacing its text). */
  async #refresh(postId: string, room: DocumentRoom): Promise<void> {
    const entry = await this.#options.store.getHeadEntry(postId);
    if (entry) room.follow(entry);
    await room.flush();
  }

  /** A live room, if the post has one in memory. */
  liveRoom(postId: string): DocumentRoom | null {
    const room = this.#slots.get(postId)?.room ?? null;
    return room && !room.broken ? room : null;
  }

  /** Every open connection, for the sweeps. */
  *connections(): Iterable<{ room: DocumentRoom; conn: Connection }> {
    for (const slot of this.#slots.values()) {
      if (!slot.room) continue;
      for (const conn of slot.room.connections()) yield { room: slot.room, conn };
    }
  }

  /** Replaces the post's text (creating its document when absent); resolves once stored. */
  async setContent(postId: string, workspaceId: string, content: string): Promise<void> {
    const room = await this.acquire(postId, workspaceId);
    try {
      await this.#refresh(postId, room);
      await room.replaceText(content);
    } finally {
      this.release(postId);
    }
  }

  /** The post's current text, or null when it has no document. */
  async content(postId: string): Promise<string | null> {
    const live = this.liveRoom(postId);
    if (live) {
      await this.#refresh(postId, live);
      return live.text();
    }
    const loaded = await this.#options.store.load(postId);
    if (!loaded) return null;
    const doc = new Y.Doc();
    try {
      for (const u of loaded.updates) Y.applyUpdate(doc, u);
      return doc.getText(CONTENT_FIELD).toString();
    } finally {
      doc.destroy();
    }
  }

  /**
   * The SHA-256 (hex) of the texts of the posts that have a document (ids without one are
   * absent). One read of the heads; a text is hashed again only when its head moved since.
   */
  async fingerprints(postIds: string[]): Promise<Record<string, string>> {
    const out: Record<string, string> = {};
    const heads = await this.#options.store.headEntries([...new Set(postIds)]);
    await Promise.all([...heads].map(async ([id, entry]) => {
      const known = this.#fingerprints.get(id);
      if (known?.versionstamp === entry.versionstamp) {
        out[id] = known.sha256;
        return;
      }
      const text = await this.content(id);
      if (text === null) return;
      out[id] = await sha256Hex(text);
      this.#fingerprints.delete(id);
      this.#fingerprints.set(id, { versionstamp: entry.versionstamp, sha256: out[id] });
      if (this.#fingerprints.size > MAX_FINGERPRINTS) {
        this.#fingerprints.delete(this.#fingerprints.keys().next().value!);
      }
    }));
    return out;
  }

  /** The texts of the posts that have a document. */
  async contents(postIds: string[]): Promise<Record<string, string>> {
    const out: Record<string, string> = {};
    const unique = [...new Set(postIds)];
    const stored = await this.#options.store.existing(
      unique.filter((id) => !this.liveRoom(id)),
    );
    await Promise.all(unique.map(async (id) => {
      if (!this.liveRoom(id) && !stored.has(id)) return;
      const text = await this.content(id);
      if (text !== null) out[id] = text;
    }));
    return out;
  }

  /**
   * Sends an event to every socket on the post, on every instance: this one's at once, the
   * others' through the signal log. Answers how many sockets here got it.
   */
  async broadcast(postId: string, message: unknown): Promise<number> {
    const sent = this.liveRoom(postId)?.broadcastJson(message) ?? 0;
    const slot = this.#slots.get(postId);
    const signal: Signal = { from: this.#following.instanceId, kind: "event", message };
    if (slot?.room) await this.#following.publish(postId, slot, signal);
    else await this.#options.store.appendSignals(postId, [signal]);
    return sent;
  }

  /**
   * After this instance imported a restore (which moved the restore epoch): takes the new
   * epoch and drops every room, unless a check of the epoch already did. Another instance
   * learns of the restore from its own check (every RESTORE_CHECK_MS) and drops its rooms.
   */
  restored(): Promise<void> {
    return this.#restores.check();
  }

  /**
   * Forgets every room after the keyspace was replaced by a restore: their sockets are closed
   * and what they hold in memory (the text from before the restore) is dropped unstored, so the
   * next read or socket loads the restored document. (The rooms are taken out before the first
   * await: RestoreWatch relies on it.)
   */
  async dropAll(): Promise<void> {
    this.#fingerprints.clear();
    const slots = [...this.#slots.values()];
    this.#slots.clear();
    for (const slot of slots) {
      await endRoom(slot, CloseCode.Restored, RESTORED_REASON, { store: false });
    }
  }

  /** Closes the post's sockets and removes its document. */
  async deleteDoc(postId: string): Promise<boolean> {
    this.#fingerprints.delete(postId);
    const slot = this.#slots.get(postId);
    if (slot) {
      this.#slots.delete(postId);
      await endRoom(slot, CloseCode.NotFound, "Post deleted", { store: true });
    }
    return await this.#options.store.delete(postId);
  }
}

/**
 * `read`'s answer; when it fails (records missing: a restore is rewriting them) after a restore
 * moved the epoch from `epoch`, a RestoredError instead: the room closes for good, as restored,
 * rather than as broken (a client told that would reconnect and send its text from before).
 */
async function restoredOr<T>(read: Promise<T>, store: DocStore, epoch: Epoch): Promise<T> {
  try {
    return await read;
  } catch (err) {
    if (await store.restoreEpoch().catch(() => epoch) !== epoch) throw new RestoredError();
    throw err;
  }
}

/**
 * Ends a slot already taken out of the hub: its grace timer and its following stop, its sockets
 * close with `code`, and its room goes, after storing what it holds when `store` (a restore
 * drops it: it is the text from before).
 */
async function endRoom(
  slot: RoomSlot,
  code: CloseCode,
  reason: string,
  { store }: { store: boolean },
): Promise<void> {
  if (slot.timer !== null) clearTimeout(slot.timer);
  stopWatching(slot);
  const room = slot.room ?? await slot.loading.catch(() => null);
  if (!room) return;
  room.closeAll(code, reason);
  if (store) await room.flush().catch(() => {});
  await slot.sending;
  room.destroy();
}
