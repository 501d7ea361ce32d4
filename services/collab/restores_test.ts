import assert from "node:assert/strict";
import * as Y from "yjs";
import { exportKv, importKv, readLines } from "../../shared/archive/kv_backup.ts";
import { overrideKv, wrapCommit } from "../../shared/kv/kv.ts";
import type { CollabHub, HubOptions } from "./hub.ts";
import { KEY_FAMILIES } from "./keys.ts";
import { CloseCode } from "./protocol.ts";
import { DocStore, PART_BYTES, RestoredError } from "./store.ts";
import { closeCode, connect, FakeClient, testHub } from "./testing.ts";

/**
 * A restore replaces collab's records under every instance serving from the KV: nothing a room
 * loaded before it stores may land on the restored records (the restore epoch each commit
 * checks), and every instance drops those rooms, closing their sockets with 4409.
 */

function update(text: string): Uint8Array {
  return Y.encodeStateAsUpdate(docWith(text));
}

function docWith(text: string): Y.Doc {
  const doc = new Y.Doc();
  doc.getText("content").insert(0, text);
  return doc;
}

function textOf(updates: Uint8Array[]): string {
  const doc = new Y.Doc();
  for (const u of updates) Y.applyUpdate(doc, u);
  return doc.getText("content").toString();
}

async function backup(kv: Deno.Kv): Promise<string[]> {
  const lines: string[] = [];
  for await (const line of readLines(exportKv(kv, KEY_FAMILIES))) lines.push(line);
  return lines;
}

/** A restore as collab's import route runs it: the epoch moves before and after the writes. */
async function restore(kv: Deno.Kv, lines: string[]): Promise<void> {
  const store = new DocStore(kv);
  await store.moveRestoreEpoch();
  await importKv(
    kv,
    (async function* () {
      yield lines;
    })(),
    KEY_FAMILIES,
  );
  await store.moveRestoreEpoch();
}

async function keysUnder(kv: Deno.Kv, prefix: Deno.KvKey): Promise<number> {
  let n = 0;
  for await (const _ of kv.list({ prefix })) n++;
  return n;
}

async function until(check: () => boolean, what: string, timeoutMs = 3_000) {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

Deno.test("appends from before a restore fail for good and store nothing; the others of their batch land", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const store = new DocStore(kv);
    const before = await store.restoreEpoch();
    await store.append("p1", update("one"), { epoch: before });
    await store.moveRestoreEpoch();
    const after = await store.restoreEpoch();
    assert.notEqual(after, before);
    const results = await Promise.allSettled([
      store.append("p1", update("two"), { epoch: before }),
      store.append("p2", update("new"), { epoch: after }),
      store.appendSignals("p3", [{ from: "i", kind: "event", message: { n: 1 } }]),
      store.append("p4", update("four"), { epoch: before }),
      store.appendSignals("p5", [{ from: "i", kind: "event", message: { n: 2 } }], before),
    ]);
    assert.deepEqual(results.map((r) => r.status), [
      "rejected",
      "fulfilled",
      "fulfilled",
      "rejected",
      "rejected",
    ]);
    for (const r of results) {
      if (r.status === "rejected") assert.ok(r.reason instanceof RestoredError, String(r.reason));
    }
    assert.equal((await store.getHead("p1"))!.seq, 1);
    assert.equal(textOf((await store.load("p1"))!.updates), "one");
    assert.equal(await store.getHead("p4"), null);
    assert.equal(await keysUnder(kv, ["doc_signals", "p5"]), 0);
    // A full batch of one epoch is within KV's limit of checks (one per append, one epoch).
    const many = await Promise.all(
      Array.from({ length: 120 }, (_, i) => store.append(`m${i}`, update("m"), { epoch: after })),
    );
    assert.ok(many.every((e) => e.head.seq === 1));
  } finally {
    kv.close();
  }
});

Deno.test("a chunked append from before a restore writes none of its chunks", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const store = new DocStore(kv);
    const before = await store.restoreEpoch();
    await store.moveRestoreEpoch();
    const big = update("x".repeat(12 * PART_BYTES));
    await assert.rejects(store.append("p1", big, { epoch: before }), RestoredError);
    assert.equal(await keysUnder(kv, ["doc_update_chunks"]), 0);
    assert.equal(await store.getHead("p1"), null);
  } finally {
    kv.close();
  }
});

Deno.test("a compaction from before a restore leaves the restored document as it was restored", async (t) => {
  const kv = await Deno.openKv(":memory:");
  try {
    const store = new DocStore(kv);
    const epoch = await store.restoreEpoch();
    const doc = new Y.Doc();
    const type = (text: string) => {
      const before = Y.encodeStateVector(doc);
      doc.getText("content").insert(doc.getText("content").length, text);
      return store.append("p1", Y.encodeStateAsUpdate(doc, before), { epoch });
    };
    for (const word of ["backed ", "up "]) await type(word);
    const lines = await backup(kv);
    for (const word of ["then ", "lost"]) await type(word);
    const restoredText = "backed up ";

    await t.step("one whose snapshot was not flipped in yet", async () => {
      await restore(kv, lines);
      await assert.rejects(
        store.compact("p1", Y.encodeStateAsUpdate(doc), 4, null, epoch),
        RestoredError,
      );
      const loaded = (await store.load("p1"))!;
      assert.equal(textOf(loaded.updates), restoredText);
      assert.equal(loaded.head.snapshot_id, null);
      assert.equal(await keysUnder(kv, ["doc_snapshots"]), 0, "its snapshot parts are removed");
    });

    await t.step(
      "one flipped in just before the restore deletes none of the restored updates",
      async () => {
        const now = await store.restoreEpoch();
        // The restore runs right after the compaction's head flip (its second commit).
        let commits = 0;
        const racing = new DocStore(overrideKv(kv, {
          atomic: () =>
            wrapCommit(kv.atomic(), async (commit) => {
              const res = await commit();
              if (++commits === 2) await restore(kv, lines);
              return res;
            }),
        }));
        await assert.rejects(
          racing.compact("p1", Y.encodeStateAsUpdate(docWith(restoredText)), 2, null, now),
          RestoredError,
        );
        const loaded = (await store.load("p1"))!;
        assert.equal(textOf(loaded.updates), restoredText);
        assert.equal(loaded.head.seq, 2);
        assert.equal(await keysUnder(kv, ["doc_updates", "p1"]), 2);
      },
    );
  } finally {
    kv.close();
  }
});

/** Two hubs on one KV, as two instances sharing a database. */
async function withTwoHubs(
  options: Partial<HubOptions>,
  fn: (a: CollabHub, b: CollabHub, kv: Deno.Kv) => Promise<void>,
) {
  const kv = await Deno.openKv(":memory:");
  const hubs = [0, 1].map(() => testHub(new DocStore(kv), { watch: false, ...options }));
  for (const hub of hubs) await hub.start();
  try {
    await fn(hubs[0], hubs[1], kv);
  } finally {
    for (const hub of hubs) await hub.close();
    kv.close();
  }
}

Deno.test("a restore run through one instance closes the other's idle sockets with 4409, and it then serves the restored text", () =>
  // Nothing followed: the other instance learns of the restore from its check of the epoch.
  withTwoHubs({ followPollMs: 0, restoreCheckMs: 50 }, async (hubA, hubB, kv) => {
    const editor = new FakeClient("u1");
    const idle = new FakeClient("u2");
    const room = await connect(hubB, "p1", editor);
    await connect(hubB, "p2", idle);
    editor.doc.getText("content").insert(0, "backed up");
    await room.flush();
    const lines = await backup(kv);
    editor.doc.getText("content").insert(9, ", then lost");
    await room.flush();

    await restore(kv, lines);
    await hubA.restored();
    await until(() => editor.closed !== null && idle.closed !== null, "B's sockets to close");
    assert.deepEqual(editor.closed, { code: CloseCode.Restored, reason: "Restored from a backup" });
    assert.equal(closeCode(idle), CloseCode.Restored);
    const fresh = new FakeClient("u1");
    await connect(hubB, "p1", fresh);
    assert.equal(fresh.text, "backed up");
    assert.equal(await hubB.content("p1"), "backed up");
  }));

Deno.test("an edit on another instance's room after a restore began is never stored, and its sockets close with 4409", () =>
  // The check of the epoch comes late here: the edit's own commit fails on it first.
  withTwoHubs({ followPollMs: 0, restoreCheckMs: 60_000 }, async (_hubA, hubB, kv) => {
    const editor = new FakeClient("u1");
    const other = new FakeClient("u2");
    const room = await connect(hubB, "p1", editor);
    await connect(hubB, "p2", other);
    editor.doc.getText("content").insert(0, "backed up");
    await room.flush();
    const lines = await backup(kv);

    await restore(kv, lines);
    editor.doc.getText("content").insert(0, "never stored: ");
    await until(() => editor.closed !== null, "the editor's socket to close");
    assert.equal(closeCode(editor), CloseCode.Restored, "final: no reconnect merging it back");
    await until(() => other.closed !== null, "the other room on B to close too");
    assert.equal(closeCode(other), CloseCode.Restored);
    const store = new DocStore(kv);
    const loaded = (await store.load("p1"))!;
    assert.equal(textOf(loaded.updates), "backed up");
    const fresh = new FakeClient("u1");
    await connect(hubB, "p1", fresh);
    assert.equal(fresh.text, "backed up");
  }));

Deno.test("a room whose document a restore took away (the backup predates it) closes with 4409 on the other instance, not as deleted", () =>
  // Following sees the head gone before the (late) check of the epoch would.
  withTwoHubs({ followPollMs: 20, restoreCheckMs: 60_000 }, async (hubA, hubB, kv) => {
    const lines = await backup(kv);
    const onA = new FakeClient("u1");
    const onB = new FakeClient("u2");
    const room = await connect(hubA, "p1", onA);
    await connect(hubB, "p1", onB);
    onA.doc.getText("content").insert(0, "after the backup");
    await room.flush();
    await until(() => onB.text === "after the backup", "B to follow A");

    await restore(kv, lines);
    await until(() => onB.closed !== null, "B's socket to close");
    assert.equal(closeCode(onB), CloseCode.Restored);
    assert.equal(await new DocStore(kv).getHead("p1"), null);
  }));

Deno.test("a room catching up while a restore rewrites the records closes as restored, not as broken", () =>
  withTwoHubs({ followPollMs: 20, restoreCheckMs: 60_000 }, async (hubA, hubB, kv) => {
    const onA = new FakeClient("u1");
    const onB = new FakeClient("u2");
    const room = await connect(hubA, "p1", onA);
    await connect(hubB, "p1", onB);
    onA.doc.getText("content").insert(0, "typed");
    await room.flush();
    await until(() => onB.text === "typed", "B to follow A");
    // Midway through an import: the epoch moved, a head is written, its updates are not yet.
    const store = new DocStore(kv);
    await store.moveRestoreEpoch();
    const head = (await store.getHead("p1"))!;
    await kv.set(["doc_heads", "p1"], { ...head, seq: head.seq + 5 });
    await until(() => onB.closed !== null, "B's socket to close");
    assert.equal(closeCode(onB), CloseCode.Restored, "a reconnect would bring the old text back");
  }));
