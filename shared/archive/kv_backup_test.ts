import assert from "node:assert/strict";
import {
  decodeLine,
  encodedKeyBytes,
  encodeLine,
  entryProblem,
  exportKv,
  importKv,
  KV_MAX_KEY_BYTES,
  KV_MAX_VALUE_BYTES,
  LineSplitter,
  readLineChunks,
  readLines,
  remapLine,
  wipeKv,
} from "./kv_backup.ts";
import { declareKeys } from "../kv/kv_keys.ts";
import { DELIVERY_KEYS } from "../delivery/deliverer.ts";

/** The families these tests declare: delivery markers and signing keys are this deployment's. */
const KEYS = declareKeys({ signing_keys: "local" }, DELIVERY_KEYS);

async function dump(kv: Deno.Kv): Promise<[Deno.KvKey, unknown][]> {
  const out: [Deno.KvKey, unknown][] = [];
  for await (const e of kv.list({ prefix: [] })) out.push([e.key, e.value]);
  return out;
}

async function exportLines(kv: Deno.Kv): Promise<string[]> {
  return await Array.fromAsync(readLines(exportKv(kv, KEYS)));
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
    const n = await importKv(dst, lines.values() as unknown as AsyncIterable<string>, KEYS);
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
    await importKv(kv, iter(), KEYS);
    await kv.set(["extra"], 1);
    await importKv(kv, iter(), KEYS);
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
    assert.equal(await importKv(kv, lines, KEYS), 2540);
    assert.equal((await dump(kv)).length, 2540);
    await wipeKv(kv, KEYS);
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
    await assert.rejects(() => importKv(kv, lines, KEYS), /line 2: line is not JSON/);
    assert.throws(() => decodeLine(JSON.stringify({ k: [{ $x: 1 }], v: 1 })), /unsupported key/);
  } finally {
    kv.close();
  }
});

/** Whether KV writes `key` and `value`, the oracle the limits below must agree with. */
async function kvWrites(kv: Deno.Kv, key: Deno.KvKey, value: unknown): Promise<boolean> {
  try {
    await kv.set(key, value);
    return true;
  } catch (err) {
    if (/too large/i.test(String(err))) return false;
    throw err;
  }
}

Deno.test("encodedKeyBytes is KV's own measure: a key of 2048 bytes is written, 2049 is not", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const shapes: Deno.KvKey[] = [
      ["ideas"],
      ["ideas", "naïve \u0000 中"],
      ["doc_updates", 7, -0.5, true, false],
      ["n", 0n, 255n, -256n, 2n ** 63n, 2n ** 64n, -(2n ** 70n)],
      ["b", new Uint8Array([0, 1, 0, 255]), new Uint8Array(0)],
    ];
    for (const shape of shapes) {
      const filler = KV_MAX_KEY_BYTES - encodedKeyBytes([...shape, ""]);
      const at = [...shape, "x".repeat(filler)];
      const over = [...shape, "x".repeat(filler + 1)];
      assert.equal(encodedKeyBytes(at), KV_MAX_KEY_BYTES);
      assert.ok(await kvWrites(kv, at, 1), `${String(shape[0])}: 2048 bytes are written`);
      assert.ok(!(await kvWrites(kv, over, 1)), `${String(shape[0])}: 2049 bytes are refused`);
      assert.equal(entryProblem(at, 1, 0), null);
      assert.match(
        entryProblem(over, 1, 0)!,
        /^its key is 2049 bytes, more than the 2048 KV allows$/,
      );
    }
  } finally {
    kv.close();
  }
});

Deno.test("entryProblem refuses exactly the values KV refuses", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const shapes: ((n: number) => unknown)[] = [
      (n) => ({ name: "z".repeat(n) }),
      (n) => "中".repeat(n),
      (n) => new Uint8Array(n),
      (n) => [new Map([["k", "q".repeat(n)]]), new Date(0), 12n],
    ];
    for (const shape of shapes) {
      // The largest n KV still writes, found by bisection.
      let lo = 0;
      let hi = KV_MAX_VALUE_BYTES;
      while (lo < hi) {
        const mid = (lo + hi + 1) >> 1;
        if (await kvWrites(kv, ["v"], shape(mid))) lo = mid;
        else hi = mid - 1;
      }
      const line = (n: number) => encodeLine(["v"], shape(n)).length;
      assert.equal(entryProblem(["v"], shape(lo), line(lo)), null);
      assert.match(
        entryProblem(["v"], shape(lo + 1), line(lo + 1))!,
        new RegExp(`^its value is \\d+ bytes, more than the ${KV_MAX_VALUE_BYTES} KV allows$`),
      );
    }
    // The lines left unmeasured are short enough never to hold too large a value: doubles,
    // the most bytes per character of JSON, fill a line just under the bound to far less.
    const doubles = Array.from({ length: 4090 }, () => 0.5);
    assert.ok(encodeLine(["v"], doubles).length < KV_MAX_VALUE_BYTES / 4);
    assert.ok(await kvWrites(kv, ["v"], doubles));
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

Deno.test("lines split at any byte come back whole: multi-byte text, blank lines, CRLF, a long line", () => {
  const long = "é".repeat(30_000);
  const text = `{"a":"ü€😀"}\n\n  \r\n${long}\r\nlast without newline`;
  const bytes = new TextEncoder().encode(text);
  for (const step of [1, 2, 3, 7, 4096, bytes.length]) {
    const lines = new LineSplitter();
    const got: string[] = [];
    for (let i = 0; i < bytes.length; i += step) {
      // Each chunk is handed over in a buffer that is reused right after its lines are taken.
      const chunk = new Uint8Array(step);
      chunk.set(bytes.subarray(i, i + step));
      got.push(...lines.push(chunk.subarray(0, Math.min(step, bytes.length - i))));
      chunk.fill(0);
    }
    got.push(...lines.end());
    assert.deepEqual(got, [`{"a":"ü€😀"}`, `${long}\r`, "last without newline"], `step ${step}`);
  }
});

Deno.test("export cuts its chunks at line ends, a line longer than a chunk included", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    await kv.set(["huge"], "ß".repeat(50_000)); // 100,000 bytes of UTF-8: more than one chunk
    for (let i = 0; i < 3000; i++) await kv.set(["row", i], { text: "x".repeat(90), i });
    const chunks = await Array.fromAsync(exportKv(kv, KEYS));
    assert.ok(chunks.length > 3);
    for (const chunk of chunks) assert.equal(chunk.at(-1), 10, "every chunk ends a line");
    const lines = await exportLines(kv);
    assert.equal(lines.length, 3001);
    assert.deepEqual(decodeLine(lines[0]), { key: ["huge"], value: "ß".repeat(50_000) });
    assert.deepEqual(decodeLine(lines[3000]), {
      key: ["row", 2999],
      value: { text: "x".repeat(90), i: 2999 },
    });
  } finally {
    kv.close();
  }
});

Deno.test("wipe deletes page after page and keeps the preserved keys between them", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    for (let i = 0; i < 1200; i += 200) {
      const op = kv.atomic();
      for (let j = i; j < i + 200; j++) {
        op.set(["a", j], j).set(["deliveries", j], j).set(["z", j], j);
      }
      await op.commit();
    }
    await wipeKv(kv, KEYS);
    const left = await dump(kv);
    assert.equal(left.length, 1200);
    assert.ok(left.every(([k]) => k[0] === "deliveries"));
  } finally {
    kv.close();
  }
});

Deno.test("import takes a stream's lines a chunk at a time, and names a malformed line", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const text = Array.from({ length: 3000 }, (_, i) => encodeLine(["k", i], { i })).join("\n");
    const bytes = new TextEncoder().encode(text);
    const stream = (step: number, tail = "") =>
      ReadableStream.from((function* () {
        for (let i = 0; i < bytes.length; i += step) yield bytes.slice(i, i + step);
        if (tail) yield new TextEncoder().encode(tail);
      })());
    assert.equal(await importKv(kv, readLineChunks(stream(4093)), KEYS), 3000);
    const all = await dump(kv);
    assert.equal(all.length, 3000);
    assert.deepEqual(all[2999], [["k", 2999], { i: 2999 }]);
    await assert.rejects(
      () => importKv(kv, readLineChunks(stream(65536, "\n{broken")), KEYS),
      /line 3001: line is not JSON/,
    );
  } finally {
    kv.close();
  }
});

Deno.test("a session family is never exported, is wiped by an import and is not written by one", async () => {
  const keys = declareKeys({ refresh_tokens: "session", queue: "local", users: "data" });
  const src = await Deno.openKv(":memory:");
  const dst = await Deno.openKv(":memory:");
  try {
    await src.set(["users", "u1"], { name: "U" });
    await src.set(["refresh_tokens", "h1"], "u1");
    await src.set(["queue", "due", 1], "m");
    const lines = await Array.fromAsync(readLines(exportKv(src, keys)));
    assert.deepEqual(lines.map((l) => decodeLine(l).key), [["users", "u1"]]);
    await dst.set(["refresh_tokens", "live"], "u2");
    await dst.set(["queue", "due", 2], "kept");
    const planted = [...lines, encodeLine(["refresh_tokens", "planted"], "u1")];
    assert.equal(
      await importKv(dst, planted.values() as unknown as AsyncIterable<string>, keys),
      2,
    );
    assert.deepEqual((await dump(dst)).map(([k]) => k), [["queue", "due", 2], ["users", "u1"]]);
  } finally {
    src.close();
    dst.close();
  }
});

Deno.test("a family declared twice must keep its backup class", () => {
  assert.deepEqual(declareKeys({ a: "data" }, { a: "data", b: "local" }), {
    a: "data",
    b: "local",
  });
  assert.throws(
    () => declareKeys({ a: "data" }, { a: "local" }),
    /a is declared both data and local/,
  );
});
