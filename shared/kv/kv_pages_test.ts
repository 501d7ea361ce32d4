import assert from "node:assert/strict";
import {
  buildIndexes,
  getValues,
  indexChanges,
  type KvPage,
  readRangePage,
  shortKeyPart,
} from "./kv_pages.ts";

async function withKv(fn: (kv: Deno.Kv) => Promise<void>) {
  const kv = await Deno.openKv(":memory:");
  try {
    await fn(kv);
  } finally {
    kv.close();
  }
}

const id = (n: number) => `id${String(n).padStart(4, "0")}`;

/** Reads every page of a range, asserting each holds at most `limit` items. */
async function allPages<T>(
  read: (after?: string) => Promise<KvPage<T>>,
  limit: number,
): Promise<T[][]> {
  const pages: T[][] = [];
  let after: string | undefined;
  for (;;) {
    const page = await read(after);
    assert.ok(page.items.length <= limit);
    pages.push(page.items);
    if (page.next === null) return pages;
    after = page.next;
  }
}

Deno.test("range pages cover the range once, in order, forwards and backwards", async () => {
  await withKv(async (kv) => {
    for (let n = 0; n < 23; n++) await kv.set(["rows", "a", id(n)], { n });
    await kv.set(["rows", "b", id(0)], { n: -1 });
    for (const reverse of [false, true]) {
      const pages = await allPages(
        (after) =>
          readRangePage<{ n: number }>(kv, { prefix: ["rows", "a"], reverse, limit: 5, after }),
        5,
      );
      assert.deepEqual(pages.map((p) => p.length), [5, 5, 5, 5, 3]);
      const seen = pages.flat().map((r) => r.n);
      const expected = Array.from({ length: 23 }, (_, n) => n);
      assert.deepEqual(seen, reverse ? expected.reverse() : expected);
    }
  });
});

Deno.test("the last page of a range that ends on a page boundary has no next cursor", async () => {
  await withKv(async (kv) => {
    for (let n = 0; n < 10; n++) await kv.set(["rows", id(n)], n);
    const first = await readRangePage<number>(kv, { prefix: ["rows"], reverse: false, limit: 5 });
    assert.equal(first.next, id(4));
    const second = await readRangePage<number>(kv, {
      prefix: ["rows"],
      reverse: false,
      limit: 5,
      after: first.next!,
    });
    assert.deepEqual(second, { items: [5, 6, 7, 8, 9], next: null });
    const empty = await readRangePage<number>(kv, { prefix: ["none"], reverse: true, limit: 5 });
    assert.deepEqual(empty, { items: [], next: null });
  });
});

Deno.test("a page goes on after its cursor when the item it ended on is deleted or new items come", async () => {
  await withKv(async (kv) => {
    for (let n = 10; n < 20; n++) await kv.set(["rows", id(n)], n);
    const first = await readRangePage<number>(kv, { prefix: ["rows"], reverse: true, limit: 4 });
    assert.deepEqual(first.items, [19, 18, 17, 16]);
    await kv.delete(["rows", id(16)]);
    await kv.set(["rows", id(30)], 30); // newer: before the cursor in this order
    await kv.set(["rows", id(5)], 5); // older: still to come
    const second = await readRangePage<number>(kv, {
      prefix: ["rows"],
      reverse: true,
      limit: 10,
      after: first.next!,
    });
    assert.deepEqual(second.items, [15, 14, 13, 12, 11, 10, 5]);
  });
});

Deno.test("an index page loads its records and drops those the filter or a deletion leaves out", async () => {
  await withKv(async (kv) => {
    for (let n = 0; n < 30; n++) {
      await kv.set(["items", id(n)], { n, colour: n % 3 === 0 ? "red" : "blue" });
      await kv.set(["items_by_colour", n % 3 === 0 ? "red" : "blue", id(n)], true);
    }
    await kv.delete(["items", id(3)]); // the index entry left behind is skipped
    const load = (ids: string[]) => getValues<{ n: number }>(kv, ids.map((i) => ["items", i]));
    const pages = await allPages(
      (after) =>
        readRangePage(kv, {
          prefix: ["items_by_colour", "red"],
          reverse: false,
          limit: 4,
          load,
          after,
        }),
      4,
    );
    assert.deepEqual(pages.flat().map((r) => r.n), [0, 6, 9, 12, 15, 18, 21, 24, 27]);
    // a filter the range does not answer, checked on each record
    const even = await allPages(
      (after) =>
        readRangePage<{ n: number }>(kv, {
          prefix: ["items"],
          reverse: true,
          limit: 3,
          keep: (r) => r.n % 2 === 0,
          after,
        }),
      3,
    );
    assert.deepEqual(even.flat().map((r) => r.n), [
      28,
      26,
      24,
      22,
      20,
      18,
      16,
      14,
      12,
      10,
      8,
      6,
      4,
      2,
      0,
    ]);
  });
});

Deno.test("a page of a sparse filter reads at most its budget and goes on from where it stopped", async () => {
  await withKv(async (kv) => {
    for (let n = 0; n < 50; n++) await kv.set(["rows", id(n)], n);
    const read = (after?: string) =>
      readRangePage<number>(kv, {
        prefix: ["rows"],
        reverse: false,
        limit: 2,
        keep: (n) => n === 1 || n === 45,
        budget: 20,
        after,
      });
    const first = await read();
    assert.deepEqual(first, { items: [1], next: id(19) });
    const second = await read(first.next!);
    assert.deepEqual(second, { items: [], next: id(39) });
    const third = await read(second.next!);
    assert.deepEqual(third, { items: [45], next: null });
  });
});

Deno.test("index changes add, keep and remove exactly the entries that differ", async () => {
  await withKv(async (kv) => {
    const op1 = kv.atomic();
    indexChanges(op1, [], [["i", "a", "1"], ["i", "b", "1"]]);
    await op1.commit();
    const op2 = kv.atomic();
    indexChanges(op2, [["i", "a", "1"], ["i", "b", "1"]], [["i", "b", "1"], ["i", "c", "1"]]);
    await op2.commit();
    const keys = await Array.fromAsync(kv.list({ prefix: ["i"] }), (e) => e.key.join("/"));
    assert.deepEqual(keys, ["i/b/1", "i/c/1"]);
  });
});

Deno.test("building indexes writes every record's entries once and then only marks it done", async () => {
  await withKv(async (kv) => {
    for (let n = 0; n < 250; n++) {
      await kv.set(["things", id(n)], { id: id(n), tags: n % 2 ? ["odd", `t${n}`] : ["even"] });
    }
    const spec = {
      records: ["things"],
      indexKeys: (t: { id: string; tags: string[] }) => t.tags.map((tag) => ["by_tag", tag, t.id]),
    };
    assert.equal(await buildIndexes(kv, ["built"], [spec]), 250);
    const odd = await Array.fromAsync(kv.list({ prefix: ["by_tag", "odd"] }));
    assert.equal(odd.length, 125);
    assert.equal((await Array.fromAsync(kv.list({ prefix: ["by_tag"] }))).length, 375);
    assert.equal(await buildIndexes(kv, ["built"], [spec]), 0);
  });
});

Deno.test("a long key part is shortened to a stable hash, a short one kept", () => {
  assert.equal(shortKeyPart("remote"), "remote");
  const long = "x".repeat(500);
  assert.match(shortKeyPart(long), /^#[0-9a-f]{16}$/);
  assert.equal(shortKeyPart(long), shortKeyPart(long));
  assert.notEqual(shortKeyPart(long), shortKeyPart(long + "y"));
});
