import * as decoding from "lib0/decoding";
import * as encoding from "lib0/encoding";
import * as awarenessProtocol from "y-protocols/awareness";
import * as syncProtocol from "y-protocols/sync";
import type * as Y from "yjs";

/**
 * The message types of the standard Yjs WebSocket protocol (the one `y-websocket` speaks):
 * every binary frame starts with one of these as a varuint.
 */
export const MESSAGE_SYNC = 0;
export const MESSAGE_AWARENESS = 1;
export const MESSAGE_AUTH = 2;
export const MESSAGE_QUERY_AWARENESS = 3;
/** This server's own type: an application event (comment broadcast) as a JSON string. */
export const MESSAGE_APP_EVENT = 100;

/** A binary frame carrying an application event's JSON, for sockets that speak Yjs. */
export function encodeAppEvent(json: string): Uint8Array {
  const encoder = encoding.createEncoder();
  encoding.writeVarUint(encoder, MESSAGE_APP_EVENT);
  encoding.writeVarString(encoder, json);
  return encoding.toUint8Array(encoder);
}

/**
 * Close codes the server uses once a socket is open (refusals before it opens are HTTP
 * statuses on the upgrade request). 44xx mirror the HTTP 4xx statuses, as Hocuspocus does, and
 * are final: y-websocket (3.x) does not reconnect after one. 45xx and the others are transient:
 * the provider reconnects and re-syncs, so nothing typed is lost.
 */
export const CloseCode = {
  /** the server is shutting down */
  GoingAway: 1001,
  /** storing an update failed; the client reconnects and re-syncs */
  InternalError: 1011,
  /** a frame that is not a valid Yjs protocol message */
  BadMessage: 4400,
  /** the account was disabled or rejected (re-checked every 2 s) */
  Unauthorized: 4401,
  /** the user is no longer a member of the post's workspace */
  Forbidden: 4403,
  /** the post (and its document) was deleted */
  NotFound: 4404,
  /**
   * the documents were replaced by a restore from a backup. Final: a reconnecting provider would
   * merge the text from before the restore back into the restored one.
   */
  Restored: 4409,
  /**
   * a frame over the frame limit (1 MiB), or an update that would take the document past its
   * text or byte limit; nothing of it was stored or forwarded. Final: the provider would send
   * the same content again on reconnect.
   */
  TooLarge: 4413,
  /** the user already has the most sockets open that one user may (across all posts) */
  TooManyConnections: 4429,
  /** nothing was received for the idle timeout (transient: a live client may reconnect) */
  Timeout: 4504,
  /**
   * frames arrived faster than the per-socket rate allows; transient, so the provider
   * reconnects (with its backoff) and sends what it had in one sync step 2
   */
  RateLimited: 4529,
} as const;
export type CloseCode = typeof CloseCode[keyof typeof CloseCode];

export function encodeSyncStep1(doc: Y.Doc): Uint8Array {
  const encoder = encoding.createEncoder();
  encoding.writeVarUint(encoder, MESSAGE_SYNC);
  syncProtocol.writeSyncStep1(encoder, doc);
  return encoding.toUint8Array(encoder);
}

export function encodeUpdate(update: Uint8Array): Uint8Array {
  const encoder = encoding.createEncoder();
  encoding.writeVarUint(encoder, MESSAGE_SYNC);
  syncProtocol.writeUpdate(encoder, update);
  return encoding.toUint8Array(encoder);
}

export function encodeAwareness(
  awareness: awarenessProtocol.Awareness,
  clients: number[],
): Uint8Array {
  const encoder = encoding.createEncoder();
  encoding.writeVarUint(encoder, MESSAGE_AWARENESS);
  encoding.writeVarUint8Array(
    encoder,
    awarenessProtocol.encodeAwarenessUpdate(awareness, clients),
  );
  return encoding.toUint8Array(encoder);
}

export { awarenessProtocol, decoding, encoding, syncProtocol };
