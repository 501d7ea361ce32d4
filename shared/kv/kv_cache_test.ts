import assert from "node:assert/strict";
import { withReadCache } from "./kv_cache.ts";
import { keyId } from "./kv_keys.ts";

Deno.test("the read cache answers repeated reads and sees every write through it", async () => {
  const raw = await Deno.openKv(":memory:");
  const kv = withReadCache(raw);
  await kv.set(["a"], 1);
  assert.equal((await kv.get(["a"])).value, 1);
  // Every write through it is seen at once.
  await kv.set(["a"], 3);
  assert.equal((await kv.get(["a"])).value, 3);
  const res = await kv.atomic().set(["a"], 4).set(["b"], 5).commit();
  assert.ok(res.ok);
  const [a, b] = await kv.getMany([["a"], ["b"]]);
  assert.equal(a.value, 4);
  assert.equal(b.value, 5);
  await kv.delete(["b"]);
  assert.equal((await kv.get(["b"])).value, null);
  raw.close();
});

Deno.test("a failed atomic check clears the cache so a retry reads fresh versionstamps", async () => {
  const raw = await Deno.openKv(":memory:");
  const kv = withReadCache(raw);
  await kv.set(["n"], 1);
  const first = await kv.get(["n"]);
  await raw.set(["n"], 2); // a stale cached entry, as if from elsewhere
  const failed = await kv.atomic().check(first).set(["n"], 10).commit();
  assert.equal(failed.ok, false);
  const fresh = await kv.get(["n"]);
  assert.equal(fresh.value, 2);
  assert.ok((await kv.atomic().check(fresh).set(["n"], 3).commit()).ok);
  assert.equal((await kv.get(["n"])).value, 3);
  raw.close();
});

Deno.test("a write through another instance's cache is seen within the check interval", async () => {
  const raw = await Deno.openKv(":memory:");
  const one = withReadCache(raw, { checkIntervalMs: 100 });
  const other = withReadCache(raw, { checkIntervalMs: 100 });
  await one.set(["member"], "yes");
  assert.equal((await other.get(["member"])).value, "yes");
  assert.equal((await other.get(["member"])).value, "yes"); // now cached
  await one.delete(["member"]);
  const removedAt = Date.now();
  let seen: unknown = "yes";
  while (seen !== null) {
    assert.ok(Date.now() - removedAt < 1_000, "the other instance saw the delete within 1 s");
    seen = (await other.get(["member"])).value;
    if (seen !== null) await new Promise((r) => setTimeout(r, 10));
  }
  assert.ok(Date.now() - removedAt >= 0);
  // A write that does not go through a cache (no counter bump) is not seen while cached: the
  // counter is what tells instances apart, so every writer must use the wrapper.
  await raw.set(["member"], "raw");
  assert.equal((await other.get(["member"])).value, null);
  raw.close();
});

Deno.test("cache ids of different keys differ, whatever their parts hold", () => {
  const keys: Deno.KvKey[] = [
    ["a", "b"],
    ["a,b"],
    ["a", "b", ""],
    ["1"],
    [1],
    [1n],
    [true],
    ["true"],
    [new Uint8Array([1, 2])],
    ["s1:a"],
    ["s1:", "a"],
    ["ab"],
  ];
  const ids = keys.map(keyId);
  assert.equal(new Set(ids).size, keys.length);
  assert.equal(keyId(["ws", "x"]), keyId(["ws", "x"]));
});
