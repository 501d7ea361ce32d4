import assert from "node:assert/strict";
import * as Y from "yjs";
import {
  CloseCode,
  decoding,
  encoding,
  MESSAGE_APP_EVENT,
  MESSAGE_AWARENESS,
  MESSAGE_SYNC,
  syncProtocol,
} from "./protocol.ts";
import { EVENT_HOLD_MS } from "./room.ts";
import { awarenessFrame, connect, FakeClient, withHub } from "./testing.ts";

Deno.test("two clients editing at once converge, and the stored document has both edits", () =>
  withHub(async (hub, store) => {
    const a = new FakeClient();
    const b = new FakeClient();
    const room = await connect(hub, "p1", a);
    await connect(hub, "p1", b);
    for (let i = 0; i < 20; i++) {
      a.doc.getText("content").insert(0, "a");
      b.doc.getText("content").insert(b.text.length, "b");
    }
    await room.flush();
    assert.equal(a.text, b.text);
    assert.equal(a.text.length, 40);
    const loaded = await store.load("p1");
    const doc = new Y.Doc();
    for (const u of loaded!.updates) Y.applyUpdate(doc, u);
    assert.equal(doc.getText("content").toString(), a.text);
  }));

Deno.test("an update is stored before it is forwarded to the other clients", () =>
  withHub(async (hub, store) => {
    const a = new FakeClient();
    const b = new FakeClient();
    const room = await connect(hub, "p1", a);
    await connect(hub, "p1", b);
    let storedBeforeForward = false;
    b.doc.on("update", () => {
      storedBeforeForward = true;
    });
    const original = store.append.bind(store);
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    store.append = async (...args) => {
      await gate;
      return await original(...args);
    };
    a.doc.getText("content").insert(0, "hello");
    await new Promise((r) => setTimeout(r, 30));
    assert.equal(b.text, "", "forwarded before it was stored");
    release();
    await room.flush();
    assert.equal(b.text, "hello");
    assert.ok(storedBeforeForward);
    assert.equal((await store.getHead("p1"))!.seq, 1);
  }));

Deno.test("more than the threshold of stored updates is compacted and every character kept", () =>
  withHub(async (hub, store) => {
    const a = new FakeClient();
    const room = await connect(hub, "p1", a);
    let expected = "";
    for (let i = 0; i < 25; i++) {
      a.doc.getText("content").insert(a.text.length, `${i};`);
      expected += `${i};`;
      await room.flush();
    }
    const stats = await store.stats("p1");
    assert.ok(stats!.compactions >= 2, `compactions: ${stats!.compactions}`);
    assert.ok(stats!.stored_updates <= 10);
    assert.equal(await hub.content("p1"), expected);
    const loaded = await store.load("p1");
    const doc = new Y.Doc();
    for (const u of loaded!.updates) Y.applyUpdate(doc, u);
    assert.equal(doc.getText("content").toString(), expected);
  }, { compactAfter: 10 }));

Deno.test("replacing the text reaches connected clients as one update and is stored", () =>
  withHub(async (hub, store) => {
    const a = new FakeClient();
    const room = await connect(hub, "p1", a);
    a.doc.getText("content").insert(0, "Hello world, this is a post");
    await room.flush();
    const before = a.received.length;
    await hub.setContent("p1", "w1", "Hello brave world, this is a post 😀");
    assert.equal(a.text, "Hello brave world, this is a post 😀");
    assert.equal(a.received.length, before + 1);
    assert.equal(await hub.content("p1"), a.text);
    await hub.setContent("p1", "w1", "Hello brave world, this is a post 😁");
    assert.equal(a.text, "Hello brave world, this is a post 😁");
    assert.equal((await store.getHead("p1"))!.workspace_id, "w1");
    assert.deepEqual(await hub.contents(["p1", "nope"]), { p1: a.text });
  }));

Deno.test("setting the content of a post with no document creates it", () =>
  withHub(async (hub) => {
    assert.equal(await hub.content("fresh"), null);
    await hub.setContent("fresh", "w1", "first text");
    assert.equal(await hub.content("fresh"), "first text");
  }));

Deno.test("a JSON broadcast reaches every connection of the post only", () =>
  withHub(async (hub) => {
    const a = new FakeClient();
    const b = new FakeClient();
    const plain = new FakeClient();
    const other = new FakeClient();
    await connect(hub, "p1", a);
    await connect(hub, "p1", b);
    const room = await hub.acquire("p1", plain.workspaceId);
    room.join(plain);
    room.receiveText(plain, 4); // a plain socket: its first frame is text, never Yjs
    await connect(hub, "p2", other);
    const event = { type: "comment", action: "created", postId: "p1", commentId: "c1" };
    assert.equal(await hub.broadcast("p1", event), 3);
    // A plain socket gets JSON text...
    assert.deepEqual(JSON.parse(plain.received.at(-1) as string), event);
    // ...a Yjs client the same JSON in a binary frame of the app-event type, never text.
    for (const c of [a, b]) {
      assert.ok(c.received.every((m) => typeof m !== "string"));
      const decoder = decoding.createDecoder(c.received.at(-1) as Uint8Array);
      assert.equal(decoding.readVarUint(decoder), MESSAGE_APP_EVENT);
      assert.deepEqual(JSON.parse(decoding.readVarString(decoder)), event);
    }
    assert.ok(other.received.every((m) => typeof m !== "string"));
  }));

Deno.test(
  "an event that reaches a socket before its first frame waits to learn what the socket speaks",
  () =>
    withHub(async (hub) => {
      const provider = new FakeClient();
      const listener = new FakeClient();
      const room = await hub.acquire("p1", provider.workspaceId);
      provider.onSend = (data) => room.receive(provider, data);
      room.join(provider);
      room.join(listener);
      const event = { type: "comment", action: "created", postId: "p1", commentId: "c1" };
      assert.equal(await hub.broadcast("p1", event), 2);
      // Neither has said what it speaks yet: nothing is sent to either.
      for (const c of [provider, listener]) {
        assert.ok(c.received.every((m) => typeof m !== "string"));
      }
      // The provider's sync step 1 arrives: the event follows as a binary app-event frame.
      const step1 = encoding.createEncoder();
      encoding.writeVarUint(step1, MESSAGE_SYNC);
      syncProtocol.writeSyncStep1(step1, provider.doc);
      room.receive(provider, encoding.toUint8Array(step1));
      const frames = provider.received.filter((m) =>
        m instanceof Uint8Array && decoding.readVarUint(decoding.createDecoder(m)) ===
          MESSAGE_APP_EVENT
      ) as Uint8Array[];
      assert.ok(provider.received.every((m) => typeof m !== "string"));
      assert.equal(frames.length, 1);
      const decoder = decoding.createDecoder(frames[0]);
      decoding.readVarUint(decoder);
      assert.deepEqual(JSON.parse(decoding.readVarString(decoder)), event);
      // The listener stays silent: it gets the event as JSON text when the hold ends.
      await new Promise((r) => setTimeout(r, EVENT_HOLD_MS + 100));
      assert.deepEqual(listener.received.filter((m) => typeof m === "string"), [
        JSON.stringify(event),
      ]);
    }),
);

Deno.test("a malformed frame closes only its own connection", () =>
  withHub(async (hub) => {
    const a = new FakeClient();
    const room = await connect(hub, "p1", a);
    room.receive(a, new Uint8Array([MESSAGE_SYNC, 2, 3, 200, 200, 200]));
    assert.equal(await hub.content("p1"), "");
    assert.equal(a.closed?.code, CloseCode.BadMessage);
  }));

Deno.test("a document survives its room being dropped and loaded again", () =>
  withHub(async (hub) => {
    const a = new FakeClient();
    const room = await connect(hub, "p1", a);
    a.doc.getText("content").insert(0, "kept");
    await room.flush();
    room.leave(a);
    hub.release("p1");
    await new Promise((r) => setTimeout(r, 20));
    assert.equal(hub.liveRoom("p1"), null);
    const b = new FakeClient();
    await connect(hub, "p1", b);
    assert.equal(b.text, "kept");
  }));

// ---------------------------------------------------------------- upgrade refusals

Deno.test("a cursor not renewed for 30 s is removed, and the other clients are told", () =>
  withHub(async (hub) => {
    const a = new FakeClient();
    const b = new FakeClient();
    const room = await connect(hub, "p1", a);
    await connect(hub, "p1", b);
    room.receive(a, awarenessFrame([{ clientID: 100, clock: 1, state: { user: "A" } }]));
    const awarenessFrames = () =>
      b.received.filter((m) =>
        typeof m !== "string" &&
        decoding.readVarUint(decoding.createDecoder(m)) === MESSAGE_AWARENESS
      ).length;
    const before = awarenessFrames();
    room.expireAwareness(Date.now() + 29_000);
    assert.ok(room.awareness.getStates().has(100), "still within 30 s");
    room.expireAwareness(Date.now() + 30_500);
    assert.ok(!room.awareness.getStates().has(100));
    assert.equal(awarenessFrames(), before + 1);
  }));
