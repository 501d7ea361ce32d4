import { countMetric } from "../../shared/service/metrics.ts";
import { type Connection, type ConnectionState, REMOTE, sendAll } from "./connection.ts";
import {
  type AwarenessEntry,
  type CollabLimits,
  decodeAwarenessEntries,
  encodeAwarenessEntries,
  isRemoval,
} from "./limits.ts";
import { awarenessProtocol, encodeAwareness } from "./protocol.ts";

/** The origin of the awareness removal made when a connection leaves. */
const LEAVE = Symbol("leave");

/** How long the id of a client that left stays reserved for its user (against stale echoes). */
const DEPARTED_RESERVE_MS = 60_000;

/**
 * Who may write which cursor in a room's awareness: each connection owns one client id, an
 * id owned on another instance stays its user's, and the id of a connection that left stays
 * reserved for its user a while. Every awareness change goes to every connection of the room.
 */
export class AwarenessOwners {
  /** awareness client id -> the connection that owns it */
  readonly #owners = new Map<number, Connection>();
  /** awareness client ids whose connection left: claimable again by the same user only */
  readonly #departed = new Map<number, { userId: string; at: number }>();
  /** awareness client ids whose state came from another instance -> their user */
  readonly #remote = new Map<number, string>();

  constructor(
    private readonly awareness: awarenessProtocol.Awareness,
    /** the room's connections (shared, not copied) */
    private readonly conns: Map<Connection, ConnectionState>,
    private readonly limits: CollabLimits,
    /**
     * Told each awareness change of this room's own connections (the entries applied, encoded
     * as y-protocols does, and the user they belong to), for the other instances.
     */
    private readonly publish?: (update: Uint8Array, userId: string) => void,
  ) {
    awareness.on("update", this.#onAwareness);
  }

  destroy(): void {
    this.awareness.off("update", this.#onAwareness);
  }

  /**
   * `conn` left the room (it is no longer among its connections): its client id is reserved
   * for its user a while, and its cursor disappears for everyone else.
   */
  release(conn: Connection, own: number | null): void {
    if (own === null || this.#owners.get(own) !== conn) return;
    this.#owners.delete(own);
    const now = Date.now();
    for (const [id, d] of this.#departed) {
      if (now - d.at > DEPARTED_RESERVE_MS) this.#departed.delete(id);
    }
    this.#departed.set(own, { userId: conn.userId, at: now });
    if (this.awareness.getStates().has(own)) {
      awarenessProtocol.removeAwarenessStates(this.awareness, [own], LEAVE);
      this.publish?.(awarenessProtocol.encodeAwarenessUpdate(this.awareness, [own]), conn.userId);
    }
  }

  /**
   * An awareness update from `conn`: only entries for the client id it owns are kept (a stock
   * provider also echoes every other client's changes back, and nobody may set or remove
   * someone else's cursor), a state over `maxAwarenessBytes` is dropped, and so is an update
   * beyond the socket's awareness rate.
   */
  receive(conn: Connection, state: ConnectionState, update: Uint8Array): void {
    const kept: AwarenessEntry[] = [];
    for (const entry of decodeAwarenessEntries(update)) {
      if (!this.#ownsClient(conn, state, entry)) continue;
      if (entry.json.byteLength > this.limits.maxAwarenessBytes) {
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
    this.publish?.(applied, conn.userId);
  }

  /** Tells the other instances, again, the state of every client id a connection here owns. */
  publishOwn(): void {
    if (!this.publish) return;
    const states = this.awareness.getStates();
    for (const [id, conn] of this.#owners) {
      if (!states.has(id)) continue;
      this.publish(awarenessProtocol.encodeAwarenessUpdate(this.awareness, [id]), conn.userId);
    }
  }

  /**
   * An awareness update another instance's connection made (`userId`'s): applied and forwarded
   * to this room's connections, except entries for client ids a connection here owns.
   */
  applyRemote(update: Uint8Array, userId: string): void {
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
    sendAll(this.conns, encodeAwareness(this.awareness, changed));
  };
}
