import assert from "node:assert/strict";
import { AccessCache, effectiveRole, tokenSessionLive, type UserAccess } from "./access_cache.ts";

function counting(answer: (id: string) => UserAccess | null) {
  const calls: string[] = [];
  return {
    calls,
    fetch: (id: string) => {
      calls.push(id);
      return Promise.resolve(answer(id));
    },
  };
}

const member = (id: string): UserAccess => ({ user_id: id, active: true, role: "member" });

Deno.test("access cache answers from memory within its TTL and asks again after it", async () => {
  let now = 1_000;
  const source = counting(member);
  const cache = new AccessCache(source.fetch, 2_000, () => now);
  assert.deepEqual(await cache.get("u1"), member("u1"));
  now += 1_999;
  await cache.get("u1");
  assert.equal(source.calls.length, 1);
  now += 1;
  await cache.get("u1");
  assert.equal(source.calls.length, 2);
});

Deno.test("access cache never trusts an answer longer than 2 s", async () => {
  let now = 0;
  const source = counting(member);
  const cache = new AccessCache(source.fetch, 60_000, () => now);
  await cache.get("u1");
  now = 2_000;
  await cache.get("u1");
  assert.equal(source.calls.length, 2);
});

Deno.test("access cache shares one lookup between concurrent callers", async () => {
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  let calls = 0;
  const cache = new AccessCache(async (id) => {
    calls++;
    await gate;
    return member(id);
  });
  const all = Promise.all([cache.get("u1"), cache.get("u1"), cache.get("u1")]);
  release();
  assert.equal((await all).length, 3);
  assert.equal(calls, 1);
});

Deno.test("access cache keeps an unknown user (null) but not a failed lookup", async () => {
  let fail = true;
  const cache = new AccessCache((id) => {
    if (id === "gone") return Promise.resolve(null);
    if (fail) return Promise.reject(new Error("auth down"));
    return Promise.resolve(member(id));
  });
  assert.equal(await cache.get("gone"), null);
  await assert.rejects(cache.get("u1"), /auth down/);
  fail = false;
  assert.deepEqual(await cache.get("u1"), member("u1"));
});

Deno.test("access cache asks again when the answer predates fetchedAfter", async () => {
  let now = 10_000;
  const source = counting(member);
  const cache = new AccessCache(source.fetch, 2_000, () => now);
  await cache.get("u1");
  now += 500;
  await cache.get("u1", { fetchedAfter: 9_000 });
  assert.equal(source.calls.length, 1);
  await cache.get("u1", { fetchedAfter: 10_200 });
  assert.equal(source.calls.length, 2);
});

Deno.test("a live role only ever lowers the token's role", () => {
  assert.equal(effectiveRole("admin", "member"), "member");
  assert.equal(effectiveRole("member", "admin"), "member");
  assert.equal(effectiveRole("admin", "admin"), "admin");
  assert.equal(effectiveRole("member", "member"), "member");
});

Deno.test("access cache keeps a session's answer apart from the user's and other sessions'", async () => {
  const calls: string[] = [];
  const cache = new AccessCache((id, sid) => {
    calls.push(`${id}/${sid ?? "-"}`);
    return Promise.resolve({ ...member(id), session_live: sid !== "gone" });
  });
  assert.equal((await cache.get("u1", { sid: "s1" }))?.session_live, true);
  assert.equal((await cache.get("u1", { sid: "gone" }))?.session_live, false);
  await cache.get("u1", { sid: "s1" });
  await cache.get("u1");
  assert.deepEqual(calls, ["u1/s1", "u1/gone", "u1/-"]);
  cache.invalidate("u1");
  await cache.get("u1", { sid: "s1" });
  assert.equal(calls.length, 4);
});

Deno.test("a token stands while its session is live, or was issued after the last revocation", () => {
  const live = { ...member("u1"), sessions_revoked_at: 10_500, session_live: true };
  assert.equal(tokenSessionLive(live, { sid: "s1", iat: 1 }), true);
  assert.equal(tokenSessionLive({ ...live, session_live: false }, { sid: "s1", iat: 99 }), false);
  // Without a session id: refused only when surely issued before the revocation.
  assert.equal(tokenSessionLive(live, { iat: 9 }), false);
  assert.equal(tokenSessionLive(live, { iat: 10 }), true);
  assert.equal(tokenSessionLive(member("u1"), { iat: 1 }), true);
});
