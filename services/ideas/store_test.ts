import assert from "node:assert/strict";
import { IdeasStore } from "./store.ts";

async function withStore(fn: (store: IdeasStore) => Promise<void>) {
  const kv = await Deno.openKv(":memory:");
  try {
    await fn(new IdeasStore(kv));
  } finally {
    kv.close();
  }
}

const input = (over: Partial<Parameters<IdeasStore["create"]>[0]> = {}) => ({
  workspace_id: "ws1",
  title: "A title",
  description: "Some text",
  tags: [] as string[],
  source_url: "",
  created_by: "u1",
  ...over,
});

Deno.test("ideas store lists newest first with status, tags and author filters ANDed", async () => {
  await withStore(async (store) => {
    const a = await store.create(input({ tags: ["x", "y"], created_by: "u1" }));
    const b = await store.create(input({ tags: ["x"], created_by: "u2" }));
    const c = await store.create(input({ tags: ["y"], created_by: "u1" }));
    await store.create(input({ workspace_id: "ws2" }));
    assert.deepEqual((await store.list("ws1")).map((i) => i.idea_id), [
      c.idea_id,
      b.idea_id,
      a.idea_id,
    ]);
    assert.deepEqual((await store.list("ws1", { tags: ["x", "y"] })).map((i) => i.idea_id), [
      a.idea_id,
    ]);
    assert.deepEqual(
      (await store.list("ws1", { tags: ["y"], authorId: "u1" })).map((i) => i.idea_id),
      [c.idea_id, a.idea_id],
    );
    await store.changeStatus("ws1", c.idea_id, "converted");
    assert.deepEqual(
      (await store.list("ws1", { status: "new", authorId: "u1" })).map((i) => i.idea_id),
      [a.idea_id],
    );
  });
});

Deno.test("ideas store keeps the total count across creates and deletes", async () => {
  await withStore(async (store) => {
    const a = await store.create(input());
    await store.create(input({ workspace_id: "ws2" }));
    assert.equal(await store.totalIdeas(), 2);
    assert.equal(await store.delete("ws1", a.idea_id), true);
    assert.equal(await store.delete("ws1", a.idea_id), false);
    assert.equal(await store.totalIdeas(), 1);
    assert.equal(await store.getById(a.idea_id), null);
  });
});

Deno.test("ideas store allows only new to converted and converts idempotently", async () => {
  await withStore(async (store) => {
    const idea = await store.create(input());
    assert.deepEqual(await store.changeStatus("ws1", idea.idea_id, "new"), {
      kind: "conflict",
      current: "new",
    });
    const converted = await store.convert("ws1", idea.idea_id, "post1");
    assert.equal(converted.kind, "changed");
    const again = await store.convert("ws1", idea.idea_id, "post1");
    assert.equal(again.kind === "changed" && again.idea.linked_post_id, "post1");
    assert.deepEqual(await store.convert("ws1", idea.idea_id, "post2"), {
      kind: "conflict",
      current: "converted",
    });
    assert.deepEqual(await store.changeStatus("ws1", "nope", "converted"), { kind: "not_found" });
  });
});

Deno.test("ideas store refuses an idea too large for one KV value with a 400", async () => {
  await withStore(async (store) => {
    await assert.rejects(
      () => store.create(input({ description: "€".repeat(20_000), tags: ["a".repeat(200)] })),
      (err: Error & { status?: number }) => err.status === 400,
    );
    assert.equal(await store.totalIdeas(), 0);
  });
});

Deno.test("deleting the active capture token leaves older tokens and clears both pointers", async () => {
  await withStore(async (store) => {
    await store.createCaptureToken("h1", "ws1", "u1");
    await store.createCaptureToken("h2", "ws1", "u1");
    assert.equal(await store.activeTokenHash("u1"), "h2");
    assert.equal(await store.deleteActiveCaptureToken("u1"), true);
    assert.equal(await store.findCaptureToken("h2"), null);
    assert.equal((await store.findCaptureToken("h1"))?.user_id, "u1");
    assert.equal(await store.activeTokenHash("u1"), null);
    assert.equal(await store.deleteActiveCaptureToken("u1"), false);
  });
});
