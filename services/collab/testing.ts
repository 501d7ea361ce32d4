import * as Y from "yjs";
import { createLogger } from "../../shared/log.ts";
import { CollabHub, type HubOptions } from "./hub.ts";
import { decoding, encoding, MESSAGE_AWARENESS, MESSAGE_SYNC, syncProtocol } from "./protocol.ts";
import type { Connection } from "./room.ts";
import { DocStore } from "./store.ts";

/**
 * Test helpers for the collab core: a hub on an in-memory KV, and a fake in-process client
 * speaking the Yjs protocol.
 */

const logger = createLogger("collab-test");

/** A hub on `store` with test defaults (no grace period, every user a member), `options` over them. */
export function testHub(store: DocStore, options: Partial<HubOptions> = {}): CollabHub {
  return new CollabHub({
    store,
    logger,
    compactAfter: 100,
    idleTimeoutMs: 30_000,
    graceMs: 0,
    membershipCheckMs: 60_000,
    isMember: () => Promise.resolve(true),
    ...options,
  });
}

/** Runs `fn` against a started hub (with `options` over test defaults) on an in-memory KV. */
export async function withHub(
  fn: (hub: CollabHub, store: DocStore) => Promise<void>,
  options: Partial<HubOptions> = {},
) {
  const kv = await Deno.openKv(":memory:");
  const store = new DocStore(kv);
  const hub = testHub(store, options);
  hub.start();
  try {
    await fn(hub, store);
  } finally {
    await hub.close();
    kv.close();
  }
}

let nextId = 0;

/** A client speaking the protocol as y-websocket does, over a fake in-process connection. */
export class FakeClient implements Connection {
  readonly id = `c${++nextId}`;
  readonly doc = new Y.Doc();
  readonly received: (Uint8Array | string)[] = [];
  closed: { code: number; reason: string } | null = null;
  onSend: (data: Uint8Array) => void = () => {};

  constructor(
    readonly userId = "u1",
    readonly workspaceId = "w1",
    readonly sessionId: string | null = null,
  ) {
    this.doc.on("update", (update: Uint8Array, origin: unknown) => {
      if (origin === this) return;
      const encoder = encoding.createEncoder();
      encoding.writeVarUint(encoder, MESSAGE_SYNC);
      syncProtocol.writeUpdate(encoder, update);
      this.onSend(encoding.toUint8Array(encoder));
    });
  }

  /** The server sends to us. */
  send(data: Uint8Array | string): void {
    this.received.push(data);
    if (typeof data === "string") return;
    const decoder = decoding.createDecoder(data);
    if (decoding.readVarUint(decoder) !== MESSAGE_SYNC) return;
    const encoder = encoding.createEncoder();
    encoding.writeVarUint(encoder, MESSAGE_SYNC);
    syncProtocol.readSyncMessage(decoder, encoder, this.doc, this);
    if (encoding.length(encoder) > 1) this.onSend(encoding.toUint8Array(encoder));
  }

  close(code: number, reason: string): void {
    this.closed ??= { code, reason };
  }

  get text(): string {
    return this.doc.getText("content").toString();
  }
}

/** Joins `client` to the post's room and sends its sync step 1. */
export async function connect(hub: CollabHub, postId: string, client: FakeClient) {
  const room = await hub.acquire(postId, client.workspaceId);
  client.onSend = (data) => room.receive(client, data);
  room.join(client);
  // The client's own sync step 1, as y-websocket sends on open.
  const encoder = encoding.createEncoder();
  encoding.writeVarUint(encoder, MESSAGE_SYNC);
  syncProtocol.writeSyncStep1(encoder, client.doc);
  room.receive(client, encoding.toUint8Array(encoder));
  return room;
}

/** An awareness frame as a provider sends it. */
export function awarenessFrame(entries: { clientID: number; clock: number; state: unknown }[]) {
  const inner = encoding.createEncoder();
  encoding.writeVarUint(inner, entries.length);
  for (const e of entries) {
    encoding.writeVarUint(inner, e.clientID);
    encoding.writeVarUint(inner, e.clock);
    encoding.writeVarString(inner, JSON.stringify(e.state));
  }
  const encoder = encoding.createEncoder();
  encoding.writeVarUint(encoder, MESSAGE_AWARENESS);
  encoding.writeVarUint8Array(encoder, encoding.toUint8Array(inner));
  return encoding.toUint8Array(encoder);
}

/** The close a client got (read through a call, which the type checker does not narrow). */
export const closeCode = (c: FakeClient): number | undefined => c.closed?.code;
