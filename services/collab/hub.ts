import * as Y from "yjs";
import { newId, sha256Hex } from "../../shared/crypto/ids.ts";
import { errorMessage, type Logger } from "../../shared/log.ts";
import { countMetric } from "../../shared/service/metrics.ts";
import { type CollabLimits, DEFAULT_LIMITS } from "./limits.ts";
import { CloseCode } from "./protocol.ts";
import { type Connection, CONTENT_FIELD, DocumentRoom } from "./room.ts";
import type { DocStore, FollowedHeads, Signal } from "./store.ts";
import { MESSAGES } from "../../shared/http/messages.ts";

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
  /**
   * true: the account may still edit; false: disabled or rejected (close with 4401);
   * throws: unknown (keep). Absent: accounts are not re-checked.
   */
  isActive?(userId: string): Promise<boolean>;
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
}

interface RoomSlot {
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
}

/**
 * The collaboration core, independent of the transport: one DocumentRoom per open post,
 * loaded from the store on first use and dropped a grace period after the last user leaves;
 * the idle and membership sweeps; and the operations the posts service drives (replace the
 * text, read it, broadcast a comment event, delete the document).
 */
export class CollabHub {
  readonly #slots = new Map<string, RoomSlot>();
  readonly #options: HubOptions;
  readonly #limits: CollabLimits;
  /** open sockets per user, across every post */
  readonly #userSockets = new Map<string, number>();
  #timers: ReturnType<typeof setInterval>[] = [];
  /** per document: the pending text notification and when the last one went out */
  /** post id → the SHA-256 of its text at the head versionstamp it was computed for */
  readonly #fingerprints = new Map<string, { versionstamp: string; sha256: string }>();
  #sweeping = false;
  #polling = false;
  #closed = false;
  /** tells this instance's signals from the others' */
  readonly #instanceId = newId();

  constructor(options: HubOptions) {
    this.#options = options;
    this.#limits = { ...DEFAULT_LIMITS, ...options.limits };
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

  start(): void {
    const idleEvery = Math.max(50, Math.min(5_000, Math.floor(this.#options.idleTimeoutMs / 3)));
    this.#timers.push(setInterval(() => this.#sweepIdle(), idleEvery));
    this.#timers.push(
      setInterval(() => void this.#sweepMembership(), this.#options.membershipCheckMs),
    );
    const pollMs = this.#options.followPollMs ?? 50;
    if (pollMs > 0) this.#timers.push(setInterval(() => void this.#poll(), pollMs));
  }

  async close(): Promise<void> {
    this.#closed = true;
    for (const t of this.#timers) clearInterval(t);
    this.#timers = [];
    const rooms = [...this.#slots.values()];
    this.#slots.clear();
    for (const slot of rooms) {
      if (slot.timer !== null) clearTimeout(slot.timer);
      stopWatching(slot);
      const room = slot.room ?? await slot.loading.catch(() => null);
      if (!room) continue;
      room.closeAll(CloseCode.GoingAway, "Server shutting down");
      await room.flush().catch(() => {});
      await slot.sending;
      room.destroy();
    }
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
      const created: RoomSlot = {
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
      created.loading = this.#load(postId, created, workspaceId).then((room) => {
        created.room = room;
        this.#watch(postId, created);
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
          });
        },
        compact: (snapshot, throughSeq, base) => store.compact(postId, snapshot, throughSeq, base),
        readUpdates: (fromSeq, toSeq) => store.readUpdates(postId, fromSeq, toSeq),
        load: () => store.load(postId),
      },
      onBroken: (room) => {
        const slot = this.#slots.get(postId);
        if (slot?.room === room) {
          this.#slots.delete(postId);
          stopWatching(slot);
        }
      },
      publishAwareness: (update, user) =>
        this.#publish(postId, slot, { from: this.#instanceId, kind: "awareness", user, update }),
    });
    for (const signal of recent) {
      if (signal.kind === "awareness" && signal.from !== this.#instanceId) {
        room.applyRemoteAwareness(signal.update, signal.user);
      }
    }
    return room;
  }

  /** Follows the document with `kv.watch` too, where the KV delivers other writers' changes. */
  #watch(postId: string, slot: RoomSlot): void {
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

  /** Reads every open document's head and signal log sequence (a few reads for all of them). */
  async #poll(): Promise<void> {
    if (this.#polling || this.#closed) return;
    this.#polling = true;
    try {
      const open = [...this.#slots].filter(([, slot]) => slot.room);
      if (open.length === 0) return;
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
          if (signal.from === this.#instanceId) continue;
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
   * Stores a signal for the other instances: while a commit of this document's signals is in
   * flight, the next ones wait and go together in one commit.
   */
  #publish(postId: string, slot: RoomSlot, signal: Signal): Promise<void> {
    slot.outbox.push(signal);
    slot.sending ??= this.#send(postId, slot).finally(() => slot.sending = null);
    return slot.sending;
  }

  async #send(postId: string, slot: RoomSlot): Promise<void> {
    try {
      while (slot.outbox.length > 0) {
        const batch = slot.outbox;
        slot.outbox = [];
        const { first, last } = await this.#options.store.appendSignals(postId, batch);
        // Nothing of another instance in between: there is nothing of ours to read back.
        if (first === slot.signalSeq + 1 && !slot.signalReading) {
          slot.signalSeq = slot.signalTarget = Math.max(slot.signalTarget, last);
        }
      }
    } catch (err) {
      slot.outbox = [];
      this.#options.logger.warn("telling other instances of a change failed", {
        post_id: postId,
        error: errorMessage(err),
      });
    }
  }

  /** The document was deleted through another instance: as `deleteDoc` does here. */
  async #dropDeleted(postId: string, slot: RoomSlot): Promise<void> {
    // Read again through the store: a head seen missing once is only a sign.
    if (await this.#options.store.getHeadEntry(postId)) return;
    if (this.#slots.get(postId) !== slot) return;
    this.#slots.delete(postId);
    if (slot.timer !== null) clearTimeout(slot.timer);
    stopWatching(slot);
    const room = slot.room;
    if (!room) return;
    room.closeAll(CloseCode.NotFound, "Post deleted");
    room.destroy();
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
    const signal: Signal = { from: this.#instanceId, kind: "event", message };
    if (slot?.room) await this.#publish(postId, slot, signal);
    else await this.#options.store.appendSignals(postId, [signal]);
    return sent;
  }

  /** Closes the post's sockets and removes its document. */
  async deleteDoc(postId: string): Promise<boolean> {
    this.#fingerprints.delete(postId);
    const slot = this.#slots.get(postId);
    if (slot) {
      this.#slots.delete(postId);
      if (slot.timer !== null) clearTimeout(slot.timer);
      stopWatching(slot);
      const room = slot.room ?? await slot.loading.catch(() => null);
      if (room) {
        room.closeAll(CloseCode.NotFound, "Post deleted");
        await room.flush().catch(() => {});
        room.destroy();
      }
    }
    return await this.#options.store.delete(postId);
  }

  #sweepIdle(): void {
    const now = Date.now();
    for (const slot of this.#slots.values()) {
      const room = slot.room;
      if (!room) continue;
      for (const conn of room.idleConnections(now, this.#options.idleTimeoutMs)) {
        countMetric("collab_idle_closed");
        try {
          conn.close(CloseCode.Timeout, "Connection idle");
        } catch { /* already closed */ }
        room.leave(conn);
      }
    }
  }

  /**
   * Checks every open connection again (revocation lands within 5 s): once per
   * user that the account is still active (else 4401), and once per (workspace, user) pair that
   * the user is still a member and the workspace still there (else 4403). A check that fails
   * keeps the sockets until the next sweep.
   */
  async #sweepMembership(): Promise<void> {
    if (this.#sweeping) return;
    this.#sweeping = true;
    try {
      const byUser = new Map<string, { room: DocumentRoom; conn: Connection }[]>();
      const byPair = new Map<string, { room: DocumentRoom; conn: Connection }[]>();
      for (const entry of this.connections()) {
        const { userId, workspaceId } = entry.conn;
        group(byUser, userId, entry);
        group(byPair, JSON.stringify([workspaceId, userId]), entry);
      }
      const isActive = this.#options.isActive;
      const inactive = new Set<string>();
      if (isActive) {
        await Promise.all([...byUser.entries()].map(async ([userId, entries]) => {
          let active: boolean;
          try {
            active = await isActive(userId);
          } catch (err) {
            this.#options.logger.warn("account re-check failed; keeping the sockets", {
              user_id: userId,
              error: errorMessage(err),
            });
            return;
          }
          if (active) return;
          inactive.add(userId);
          closeEach(entries, CloseCode.Unauthorized, "Account disabled", "collab_account_closed");
        }));
      }
      await Promise.all([...byPair.entries()].map(async ([key, entries]) => {
        const [workspaceId, userId] = JSON.parse(key) as [string, string];
        if (inactive.has(userId)) return;
        let member: boolean;
        try {
          member = await this.#options.isMember(workspaceId, userId);
        } catch (err) {
          this.#options.logger.warn("membership re-check failed; keeping the sockets", {
            workspace_id: workspaceId,
            error: errorMessage(err),
          });
          return;
        }
        if (member) return;
        closeEach(
          entries,
          CloseCode.Forbidden,
          MESSAGES.notMember,
          "collab_membership_closed",
        );
      }));
    } finally {
      this.#sweeping = false;
    }
  }
}

function stopWatching(slot: RoomSlot): void {
  slot.watcher?.cancel().catch(() => {});
  slot.watcher = null;
}

function group<T>(map: Map<string, T[]>, key: string, value: T): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

function closeEach(
  entries: { room: DocumentRoom; conn: Connection }[],
  code: CloseCode,
  reason: string,
  metric: string,
): void {
  for (const { room, conn } of entries) {
    countMetric(metric);
    try {
      conn.close(code, reason);
    } catch { /* already closed */ }
    room.leave(conn);
  }
}
