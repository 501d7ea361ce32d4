import type { RateBucket } from "./limits.ts";
import type { CloseCode } from "./protocol.ts";

/**
 * One open socket as the core sees it: the transport (Deno's WebSocket, or a fake in tests)
 * stays outside, behind send and close.
 */
export interface Connection {
  readonly id: string;
  readonly userId: string;
  readonly workspaceId: string;
  /**
   * The sign-in session whose ticket opened it (null or absent: none known); a session that
   * ends (logout, a password reset) closes its sockets at the next re-check.
   */
  readonly sessionId?: string | null;
  send(data: Uint8Array | string): void;
  close(code: CloseCode, reason: string): void;
}

/**
 * The origin of changes another instance stored (or sent): applied, forwarded, never stored.
 * (A change a connection made has that connection as its origin.)
 */
export const REMOTE = Symbol("remote");

/** What a room keeps of each of its connections. */
export interface ConnectionState {
  /**
   * The awareness client id this connection owns: the first one it announced with a state
   * that no other connection owned. Its entries for any other id are dropped.
   */
  own: number | null;
  lastSeen: number;
  /** whether it has sent a Yjs protocol message (a y-websocket provider does on open) */
  speaksYjs: boolean;
  /** when it joined the room (ms since the epoch) */
  joinedAt: number;
  /**
   * Application events that reached it before it showed what it speaks, in order; null once
   * it has (its first frame) or once the hold after joining is over. A stock provider sends its
   * sync step 1 on open, but an event can come first: sent as text, it would make it throw.
   */
  held: string[] | null;
  /** releases `held` as text when the hold ends with the socket still silent */
  holdTimer?: ReturnType<typeof setTimeout>;
  /** every frame it sends */
  frames: RateBucket;
  /** awareness updates of its own state */
  awareness: RateBucket;
}

/** Sends `data` to every connection of `conns`. */
export function sendAll(conns: Map<Connection, ConnectionState>, data: Uint8Array): void {
  for (const conn of conns.keys()) safeSend(conn, data);
}

export function safeSend(conn: Connection, data: Uint8Array | string): void {
  try {
    conn.send(data);
  } catch {
    // A socket that is closing; its close handler removes it.
  }
}
