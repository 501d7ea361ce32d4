import assert from "node:assert/strict";
import { GenaiStore, WINDOW_MS } from "./store.ts";

Deno.test("the AI call limit allows `limit` calls per user and minute", async () => {
  const kv = await Deno.openKv(":memory:");
  let now = 10 * WINDOW_MS + 15_000;
  const store = new GenaiStore(kv, () => now);
  try {
    for (let i = 1; i <= 3; i++) {
      assert.deepEqual(await store.takeAiCall("u1", 3), { allowed: true, used: i });
    }
    assert.deepEqual(await store.takeAiCall("u1", 3), { allowed: false, retryAfterSeconds: 45 });
    assert.deepEqual(await store.takeAiCall("u2", 3), { allowed: true, used: 1 });
    now += 45_000;
    assert.deepEqual(await store.takeAiCall("u1", 3), { allowed: true, used: 1 });
  } finally {
    kv.close();
  }
});

Deno.test("concurrent calls never take more than the limit", async () => {
  const kv = await Deno.openKv(":memory:");
  const store = new GenaiStore(kv, () => 5 * WINDOW_MS);
  try {
    const results = await Promise.all(
      Array.from({ length: 12 }, () => store.takeAiCall("u", 5)),
    );
    assert.equal(results.filter((r) => r.allowed).length, 5);
  } finally {
    kv.close();
  }
});

Deno.test("a limit of 0 turns the limit off and stores nothing", async () => {
  const kv = await Deno.openKv(":memory:");
  const store = new GenaiStore(kv);
  try {
    for (let i = 0; i < 30; i++) assert.equal((await store.takeAiCall("u", 0)).allowed, true);
    assert.equal((await Array.fromAsync(kv.list({ prefix: [] }))).length, 0);
  } finally {
    kv.close();
  }
});
