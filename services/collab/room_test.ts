import assert from "node:assert/strict";
import * as Y from "yjs";
import { createLogger } from "../../shared/log.ts";
import { CollabHub } from "./hub.ts";
import { CloseCode, decoding, MESSAGE_APP_EVENT, MESSAGE_SYNC } from "./protocol.ts";
import { DocStore } from "./store.ts";
import { awarenessFrame, connect, FakeClient } from "./testing.ts";
import { createWsHandler, type WsAccess } from "./websocket.ts";

const logger = createLogger("collab-test");

async function withHub(
  fn: (hub: CollabHub, store: DocStore) => Promise<void>,
  options: Partial<ConstructorParameters<typeof CollabHub>[0]> = {},
) {
  const kv = await Deno.openKv(":memory:");
  const store = new DocStore(kv);
  const hub = new CollabHub({
    store,
    logger,
    compactAfter: 100,
    idleTimeoutMs: 30_000,
    graceMs: 0,
    membershipCheckMs: 60_000,
    isMember: () => Promise.resolve(true),
    ...options,
  });
  hub.start();
  try {
    await fn(hub, store);
  } finally {
    await hub.close();
    kv.close();
  }
}

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
    (await hub.acquire("p1", plain.workspaceId)).join(plain); // never speaks Yjs
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

Deno.test("a member removed from the workspace has their sockets closed by the re-check", () => {
  const members = new Set(["u1", "u2"]);
  let checks = 0;
  return withHub(async (hub) => {
    const a = new FakeClient("u1");
    const a2 = new FakeClient("u1");
    const b = new FakeClient("u2");
    for (const c of [a, a2, b]) await connect(hub, "p1", c);
    members.delete("u1");
    await new Promise((r) => setTimeout(r, 150));
    assert.equal(a.closed?.code, CloseCode.Forbidden);
    assert.equal(a2.closed?.code, CloseCode.Forbidden);
    assert.equal(b.closed, null);
    assert.equal(hub.liveRoom("p1")!.size, 1);
    assert.ok(checks >= 2);
  }, {
    membershipCheckMs: 50,
    isMember: (_ws, user) => {
      checks++;
      return Promise.resolve(members.has(user));
    },
  });
});

Deno.test("a connection silent for the idle timeout is closed; an active one is kept", () =>
  withHub(async (hub) => {
    const quiet = new FakeClient();
    const chatty = new FakeClient();
    const room = await connect(hub, "p1", quiet);
    await connect(hub, "p1", chatty);
    for (let i = 0; i < 8; i++) {
      await new Promise((r) => setTimeout(r, 40));
      room.touch(chatty);
    }
    assert.equal(quiet.closed?.code, CloseCode.Timeout);
    assert.equal(chatty.closed, null);
  }, { idleTimeoutMs: 150 }));

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

function access(overrides: Partial<WsAccess> = {}): WsAccess {
  return {
    verifyTicket: (t) =>
      Promise.resolve(
        t === "good"
          ? { user_id: "u1", expires_at: new Date(Date.now() + 60_000).toISOString() }
          : t === "expired"
          ? { user_id: "u1", expires_at: new Date(Date.now() - 1).toISOString() }
          : t === "disabled"
          ? { user_id: "u-disabled", expires_at: new Date(Date.now() + 60_000).toISOString() }
          : null,
      ),
    isActive: (user) => Promise.resolve(user !== "u-disabled"),
    membership: (ws, user) =>
      Promise.resolve({
        role: ws === "w1" && user === "u1" ? "viewer" : ws === "gone" ? "owner" : null,
        workspace_status: ws === "gone" ? "deleted" : ws === "w1" ? "active" : null,
      }),
    docWorkspace: (id) => Promise.resolve(id === "p1" ? "w1" : null),
    ...overrides,
  };
}

const SECRET = "collab-test-secret-0123456789";

function upgradeRequest(query: string, secret: string | null = SECRET): Request {
  const headers = new Headers({ upgrade: "websocket", connection: "Upgrade" });
  if (secret !== null) headers.set("x-cp-internal", secret);
  return new Request(`http://collab.internal/ws?${query}`, { headers });
}

Deno.test("the upgrade is refused with an HTTP status before any socket opens", () =>
  withHub(async (hub) => {
    const handle = createWsHandler({
      hub,
      access: access(),
      logger,
      pingSeconds: 30,
      internalSecret: SECRET,
    });
    const cases: [string, number, string][] = [
      ["ticket=bad&docId=p1&workspaceId=w1", 401, "Invalid or expired ticket"],
      ["ticket=disabled&docId=p1&workspaceId=w1", 401, "Invalid or expired ticket"],
      ["ticket=expired&docId=p1&workspaceId=w1", 401, "Invalid or expired ticket"],
      ["docId=p1&workspaceId=w1", 400, "ticket is required"],
      [
        `ticket=good&docId=${"x".repeat(300)}&workspaceId=w1`,
        400,
        "docId must be at most 200 characters",
      ],
      ["ticket=good&docId=p1&workspaceId=w2", 403, "Not a workspace member"],
      ["ticket=good&docId=p1&workspaceId=gone", 404, "Workspace not found"],
      ["ticket=good&docId=p2&workspaceId=w1", 404, "Post not found"],
    ];
    for (const [query, status, error] of cases) {
      const res = await handle(upgradeRequest(query));
      assert.equal(res.status, status, query);
      assert.deepEqual(await res.json(), { error }, query);
    }
    const plain = await handle(
      new Request("http://collab.internal/ws?ticket=good", {
        headers: { "x-cp-internal": SECRET },
      }),
    );
    assert.equal(plain.status, 426);
    await plain.body?.cancel();
  }));

Deno.test("item 15: an upgrade without the internal secret is refused before the ticket is read", () =>
  withHub(async (hub) => {
    let asked = 0;
    const handle = createWsHandler({
      hub,
      logger,
      pingSeconds: 30,
      internalSecret: SECRET,
      access: access({
        verifyTicket: () => {
          asked++;
          return Promise.resolve(null);
        },
      }),
    });
    for (const secret of [null, "wrong-secret", SECRET.slice(0, -1)]) {
      const res = await handle(upgradeRequest("ticket=good&docId=p1&workspaceId=w1", secret));
      assert.equal(res.status, 401);
      assert.deepEqual(await res.json(), { error: "Unauthorized" });
    }
    assert.equal(asked, 0);
  }));

Deno.test("a post in another workspace is not found even for a member of both", () =>
  withHub(async (hub) => {
    const handle = createWsHandler({
      hub,
      logger,
      pingSeconds: 30,
      internalSecret: SECRET,
      access: access({
        membership: () => Promise.resolve({ role: "owner", workspace_status: "active" }),
        docWorkspace: () => Promise.resolve("elsewhere"),
      }),
    });
    const res = await handle(upgradeRequest("ticket=good&docId=p1&workspaceId=w1"));
    assert.equal(res.status, 404);
    assert.deepEqual(await res.json(), { error: "Post not found" });
  }));

Deno.test("relayed by the gateway: collab admits an upgrade once, using its ticket once, and the relayed socket opens on that admission", () =>
  withHub(async (hub) => {
    let redeemed = 0;
    const handle = createWsHandler({
      hub,
      logger,
      pingSeconds: 30,
      internalSecret: SECRET,
      access: access({
        verifyTicket: (t) => {
          redeemed++;
          // a ticket is single-use: only its first redemption finds it
          return Promise.resolve(
            t === "good" && redeemed === 1
              ? { user_id: "u1", expires_at: new Date(Date.now() + 60_000).toISOString() }
              : null,
          );
        },
      }),
    });
    const server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen: () => {} }, handle);
    const base = `127.0.0.1:${server.addr.port}`;
    try {
      const query = "ticket=good&docId=p1&workspaceId=w1";
      const refused = await fetch(
        `http://${base}/internal/ws/admit?ticket=good&docId=p1&workspaceId=w2`,
        {
          headers: { "x-cp-internal": SECRET },
        },
      );
      assert.equal(refused.status, 403, "a refusal is answered as the upgrade would be");
      assert.deepEqual(await refused.json(), { error: "Not a workspace member" });
      redeemed = 0;
      const res = await fetch(`http://${base}/internal/ws/admit?${query}`, {
        headers: { "x-cp-internal": SECRET },
      });
      assert.equal(res.status, 200);
      const { admission } = await res.json();
      assert.equal(redeemed, 1);

      // the admission names its post: another post's upgrade falls back to the (spent) ticket
      const elsewhere = await handle(
        new Request(`http://collab.internal/ws?ticket=good&docId=p2&workspaceId=w1`, {
          headers: {
            upgrade: "websocket",
            "x-cp-internal": SECRET,
            "x-cp-ws-admission": admission,
          },
        }),
      );
      assert.equal(elsewhere.status, 401);
      await elsewhere.body?.cancel();
      const forged = await handle(
        new Request(`http://collab.internal/ws?${query}`, {
          headers: {
            upgrade: "websocket",
            "x-cp-internal": SECRET,
            "x-cp-ws-admission": admission.replace(/.$/, (c: string) => c === "A" ? "B" : "A"),
          },
        }),
      );
      assert.equal(forged.status, 401);
      await forged.body?.cancel();

      const socket = new WebSocket(`ws://${base}/ws?${query}`, {
        headers: { "x-cp-internal": SECRET, "x-cp-ws-admission": admission },
      });
      await new Promise((resolve, reject) => {
        socket.onopen = resolve;
        socket.onerror = reject;
      });
      const closed = new Promise((r) => socket.onclose = r);
      socket.close();
      await closed;
    } finally {
      await server.shutdown();
    }
  }));

// ---------------------------------------------------------------- limits (issue 11, item 9)

/** The close a client got (read through a call, which the type checker does not narrow). */
const closeCode = (c: FakeClient): number | undefined => c.closed?.code;

/** An awareness frame as y-protocols encodes it, with each state given as JSON. */
Deno.test("item 9: a frame over the frame limit closes its socket with 4413 and is not applied", () =>
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

Deno.test("item 9: an update past the text limit is refused and the others keep their text", () =>
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

Deno.test("item 9: an update past the document byte limit is refused", () =>
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

Deno.test("item 9: a client sets only its own awareness entry, within the size limit", () =>
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

Deno.test("item 9: awareness over its rate is dropped; frames over theirs close with 4529", () =>
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

Deno.test("item 9: a user holds at most the per-user number of sockets", () =>
  withHub((hub) => {
    for (let i = 0; i < 3; i++) assert.equal(hub.reserveSocket("u1"), true);
    assert.equal(hub.reserveSocket("u1"), false);
    assert.equal(hub.reserveSocket("u2"), true);
    hub.releaseSocket("u1");
    assert.equal(hub.reserveSocket("u1"), true);
    return Promise.resolve();
  }, { limits: { maxConnectionsPerUser: 3 } }));

Deno.test("item 4: the re-check closes a disabled account's sockets with 4401", () => {
  const active = new Set(["u1", "u2"]);
  return withHub(async (hub) => {
    const a = new FakeClient("u1");
    const b = new FakeClient("u2");
    const room = await connect(hub, "p1", a);
    await connect(hub, "p1", b);
    active.delete("u1");
    const deadline = Date.now() + 2_000;
    while (!a.closed && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    assert.equal(closeCode(a), CloseCode.Unauthorized);
    assert.equal(b.closed, null);
    assert.equal(room.size, 1);
  }, { membershipCheckMs: 50, isActive: (user) => Promise.resolve(active.has(user)) });
});
