import assert from "node:assert/strict";
import * as Y from "yjs";
import { createLogger } from "../../shared/log.ts";
import { CollabHub, type HubOptions } from "./hub.ts";
import { CloseCode, decoding, MESSAGE_APP_EVENT, MESSAGE_SYNC } from "./protocol.ts";
import { DocStore } from "./store.ts";
import { awarenessFrame, connect, FakeClient, testHub } from "./testing.ts";

/**
 * Two hubs on one KV, as two instances sharing a database: each follows what the other
 * stores (by polling, or by `kv.watch`, which sees every writer of one `Deno.Kv` handle).
 */

const logger = createLogger("collab-instances-test");

async function withTwoHubs(
  fn: (a: CollabHub, b: CollabHub, store: DocStore) => Promise<void>,
  options: Partial<HubOptions> = {},
) {
  const kv = await Deno.openKv(":memory:");
  const hubs = [0, 1].map(() =>
    new CollabHub({
      store: new DocStore(kv),
      logger,
      compactAfter: 100,
      idleTimeoutMs: 30_000,
      graceMs: 0,
      membershipCheckMs: 60_000,
      isMember: () => Promise.resolve(true),
      followPollMs: 20,
      watch: false,
      ...options,
    })
  );
  for (const hub of hubs) hub.start();
  try {
    await fn(hubs[0], hubs[1], new DocStore(kv));
  } finally {
    for (const hub of hubs) await hub.close();
    kv.close();
  }
}

async function until(check: () => boolean, what: string, timeoutMs = 3_000) {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** How many sync update frames (type 0, step 2) a client received. */
function updateFrames(client: FakeClient): number {
  return client.received.filter((m) => {
    if (typeof m === "string") return false;
    const d = decoding.createDecoder(m);
    return decoding.readVarUint(d) === MESSAGE_SYNC && decoding.readVarUint(d) === 2;
  }).length;
}

function storedText(updates: Uint8Array[]): string {
  const doc = new Y.Doc();
  for (const u of updates) Y.applyUpdate(doc, u);
  return doc.getText("content").toString();
}

for (const mode of ["poll", "watch"] as const) {
  const options: Partial<HubOptions> = mode === "poll"
    ? { followPollMs: 20, watch: false }
    : { followPollMs: 0, watch: true };

  Deno.test(`instances (${mode}): concurrent typing on both converges, each update forwarded once`, () =>
    withTwoHubs(async (hubA, hubB, store) => {
      const a = new FakeClient("ua");
      const b = new FakeClient("ub");
      const watcher = new FakeClient("uc");
      const roomA = await connect(hubA, "p1", a);
      const roomB = await connect(hubB, "p1", b);
      await connect(hubA, "p1", watcher);
      const before = updateFrames(watcher);
      for (let i = 0; i < 30; i++) {
        a.doc.getText("content").insert(0, "a");
        b.doc.getText("content").insert(b.text.length, "b");
        await new Promise((r) => setTimeout(r, 2));
      }
      await until(() => a.text.length === 60 && b.text.length === 60, "both sides to converge");
      await until(() => watcher.text === a.text, "the watcher");
      assert.equal(a.text, b.text);
      await roomA.flush();
      await roomB.flush();
      const loaded = (await store.load("p1"))!;
      assert.equal(storedText(loaded.updates), a.text);
      // The watcher (on A) got every stored update once: A's own commits and B's, none twice.
      const seqs = loaded.head.seq;
      assert.equal(roomA.seq, seqs);
      await until(() => roomB.seq === seqs, "B to follow the last commit");
      assert.ok(
        updateFrames(watcher) - before <= seqs,
        `${updateFrames(watcher) - before} frames for ${seqs} stored updates`,
      );
    }, options));

  Deno.test(`instances (${mode}): cursors and comment events cross, and leave removes the cursor`, () =>
    withTwoHubs(async (hubA, hubB) => {
      const a = new FakeClient("ua");
      const roomA = await connect(hubA, "p1", a);
      roomA.receive(a, awarenessFrame([{ clientID: 100, clock: 1, state: { user: "A" } }]));
      // B opens the post later: A's cursor is already in the log.
      const b = new FakeClient("ub");
      const roomB = await connect(hubB, "p1", b);
      await until(() => roomB.awareness.getStates().has(100), "A's cursor on B");
      roomB.receive(b, awarenessFrame([{ clientID: 200, clock: 1, state: { user: "B" } }]));
      await until(() => roomA.awareness.getStates().has(200), "B's cursor on A");
      // B may not take A's client id.
      roomB.receive(b, awarenessFrame([{ clientID: 100, clock: 5, state: { user: "forged" } }]));
      roomB.receive(b, awarenessFrame([{ clientID: 200, clock: 2, state: { user: "B2" } }]));
      await until(
        () => (roomA.awareness.getStates().get(200) as { user: string }).user === "B2",
        "B2",
      );
      assert.deepEqual(roomA.awareness.getStates().get(100), { user: "A" });

      const event = { type: "comment", action: "created", postId: "p1", commentId: "c1" };
      assert.equal(await hubA.broadcast("p1", event), 1);
      const events = (c: FakeClient) =>
        c.received.filter((m) => {
          if (typeof m === "string") return false;
          return decoding.readVarUint(decoding.createDecoder(m)) === MESSAGE_APP_EVENT;
        });
      await until(() => events(b).length === 1, "the event on B");
      await new Promise((r) => setTimeout(r, 100));
      assert.equal(events(a).length, 1, "A's socket gets its own instance's event once");
      assert.equal(events(b).length, 1);

      roomA.leave(a);
      await until(() => !roomB.awareness.getStates().has(100), "A's cursor gone on B");
    }, options));
}

Deno.test("instances: a document deleted through one closes its sockets on the other", () =>
  withTwoHubs(async (hubA, hubB) => {
    const a = new FakeClient();
    const b = new FakeClient();
    await connect(hubA, "p1", a);
    const roomB = await connect(hubB, "p1", b);
    b.doc.getText("content").insert(0, "x");
    await roomB.flush();
    await hubA.deleteDoc("p1");
    await until(() => b.closed !== null, "B's socket to close");
    assert.equal(b.closed!.code, CloseCode.NotFound);
  }));

Deno.test("instances: both compact while both write, and nothing is lost", () =>
  withTwoHubs(async (hubA, hubB, store) => {
    const a = new FakeClient("ua");
    const b = new FakeClient("ub");
    const roomA = await connect(hubA, "p1", a);
    const roomB = await connect(hubB, "p1", b);
    for (let i = 0; i < 80; i++) {
      a.doc.getText("content").insert(0, "a");
      b.doc.getText("content").insert(b.text.length, "b");
      await new Promise((r) => setTimeout(r, 1));
    }
    await until(() => a.text.length === 160 && b.text.length === 160, "both sides to converge");
    await roomA.flush();
    await roomB.flush();
    const stats = (await store.stats("p1"))!;
    assert.ok(stats.compactions >= 2, `compactions: ${stats.compactions}`);
    assert.equal(storedText((await store.load("p1"))!.updates), a.text);
    // A client that connects now, to either, gets the whole text.
    const late = new FakeClient("ul");
    await connect(hubB, "p1", late);
    assert.equal(late.text, a.text);
  }, { compactAfter: 5 }));

/** A store that counts the reads of open documents' heads the follow poll makes. */
class CountingStore extends DocStore {
  headReads = 0;
  override followedHeads(postIds: string[]) {
    this.headReads++;
    return super.followedHeads(postIds);
  }
}

Deno.test("instances: one alone on its KV reads no document heads at its polls, and follows once another registers", async () => {
  const kv = await Deno.openKv(":memory:");
  const hub = (store: DocStore) => testHub(store, { followPollMs: 10, watch: false });
  const storeA = new CountingStore(kv);
  const hubA = hub(storeA);
  await hubA.start();
  let hubB: CollabHub | null = null;
  try {
    const a = new FakeClient("ua");
    const roomA = await connect(hubA, "p1", a);
    a.doc.getText("content").insert(0, "a");
    await roomA.flush();
    const afterLoad = storeA.headReads;
    await new Promise((r) => setTimeout(r, 200));
    assert.equal(storeA.headReads, afterLoad, "no head reads while alone");

    hubB = hub(new DocStore(kv));
    await hubB.start();
    const b = new FakeClient("ub");
    const roomB = await connect(hubB, "p1", b);
    b.doc.getText("content").insert(1, "b");
    await roomB.flush();
    await until(() => a.text === "ab", "B's update on A");
    assert.ok(storeA.headReads > afterLoad);

    // B's last update, stored just before it goes, still reaches A; then A reads no heads.
    b.doc.getText("content").insert(2, "!");
    await hubB.close();
    hubB = null;
    await until(() => a.text === "ab!", "B's last update on A");
    await new Promise((r) => setTimeout(r, 50));
    const settled = storeA.headReads;
    await new Promise((r) => setTimeout(r, 200));
    assert.equal(storeA.headReads, settled, "no head reads once alone again");
  } finally {
    await hubB?.close();
    await hubA.close();
    kv.close();
  }
});

Deno.test("instances: one alone on its KV stores no cursors, and tells them to another once that one registers", async () => {
  const kv = await Deno.openKv(":memory:");
  const hub = () => testHub(new DocStore(kv), { followPollMs: 10, watch: false });
  const store = new DocStore(kv);
  const signalSeq = async () => (await store.followedHeads(["p1"])).get("p1")!.signalSeq;
  const hubA = hub();
  await hubA.start();
  let hubB: CollabHub | null = null;
  try {
    const a = new FakeClient("ua");
    const roomA = await connect(hubA, "p1", a);
    // A few polls: A finds itself alone.
    await new Promise((r) => setTimeout(r, 60));
    roomA.receive(a, awarenessFrame([{ clientID: 100, clock: 1, state: { user: "A" } }]));
    roomA.receive(a, awarenessFrame([{ clientID: 100, clock: 2, state: { user: "A2" } }]));
    await new Promise((r) => setTimeout(r, 60));
    assert.equal(await signalSeq(), 0, "no cursor stored while alone");
    assert.deepEqual(roomA.awareness.getStates().get(100), { user: "A2" });

    hubB = hub();
    await hubB.start();
    const b = new FakeClient("ub");
    const roomB = await connect(hubB, "p1", b);
    await until(() => roomB.awareness.getStates().has(100), "A's cursor on B");
    assert.deepEqual(roomB.awareness.getStates().get(100), { user: "A2" });
    // And from then on each change crosses as it is made.
    roomA.receive(a, awarenessFrame([{ clientID: 100, clock: 3, state: { user: "A3" } }]));
    await until(
      () => (roomB.awareness.getStates().get(100) as { user: string }).user === "A3",
      "A3 on B",
    );
  } finally {
    await hubB?.close();
    await hubA.close();
    kv.close();
  }
});
