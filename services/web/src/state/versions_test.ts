/// <reference lib="deno.ns" />
import assert from "node:assert/strict";
import { Hono } from "hono";
import { serve } from "./test_server.ts";
import { loadVersion, loadVersions, restoreVersion, saveVersion } from "./versions.ts";

Deno.test("versions store: lists, reads, saves with or without a label, restores", async () => {
  const summary = {
    version_id: "v1",
    reason: "saved",
    created_at: "2027-03-22T08:00:00Z",
    created_by: "u1",
    created_by_name: "Ada",
    label: "before launch",
  };
  using server = serve(
    new Hono()
      .get("/api/posts/:id/versions", (c) => c.json({ items: [summary], count: 1 }))
      .get("/api/posts/:id/versions/:v", (c) => c.json({ ...summary, text: "Old words" }))
      .post("/api/posts/:id/versions", (c) => c.json(summary, 201))
      .post("/api/posts/:id/versions/:v/restore", (c) => c.json({ post_id: c.req.param("id") })),
  );
  assert.equal((await loadVersions("ws1", "p1")).items[0].label, "before launch");
  assert.deepEqual(server.seen[0].query, { workspaceId: "ws1" });
  assert.equal((await loadVersion("ws1", "p1", "v1")).text, "Old words");
  assert.equal(server.seen[1].path, "/api/posts/p1/versions/v1");
  await saveVersion("ws1", "p1", "  before launch ");
  assert.deepEqual(server.seen[2].body, { workspace_id: "ws1", label: "before launch" });
  await saveVersion("ws1", "p1", "   ");
  assert.deepEqual(server.seen[3].body, { workspace_id: "ws1" }, "a blank label is left out");
  assert.equal((await restoreVersion("ws1", "p1", "v1")).post_id, "p1");
  assert.equal(server.seen[4].path, "/api/posts/p1/versions/v1/restore");
  assert.deepEqual(server.seen[4].body, { workspace_id: "ws1" });
});
