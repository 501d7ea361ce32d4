import assert from "node:assert/strict";
import { CloseCode } from "./protocol.ts";
import { closeCode, connect, FakeClient, withHub } from "./testing.ts";

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

Deno.test("the re-check closes a disabled account's sockets with 4401", () => {
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
  }, {
    membershipCheckMs: 50,
    accountState: (user) => Promise.resolve(active.has(user) ? "active" : "disabled"),
  });
});

Deno.test("the re-check closes the sockets of a session that ended with 4401; the user's other session keeps its own", () => {
  const ended = new Set<string>();
  const asked: [string, string | null][] = [];
  return withHub(async (hub) => {
    const laptop = new FakeClient("u1", "w1", "s-laptop");
    const laptop2 = new FakeClient("u1", "w1", "s-laptop");
    const phone = new FakeClient("u1", "w1", "s-phone");
    const room = await connect(hub, "p1", laptop);
    for (const c of [laptop2, phone]) await connect(hub, "p1", c);
    ended.add("s-laptop");
    const deadline = Date.now() + 2_000;
    while (!laptop2.closed && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    assert.deepEqual(laptop.closed, { code: CloseCode.Unauthorized, reason: "Session ended" });
    assert.deepEqual(laptop2.closed, { code: CloseCode.Unauthorized, reason: "Session ended" });
    assert.equal(phone.closed, null);
    assert.equal(room.size, 1);
    // One question per user and session, whatever the number of its sockets.
    const sessions = new Set(asked.map((a) => JSON.stringify(a)));
    assert.deepEqual([...sessions].sort(), [
      JSON.stringify(["u1", "s-laptop"]),
      JSON.stringify(["u1", "s-phone"]),
    ]);
  }, {
    membershipCheckMs: 50,
    accountState: (user, session) => {
      asked.push([user, session]);
      return Promise.resolve(session && ended.has(session) ? "signed_out" : "active");
    },
  });
});
