import * as Y from "yjs";
import { errorMessage, type Logger } from "../../shared/log.ts";
import { countMetric } from "../../shared/metrics.ts";
import { CloseCode } from "./protocol.ts";
import { type Connection, CONTENT_FIELD, DocumentRoom } from "./room.ts";
import type { DocStore } from "./store.ts";

export interface HubOptions {
  store: DocStore;
  logger: Logger;
  /** compaction threshold: more than this many stored updates after the snapshot */
  compactAfter: number;
  /** a connection that sent nothing for this long is closed */
  idleTimeoutMs: number;
  /** how long a room stays in memory after its last connection left */
  graceMs: number;
  /** how often every connection's workspace membership is checked again */
  membershipCheckMs: number;
  /** true: still a member; false: not any more (close); throws: unknown (keep) */
  isMember(workspaceId: string, userId: string): Promise<boolean>;
}

interface RoomSlot {
  loading: Promise<DocumentRoom>;
  room: DocumentRoom | null;
  /** connections and in-flight operations holding the room open */
  users: number;
  timer: ReturnType<typeof setTimeout> | null;
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
  #timers: ReturnType<typeof setInterval>[] = [];
  #sweeping = false;
  #closed = false;

  constructor(options: HubOptions) {
    this.#options = options;
  }

  start(): void {
    const idleEvery = Math.max(50, Math.min(5_000, Math.floor(this.#options.idleTimeoutMs / 3)));
    this.#timers.push(setInterval(() => this.#sweepIdle(), idleEvery));
    this.#timers.push(
      setInterval(() => void this.#sweepMembership(), this.#options.membershipCheckMs),
    );
  }

  async close(): Promise<void> {
    this.#closed = true;
    for (const t of this.#timers) clearInterval(t);
    this.#timers = [];
    const rooms = [...this.#slots.values()];
    this.#slots.clear();
    for (const slot of rooms) {
      if (slot.timer !== null) clearTimeout(slot.timer);
      const room = slot.room ?? await slot.loading.catch(() => null);
      if (!room) continue;
      room.closeAll(CloseCode.GoingAway, "Server shutting down");
      await room.flush().catch(() => {});
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
      const created: RoomSlot = { loading: null!, room: null, users: 0, timer: null };
      created.loading = this.#load(postId, workspaceId).then((room) => {
        created.room = room;
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
      const room = slot.room;
      if (room) room.flush().catch(() => {}).finally(() => room.destroy());
    }, this.#options.graceMs);
  }

  async #load(postId: string, workspaceId: string | undefined): Promise<DocumentRoom> {
    const { store, logger, compactAfter } = this.#options;
    const loaded = await store.load(postId);
    const storedWorkspace = loaded?.head.workspace_id ?? workspaceId;
    return new DocumentRoom(loaded, {
      postId,
      logger,
      compactAfter,
      storage: {
        append: (update, expected) =>
          store.append(postId, update, { workspaceId: storedWorkspace, expected }),
        compact: (snapshot, throughSeq, base) => store.compact(postId, snapshot, throughSeq, base),
        compactFromStorage: () => store.compactFromStorage(postId),
      },
      onBroken: (room) => {
        const slot = this.#slots.get(postId);
        if (slot?.room === room) this.#slots.delete(postId);
      },
    });
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
      await room.replaceText(content);
    } finally {
      this.release(postId);
    }
  }

  /** The post's current text, or null when it has no document. */
  async content(postId: string): Promise<string | null> {
    const live = this.liveRoom(postId);
    if (live) return live.text();
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

  /** Sends a JSON text frame to every socket on the post (best effort); answers how many. */
  broadcast(postId: string, message: unknown): number {
    return this.liveRoom(postId)?.broadcastJson(message) ?? 0;
  }

  /** Closes the post's sockets and removes its document. */
  async deleteDoc(postId: string): Promise<boolean> {
    const slot = this.#slots.get(postId);
    if (slot) {
      this.#slots.delete(postId);
      if (slot.timer !== null) clearTimeout(slot.timer);
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
   * Checks every open connection's membership again, once per (workspace, user) pair, and
   * closes the sockets of anyone who is no longer a member (or whose workspace is gone).
   */
  async #sweepMembership(): Promise<void> {
    if (this.#sweeping) return;
    this.#sweeping = true;
    try {
      const byPair = new Map<string, { room: DocumentRoom; conn: Connection }[]>();
      for (const entry of this.connections()) {
        const key = JSON.stringify([entry.conn.workspaceId, entry.conn.userId]);
        const list = byPair.get(key) ?? [];
        list.push(entry);
        byPair.set(key, list);
      }
      await Promise.all([...byPair.entries()].map(async ([key, entries]) => {
        const [workspaceId, userId] = JSON.parse(key) as [string, string];
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
        for (const { room, conn } of entries) {
          countMetric("collab_membership_closed");
          try {
            conn.close(CloseCode.Forbidden, "Not a workspace member");
          } catch { /* already closed */ }
          room.leave(conn);
        }
      }));
    } finally {
      this.#sweeping = false;
    }
  }
}
