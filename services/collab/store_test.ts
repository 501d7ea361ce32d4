import assert from "node:assert/strict";
import * as Y from "yjs";
import { overrideKv, wrapCommit } from "../../shared/kv/kv.ts";
import { DocStore, PART_BYTES } from "./store.ts";

function textUpdate(doc: Y.Doc, fn: (text: Y.Text) => void): Uint8Array {
  let captured: Uint8Array | null = null;
  const handler = (u: Uint8Array) => (captured = u);
  doc.on("update", handler);
  doc.transact(() => fn(doc.getText("content")));
  doc.off("update", handler);
  return captured!;
}

function textOf(updates: Uint8Array[]): string {
  const doc = new Y.Doc();
  for (const u of updates) Y.applyUpdate(doc, u);
  return doc.getText("content").toString();
}

async function withStore(fn: (store: DocStore, kv: Deno.Kv) => Promise<void>) {
  const kv = await Deno.openKv(":memory:");
  try {
    await fn(new DocStore(kv), kv);
  } finally {
    kv.close();
  }
}

Deno.test("store appends updates with increasing sequence numbers and loads them in order", () =>
  withStore(async (store) => {
    assert.deepEqual(await store.load("p1"), null);
    const doc = new Y.Doc();
    const a = textUpdate(doc, (t) => t.insert(0, "hello"));
    const b = textUpdate(doc, (t) => t.insert(5, " world"));
    assert.deepEqual((await store.append("p1", a, { workspaceId: "w1" })).head.seq, 1);
    const { head } = await store.append("p1", b);
    assert.deepEqual(head.seq, 2);
    assert.deepEqual(head.workspace_id, "w1");
    const loaded = await store.load("p1");
    assert.deepEqual(loaded!.updates.length, 2);
    assert.deepEqual(textOf(loaded!.updates), "hello world");
  }));

Deno.test("store chunks an update over the 64 KiB value limit and reads it back whole", () =>
  withStore(async (store, kv) => {
    const doc = new Y.Doc();
    // Over one commit's budget too, so chunks are written ahead of the head commit.
    const big = "x".repeat(PART_BYTES * 12 + 123);
    const update = textUpdate(doc, (t) => t.insert(0, big));
    assert(update.length > 64 * 1024);
    await store.append("p1", update);
    let chunks = 0;
    for await (const _ of kv.list({ prefix: ["doc_update_chunks", "p1", 1] })) chunks++;
    assert.deepEqual(chunks, Math.ceil(update.length / PART_BYTES));
    assert.deepEqual(textOf((await store.load("p1"))!.updates), big);
  }));

Deno.test("an append given an outdated head retries instead of overwriting an update", () =>
  withStore(async (store) => {
    const doc = new Y.Doc();
    const first = await store.append("p1", textUpdate(doc, (t) => t.insert(0, "one ")));
    const other = new Y.Doc();
    await store.append("p1", textUpdate(other, (t) => t.insert(0, "two ")));
    const third = await store.append("p1", textUpdate(doc, (t) => t.insert(4, "three")), {
      expected: first,
    });
    assert.deepEqual(third.head.seq, 3);
    const text = textOf((await store.load("p1"))!.updates);
    assert.ok(text.includes("two") && text.includes("one three"), text);
  }));

Deno.test("concurrent appends never lose an update", () =>
  withStore(async (store) => {
    const updates: Uint8Array[] = [];
    for (let i = 0; i < 40; i++) {
      const doc = new Y.Doc();
      updates.push(textUpdate(doc, (t) => t.insert(0, `[${i}]`)));
    }
    await Promise.all(updates.map((u) => store.append("p1", u)));
    const loaded = (await store.load("p1"))!;
    assert.deepEqual(loaded.head.seq, 40);
    const text = textOf(loaded.updates);
    for (let i = 0; i < 40; i++) assert(text.includes(`[${i}]`), `update ${i} is missing`);
  }));

Deno.test("compaction replaces stored updates with one snapshot and keeps updates appended meanwhile", () =>
  withStore(async (store, kv) => {
    const doc = new Y.Doc();
    for (let i = 0; i < 120; i++) {
      await store.append("p1", textUpdate(doc, (t) => t.insert(t.length, `${i},`)));
    }
    const snapshot = Y.encodeStateAsUpdate(doc);
    // An update lands after the snapshot was taken but before the compaction commits.
    const late = textUpdate(doc, (t) => t.insert(t.length, "late"));
    await store.append("p1", late);
    const head = await store.compact("p1", snapshot, 120, null);
    assert(head);
    assert.deepEqual(head.head.snapshot_seq, 120);
    assert.deepEqual(head.head.seq, 121);
    let records = 0;
    for await (const _ of kv.list({ prefix: ["doc_updates", "p1"] })) records++;
    assert.deepEqual(records, 1, "only the update after the snapshot is left");
    const loaded = (await store.load("p1"))!;
    assert.deepEqual(loaded.updates.length, 2);
    assert.deepEqual(textOf(loaded.updates), doc.getText("content").toString());
    const stats = await store.stats("p1");
    assert.deepEqual(stats!.stored_updates, 1);
    assert.deepEqual(stats!.compactions, 1);
  }));

Deno.test("a compaction based on an outdated snapshot gives up and leaves nothing behind", () =>
  withStore(async (store, kv) => {
    const doc = new Y.Doc();
    for (let i = 0; i < 5; i++) {
      await store.append("p1", textUpdate(doc, (t) => t.insert(t.length, `${i}`)));
    }
    const first = await store.compact("p1", Y.encodeStateAsUpdate(doc), 5, null);
    assert(first);
    // A second compaction that still believes there is no snapshot must not win.
    assert.deepEqual(await store.compact("p1", Y.encodeStateAsUpdate(doc), 5, null), null);
    let parts = 0;
    for await (const _ of kv.list({ prefix: ["doc_snapshots", "p1"] })) parts++;
    assert.deepEqual(parts, 1);
    assert.deepEqual(textOf((await store.load("p1"))!.updates), "01234");
  }));

Deno.test("a snapshot larger than one commit is stored in parts and compacts again", () =>
  withStore(async (store) => {
    const doc = new Y.Doc();
    const big = "y".repeat(PART_BYTES * 15);
    await store.append("p1", textUpdate(doc, (t) => t.insert(0, big)));
    await store.append("p1", textUpdate(doc, (t) => t.insert(0, "A")));
    const head = await store.compactFromStorage("p1");
    assert(head && head.head.snapshot_parts > 9);
    await store.append("p1", textUpdate(doc, (t) => t.insert(0, "B")));
    assert(await store.compactFromStorage("p1"));
    assert.deepEqual(textOf((await store.load("p1"))!.updates), "BA" + big);
  }));

Deno.test("deleting a document removes every record", () =>
  withStore(async (store, kv) => {
    const doc = new Y.Doc();
    await store.append("p1", textUpdate(doc, (t) => t.insert(0, "z".repeat(70_000))));
    await store.append("p1", textUpdate(doc, (t) => t.insert(0, "a")));
    await store.compactFromStorage("p1");
    await store.append("p1", textUpdate(doc, (t) => t.insert(0, "b")));
    await store.append("p2", textUpdate(new Y.Doc(), (t) => t.insert(0, "other")));
    assert.deepEqual(await store.delete("p1"), true);
    for await (const e of kv.list({ prefix: [] })) {
      assert.deepEqual(e.key[1], "p2", `left behind: ${JSON.stringify(e.key)}`);
    }
    assert.deepEqual(await store.load("p1"), null);
    assert.deepEqual([...await store.existing(["p1", "p2"])], ["p2"]);
  }));

Deno.test("appends of many documents made together share commits, each at its next sequence number", () =>
  withStore(async (store) => {
    const docs = Array.from({ length: 120 }, () => new Y.Doc());
    const firsts = await Promise.all(
      docs.map((doc, i) => store.append(`p${i}`, textUpdate(doc, (t) => t.insert(0, `${i}:`)))),
    );
    // One of them moved on meanwhile: its batch's check fails, and each append goes again.
    const stale = 7;
    await store.append(`p${stale}`, textUpdate(new Y.Doc(), (t) => t.insert(0, "other ")));
    const seconds = await Promise.all(
      docs.map((doc, i) =>
        store.append(`p${i}`, textUpdate(doc, (t) => t.insert(t.length, "b")), {
          expected: firsts[i],
        })
      ),
    );
    const commits = new Set(seconds.map((e) => e.versionstamp));
    assert.ok(commits.size < 20, `${commits.size} commits for 120 appends`);
    for (let i = 0; i < docs.length; i++) {
      assert.deepEqual(seconds[i].head.seq, i === stale ? 3 : 2);
      const loaded = (await store.load(`p${i}`))!;
      assert.deepEqual(loaded.head.seq, seconds[i].head.seq);
      assert.deepEqual(loaded.versionstamp, seconds[i].versionstamp);
      const text = textOf(loaded.updates);
      assert.ok(text.includes(`${i}:b`) && (i !== stale || text.includes("other")), text);
    }
  }));

Deno.test("an append made while a commit is in flight is committed before that commit's answer is taken, two commits at most", async () => {
  const kv = await Deno.openKv(":memory:");
  // Each commit is made in the KV, but its answer is held back until the test lets it go (as
  // when the event loop is busy).
  const held: (() => void)[] = [];
  let commits = 0;
  const slow = overrideKv(kv, {
    atomic: () =>
      wrapCommit(kv.atomic(), async (commit) => {
        commits++;
        const res = await commit();
        await new Promise<void>((go) => held.push(go));
        return res;
      }),
  });
  const settle = async (check: () => boolean, what: string) => {
    for (let i = 0; i < 200 && !check(); i++) await new Promise((r) => setTimeout(r, 5));
    assert.ok(check(), what);
  };
  try {
    const store = new DocStore(slow);
    const append = (id: string) =>
      store.append(id, textUpdate(new Y.Doc(), (t) => t.insert(0, id)));
    const first = append("p1");
    await settle(() => held.length === 1, "the first commit made");
    const second = append("p2");
    await settle(() => held.length === 2, "the second commit made while the first is unanswered");
    const third = append("p3");
    await new Promise((r) => setTimeout(r, 30));
    assert.equal(commits, 2, "no third commit while two are in flight");
    held.shift()!();
    assert.equal((await first).head.seq, 1);
    await settle(() => commits === 3, "the third commit once the first was answered");
    while (held.length < 2) await new Promise((r) => setTimeout(r, 5));
    for (const go of held.splice(0)) go();
    await Promise.all([second, third]);
    const reader = new DocStore(kv);
    for (const id of ["p1", "p2", "p3"]) {
      const loaded = (await reader.load(id))!;
      assert.equal(loaded.head.seq, 1);
      assert.equal(textOf(loaded.updates), id);
    }
  } finally {
    kv.close();
  }
});
