import { decoding, encoding } from "./protocol.ts";

/**
 * What one socket, one user and one document may use. The frame limit matches the REST body
 * limit; the text limit leaves ample room over a LinkedIn post (3000 characters) or article.
 */
export interface CollabLimits {
  /** a binary or text frame over this many bytes closes the socket (4413), unread */
  maxFrameBytes: number;
  /** an update that would take the `content` text over this many characters is refused (4413) */
  maxTextChars: number;
  /** an update that would take the encoded document over this many bytes is refused (4413) */
  maxDocBytes: number;
  /** open sockets one user may hold across every post; the next one is closed (4429) */
  maxConnectionsPerUser: number;
  /** an awareness state (its JSON) over this many bytes is dropped */
  maxAwarenessBytes: number;
  /** awareness updates a socket may make per second (as a burst too); the excess is dropped */
  awarenessPerSecond: number;
  /** frames of any kind a socket may send per second (bursts of twice that); beyond: 4529 */
  framesPerSecond: number;
}

export const DEFAULT_LIMITS: CollabLimits = {
  maxFrameBytes: 1024 * 1024,
  maxTextChars: 200_000,
  maxDocBytes: 4 * 1024 * 1024,
  maxConnectionsPerUser: 20,
  maxAwarenessBytes: 8 * 1024,
  awarenessPerSecond: 30,
  framesPerSecond: 1_000,
};

/** A token bucket: `perSecond` tokens a second, holding at most `burst`. */
export class RateBucket {
  #tokens: number;
  #at: number;

  constructor(
    readonly perSecond: number,
    readonly burst: number,
    now: number = Date.now(),
  ) {
    this.#tokens = burst;
    this.#at = now;
  }

  /** Takes one token; false when there is none left (the event is over the rate). */
  take(now: number = Date.now()): boolean {
    if (now > this.#at) {
      this.#tokens = Math.min(this.burst, this.#tokens + (now - this.#at) * this.perSecond / 1000);
      this.#at = now;
    }
    if (this.#tokens < 1) return false;
    this.#tokens -= 1;
    return true;
  }
}

/** One entry of an awareness update: a client's state as the JSON bytes it was sent in. */
export interface AwarenessEntry {
  clientID: number;
  clock: number;
  /** the state's JSON, UTF-8 (`null` when the client removes its state) */
  json: Uint8Array;
}

const NULL_JSON = new TextEncoder().encode("null");

/** Whether an entry removes its client's state (y-protocols sends the JSON `null`). */
export function isRemoval(entry: AwarenessEntry): boolean {
  const j = entry.json;
  return j.byteLength === NULL_JSON.byteLength && j.every((b, i) => b === NULL_JSON[i]);
}

/**
 * Reads an awareness update (y-protocols' encoding: a count, then per client its id, clock and
 * state as a varString) without parsing the states' JSON.
 */
export function decodeAwarenessEntries(update: Uint8Array): AwarenessEntry[] {
  const decoder = decoding.createDecoder(update);
  const count = decoding.readVarUint(decoder);
  const entries: AwarenessEntry[] = [];
  for (let i = 0; i < count; i++) {
    const clientID = decoding.readVarUint(decoder);
    const clock = decoding.readVarUint(decoder);
    // A varString is a varUint8Array of its UTF-8 bytes.
    const json = decoding.readVarUint8Array(decoder);
    entries.push({ clientID, clock, json });
  }
  return entries;
}

export function encodeAwarenessEntries(entries: AwarenessEntry[]): Uint8Array {
  const encoder = encoding.createEncoder();
  encoding.writeVarUint(encoder, entries.length);
  for (const e of entries) {
    encoding.writeVarUint(encoder, e.clientID);
    encoding.writeVarUint(encoder, e.clock);
    encoding.writeVarUint8Array(encoder, e.json);
  }
  return encoding.toUint8Array(encoder);
}
