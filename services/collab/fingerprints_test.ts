import assert from "node:assert/strict";
import { sha256Hex } from "../../shared/crypto/ids.ts";
import { createLogger } from "../../shared/log.ts";
import { CollabHub } from "./hub.ts";
import { DocStore } from "./store.ts";

Deno.test("posts gets the SHA-256 of many live texts in one call; collab keeps each post's workspace", async () => {
  const kv = await Deno.openKv(":memory:");
  const store = new DocStore(kv);
  const hub = new CollabHub({
    store,
    logger: createLogger("collab", { level: "error" }),
    compactAfter: 100,
    idleTimeoutMs: 30_000,
    graceMs: 0,
    membershipCheckMs: 60_000,
    isMember: () => Promise.resolve(true),
    followPollMs: 0,
    watch: false,
  });
  hub.start();
  try {
    await hub.setContent("p1", "w1", "Approved words.");
    await hub.setContent("p2", "w1", "Other words.");
    assert.deepEqual(await hub.fingerprints(["p1", "p2", "p-none"]), {
      p1: await sha256Hex("Approved words."),
      p2: await sha256Hex("Other words."),
    });
    await hub.setContent("p1", "w1", "Our approved words.");
    assert.deepEqual(await hub.fingerprints(["p1"]), {
      p1: await sha256Hex("Our approved words."),
    });
    assert.equal(await store.docWorkspace("p1"), "w1", "the document's workspace is kept");
    await store.setDocWorkspaces([{ post_id: "p3", workspace_id: "w2" }]);
    assert.equal(await store.docWorkspace("p3"), "w2", "a post without a document has one too");
    await hub.deleteDoc("p3");
    assert.equal(await store.docWorkspace("p3"), null, "deleting the post forgets it");
  } finally {
    await hub.close();
    kv.close();
  }
});
