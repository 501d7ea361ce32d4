import assert from "node:assert/strict";
import * as Y from "yjs";
import { CloseCode } from "./protocol.ts";
import { awarenessFrame, closeCode, connect, FakeClient, withHub } from "./testing.ts";

Deno.test("a frame over the frame limit closes its socket with 4413 and is not applied", () =>
  withHub(async (hub, store) => {
    const a = new FakeClient();
    const b = new FakeClient();
    const room = await connect(hub, "p1", a);
    await connect(hub, "p1", b);
    const before = b.received.length;
    a.doc.getText("content").insert(0, "x".repeat(3_000));
    await room.flush();
    assert.equal(closeCode(a), CloseCode.TooLarge);
    assert.equal(room.text(), "");
    assert.equal(b.received.length, before, "nothing forwarded");
    assert.equal(await store.load("p1"), null, "nothing stored");
    assert.equal(room.size, 1);
  }, { limits: { maxFrameBytes: 2_000 } }));

Deno.test("an update past the text limit is refused and the others keep their text", () =>
  withHub(async (hub, store) => {
    const a = new FakeClient();
    const b = new FakeClient();
    const room = await connect(hub, "p1", a);
    await connect(hub, "p1", b);
    a.doc.getText("content").insert(0, "a".repeat(60));
    await room.flush();
    assert.equal(b.text, "a".repeat(60));
    a.doc.getText("content").insert(60, "b".repeat(50));
    await room.flush();
    assert.equal(closeCode(a), CloseCode.TooLarge);
    assert.match(a.closed!.reason, /100 characters/);
    assert.equal(room.text(), "a".repeat(60));
    assert.equal(b.text, "a".repeat(60));
    // The others go on editing, deletions and small inserts alike.
    b.doc.getText("content").delete(0, 20);
    b.doc.getText("content").insert(0, "c".repeat(55));
    await room.flush();
    assert.equal(b.closed, null);
    assert.equal(room.text(), "c".repeat(55) + "a".repeat(40));
    const doc = new Y.Doc();
    for (const u of (await store.load("p1"))!.updates) Y.applyUpdate(doc, u);
    assert.equal(doc.getText("content").toString(), room.text());
  }, { limits: { maxTextChars: 100 } }));

Deno.test("an update past the document byte limit is refused", () =>
  withHub(async (hub) => {
    const a = new FakeClient();
    const room = await connect(hub, "p1", a);
    a.doc.getMap("meta").set("small", "x".repeat(500));
    await room.flush();
    assert.equal(a.closed, null);
    a.doc.getMap("meta").set("big", "y".repeat(3_000));
    await room.flush();
    assert.equal(closeCode(a), CloseCode.TooLarge);
    assert.equal(room.doc.getMap("meta").get("big"), undefined);
  }, { limits: { maxDocBytes: 2_000 } }));

Deno.test("a client sets only its own awareness entry, within the size limit", () =>
  withHub(async (hub) => {
    const a = new FakeClient("ua");
    const b = new FakeClient("ub");
    const room = await connect(hub, "p1", a);
    await connect(hub, "p1", b);
    room.receive(b, awarenessFrame([{ clientID: 200, clock: 1, state: { user: "B" } }]));
    // a's first entry names b's client: not a's to take.
    room.receive(a, awarenessFrame([{ clientID: 200, clock: 9, state: { user: "forged" } }]));
    room.receive(a, awarenessFrame([{ clientID: 100, clock: 1, state: { user: "A" } }]));
    room.receive(
      a,
      awarenessFrame([
        { clientID: 200, clock: 10, state: null },
        { clientID: 300, clock: 1, state: { user: "ghost" } },
        { clientID: 100, clock: 2, state: { user: "A2" } },
      ]),
    );
    const states = room.awareness.getStates();
    assert.deepEqual(states.get(200), { user: "B" });
    assert.deepEqual(states.get(100), { user: "A2" });
    assert.equal(states.has(300), false);
    // An oversized state is dropped; the previous one stays.
    room.receive(a, awarenessFrame([{ clientID: 100, clock: 3, state: { n: "z".repeat(9_000) } }]));
    assert.deepEqual(room.awareness.getStates().get(100), { user: "A2" });
    assert.equal(a.closed, null);
    // Its owner leaving removes the state; its id is not another user's to claim afterwards.
    room.leave(b);
    assert.equal(room.awareness.getStates().has(200), false);
    const c = new FakeClient("uc");
    await connect(hub, "p1", c);
    room.receive(c, awarenessFrame([{ clientID: 200, clock: 11, state: { user: "C" } }]));
    assert.equal(room.awareness.getStates().has(200), false);
  }));

Deno.test("awareness over its rate is dropped; frames over theirs close with 4529", () =>
  withHub(async (hub) => {
    const a = new FakeClient();
    const room = await connect(hub, "p1", a);
    for (let clock = 1; clock <= 10; clock++) {
      room.receive(a, awarenessFrame([{ clientID: 100, clock, state: { clock } }]));
    }
    assert.deepEqual(room.awareness.getStates().get(100), { clock: 5 });
    assert.equal(a.closed, null);
    for (let i = 0; i < 40 && !a.closed; i++) room.receiveText(a, 2);
    assert.equal(closeCode(a), CloseCode.RateLimited);
  }, { limits: { awarenessPerSecond: 5, framesPerSecond: 10 } }));

Deno.test("a user holds at most the per-user number of sockets", () =>
  withHub((hub) => {
    for (let i = 0; i < 3; i++) assert.equal(hub.reserveSocket("u1"), true);
    assert.equal(hub.reserveSocket("u1"), false);
    assert.equal(hub.reserveSocket("u2"), true);
    hub.releaseSocket("u1");
    assert.equal(hub.reserveSocket("u1"), true);
    return Promise.resolve();
  }, { limits: { maxConnectionsPerUser: 3 } }));
