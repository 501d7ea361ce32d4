import assert from "node:assert/strict";
import {
  decodeLine,
  encodeLine,
  exportKv,
  importKv,
  readLines,
  remapLine,
  wipeKv,
} from "./kv_backup.ts";

async function dump(kv: Deno.Kv): Promise<[Deno.KvKey, unknown][]> {
  const out: [Deno.KvKey, unknown][] = [];
  for await (const e of kv.list({ prefix: [] })) out.push([e.key, e.value]);
  return out;
}

async function exportLines(kv: Deno.Kv): Promise<string[]> {
  return await Array.fromAsync(readLines(exportKv(kv)));
}

Deno.test("export then import reproduces every key part and value type exactly", async () => {
  const src = await Deno.openKv(":memory:");
  const dst = await Deno.openKv(":memory:");
  try {
    await src.set(["s", 1, 2n, true, new Uint8Array([0, 255])], "plain");
    await src.set(["n", -0], NaN);
    await src.set(["n", Infinity], -Infinity);
    await src.set(["obj"], {
      a: 1,
      nested: { d: new Date("2026-01-02T03:04:05.678Z"), u: undefined, big: 12n },
      list: [new Uint8Array([1, 2, 3]), null, "x"],
      $t: "looks like a tag",
    });
    await src.set(["u64"], new Deno.KvU64(42n));
    await src.set(["map"], new Map<unknown, unknown>([["k", new Set([1, 2])]]));
    await src.set(["deliveries", "m1"], { at: 1 });
    await dst.set(["stale"], "removed by import");
    await dst.set(["signing_keys", "kid"], "kept by import");

    const lines = await exportLines(src);
    assert.equal(lines.length, 6, "the deliveries marker is not exported");
    const n = await importKv(dst, lines.values() as unknown as AsyncIterable<string>);
    assert.equal(n, 6);
    const expected = (await dump(src)).filter(([k]) => k[0] !== "deliveries");
    const got = await dump(dst);
    assert.deepEqual(got.filter(([k]) => k[0] !== "signing_keys"), expected);
    assert.ok(got.some(([k]) => k[0] === "signing_keys"), "a preserved key survives the wipe");
  } finally {
    src.close();
    dst.close();
  }
});

Deno.test("import run twice gives the same end state", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const lines = Array.from({ length: 50 }, (_, i) => encodeLine(["a", i], { i }));
    const iter = () =>
      (async function* () {
        yield* lines;
      })();
    await importKv(kv, iter());
    await kv.set(["extra"], 1);
    await importKv(kv, iter());
    const after = await dump(kv);
    assert.equal(after.length, 50);
    assert.deepEqual(after[49], [["a", 49], { i: 49 }]);
  } finally {
    kv.close();
  }
});

Deno.test("import splits large keyspaces into commits within KV's limits", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const big = "x".repeat(60_000);
    const lines = (async function* () {
      for (let i = 0; i < 40; i++) yield encodeLine(["big", i], big);
      for (let i = 0; i < 2500; i++) yield encodeLine(["small", "k".repeat(200), i], i);
    })();
    assert.equal(await importKv(kv, lines), 2540);
    assert.equal((await dump(kv)).length, 2540);
    await wipeKv(kv);
    assert.equal((await dump(kv)).length, 0);
  } finally {
    kv.close();
  }
});

Deno.test("a malformed line is refused with its line number", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const lines = (async function* () {
      yield encodeLine(["ok"], 1);
      yield "{not json";
    })();
    await assert.rejects(() => importKv(kv, lines), /line 2: line is not JSON/);
    assert.throws(() => decodeLine(JSON.stringify({ k: [{ $x: 1 }], v: 1 })), /unsupported key/);
  } finally {
    kv.close();
  }
});

Deno.test("remapLine rewrites ids in key parts, values and property names", () => {
  const line = JSON.parse(encodeLine(["users", "old"], {
    user_id: "old",
    others: ["old", "keep"],
    by_user: { old: true },
  }));
  const mapped = remapLine(line, new Map([["old", "new"]]));
  const { key, value } = decodeLine(JSON.stringify(mapped));
  assert.deepEqual(key, ["users", "new"]);
  assert.deepEqual(value, { user_id: "new", others: ["new", "keep"], by_user: { new: true } });
});

Deno.test("values round-trip through a line: nested tags, arrays, and an own __proto__ key", () => {
  const value = JSON.parse('{"__proto__": {"x": 1}, "plain": "a"}');
  value.nested = {
    when: new Date("2026-11-24T00:00:00Z"),
    tags: new Set(["a", "b"]),
    bytes: new Uint8Array([1, 2, 3]),
    list: [1n, undefined, { $t: "own" }, new Map([["k", [NaN, -0]]])],
  };
  const { key, value: back } = decodeLine(encodeLine(["k", 1], value));
  assert.deepEqual(key, ["k", 1]);
  const o = back as Record<string, unknown>;
  assert.equal(Object.getPrototypeOf(o), Object.prototype, "the prototype is not replaced");
  assert.deepEqual(Object.getOwnPropertyDescriptor(o, "__proto__")?.value, { x: 1 });
  assert.deepEqual(o.nested, value.nested);
  assert.equal(o.plain, "a");
});
