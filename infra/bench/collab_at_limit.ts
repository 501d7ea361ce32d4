/**
 * Load at the text limit, shared by `bench:collab --at-limit` and
 * tests/collab_at_limit_test.ts: a post's text filled to just under the limit as many separate
 * pieces (as text typed by several people is stored), writers that each, over and over, open a
 * socket as a fresh stock provider does (sync step 1 with an empty state vector, its awareness)
 * and send an insert that would take the text over the limit, so collab refuses it and closes
 * the socket (4413); meanwhile `GET /api/posts/{id}` is timed.
 */
import * as Y from "yjs";
import * as encoding from "lib0/encoding";

export interface AtLimitTarget {
  /** the gateway, http://host:port */
  url: string;
  postId: string;
  workspaceId: string;
}

/**
 * A sync frame (message type 0) of `step` (0: sync step 1, 1: sync step 2, 2: update)
 * carrying `payload`.
 */
function syncFrame(step: 0 | 1 | 2, payload: Uint8Array): Uint8Array {
  const encoder = encoding.createEncoder();
  encoding.writeVarUint(encoder, 0);
  encoding.writeVarUint(encoder, step);
  encoding.writeVarUint8Array(encoder, payload);
  return encoding.toUint8Array(encoder);
}

/** An awareness frame (message type 1) announcing `clientID` with an empty state. */
function awarenessFrame(clientID: number): Uint8Array {
  const inner = encoding.createEncoder();
  encoding.writeVarUint(inner, 1);
  encoding.writeVarUint(inner, clientID);
  encoding.writeVarUint(inner, 1);
  encoding.writeVarString(inner, "{}");
  const encoder = encoding.createEncoder();
  encoding.writeVarUint(encoder, 1);
  encoding.writeVarUint8Array(encoder, encoding.toUint8Array(inner));
  return encoding.toUint8Array(encoder);
}

function socketUrl(target: AtLimitTarget, ticket: string): string {
  const query = new URLSearchParams({
    ticket,
    docId: target.postId,
    workspaceId: target.workspaceId,
  });
  return `${target.url.replace(/^http/, "ws")}/ws?${query}`;
}

/**
 * Opens a socket, sends `frames` once it is open and answers the close code (0 when it did not
 * close within `timeoutMs`; the socket is then closed here).
 */
function sendAndAwaitClose(url: string, frames: Uint8Array[], timeoutMs: number): Promise<number> {
  return new Promise((resolve) => {
    const socket = new WebSocket(url);
    socket.binaryType = "arraybuffer";
    const timer = setTimeout(() => {
      socket.close();
      resolve(0);
    }, timeoutMs);
    socket.onopen = () => {
      for (const frame of frames) socket.send(frame);
    };
    // What the server sends (its sync step 1, the whole document) is not read.
    socket.onmessage = () => {};
    socket.onerror = () => {};
    socket.onclose = (e) => {
      clearTimeout(timer);
      resolve(e.code);
    };
  });
}

/**
 * Fills the post's text (assumed empty) with `chars` characters inserted as `pieces` pieces
 * at random places, in one update sent over a socket; resolves once collab has applied it.
 */
export async function fillText(
  target: AtLimitTarget,
  ticket: string,
  chars: number,
  pieces: number,
): Promise<void> {
  const doc = new Y.Doc();
  const text = doc.getText("content");
  const size = Math.floor(chars / pieces);
  let seed = 1;
  const random = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
  doc.transact(() => {
    for (let i = 0; i < pieces; i++) {
      const n = i === pieces - 1 ? chars - size * (pieces - 1) : size;
      text.insert(Math.floor(random() * (text.length + 1)), "f".repeat(n));
    }
  });
  const update = Y.encodeStateAsUpdate(doc);
  doc.destroy();
  await new Promise<void>((resolve, reject) => {
    const socket = new WebSocket(socketUrl(target, ticket));
    socket.binaryType = "arraybuffer";
    socket.onopen = () => {
      socket.send(syncFrame(2, update));
      // Frames are handled in order: the echo of this awareness comes after the update.
      socket.send(awarenessFrame(doc.clientID));
    };
    socket.onmessage = (e) => {
      if (new Uint8Array(e.data as ArrayBuffer)[0] !== 1) return;
      socket.close();
      resolve();
    };
    socket.onerror = () => reject(new Error("the filling socket failed"));
    socket.onclose = (e) => {
      if (e.code >= 4000) reject(new Error(`the filling socket was closed with ${e.code}`));
    };
  });
}

export interface RefusedWriters {
  /** refusals (4413) so far, per writer */
  readonly refused: number[];
  /** any other close code seen (0: no close within 10 s) */
  readonly otherCloses: number[];
  stop(): Promise<void>;
}

/**
 * Starts `count` writers; writer `i` takes its tickets from `ticket(i)` (one per socket) and,
 * until stopped, opens a socket, syncs from an empty document (its sync step 1, its
 * awareness, its sync step 2 answering collab's) and inserts `insertChars` characters, which
 * collab must refuse.
 */
export function startRefusedWriters(
  target: AtLimitTarget,
  count: number,
  ticket: (writer: number) => Promise<string>,
  insertChars = 1_000,
): RefusedWriters {
  let stopped = false;
  const refused = new Array<number>(count).fill(0);
  const otherCloses: number[] = [];
  const emptyVector = Y.encodeStateVector(new Y.Doc());
  const emptyUpdate = Y.encodeStateAsUpdate(new Y.Doc());
  const loops = refused.map(async (_, i) => {
    while (!stopped) {
      const doc = new Y.Doc();
      doc.getText("content").insert(0, "w".repeat(insertChars));
      const update = Y.encodeStateAsUpdate(doc);
      const code = await sendAndAwaitClose(
        socketUrl(target, await ticket(i)),
        [
          syncFrame(0, emptyVector),
          awarenessFrame(doc.clientID),
          syncFrame(1, emptyUpdate),
          syncFrame(2, update),
        ],
        10_000,
      );
      doc.destroy();
      if (code === 4413) refused[i]++;
      else otherCloses.push(code);
    }
  });
  return {
    refused,
    otherCloses,
    async stop() {
      stopped = true;
      await Promise.all(loops);
    },
  };
}

export interface ReadTimes {
  /** milliseconds per GET, in order */
  times: number[];
  /** the length of the text each GET answered (-1: not 200, or no answer within the bound) */
  lengths: number[];
}

/**
 * Times `GET /api/posts/{id}?workspaceId=` one after the other for `durationMs`; a GET not
 * answered within `boundMs` is given up (and counted at that time).
 */
export async function timeReads(
  target: AtLimitTarget,
  token: string,
  durationMs: number,
  boundMs: number,
): Promise<ReadTimes> {
  const times: number[] = [];
  const lengths: number[] = [];
  const end = Date.now() + durationMs;
  while (Date.now() < end) {
    const start = performance.now();
    try {
      const res = await fetch(
        `${target.url}/api/posts/${target.postId}?workspaceId=${target.workspaceId}`,
        { headers: { authorization: `Bearer ${token}` }, signal: AbortSignal.timeout(boundMs) },
      );
      const body = await res.json();
      lengths.push(res.status === 200 ? (body.content as string).length : -1);
    } catch {
      lengths.push(-1);
    }
    times.push(performance.now() - start);
    await new Promise((r) => setTimeout(r, 50));
  }
  return { times, lengths };
}

/** The `q` quantile of `values` (0 when empty). */
export function quantile(values: number[], q: number): number {
  const sorted = Float64Array.from(values).sort();
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
}
