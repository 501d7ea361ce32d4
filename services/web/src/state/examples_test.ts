/// <reference lib="deno.ns" />
import assert from "node:assert/strict";
import { Hono } from "hono";
import { serve } from "./test_server.ts";
import { deleteExample, loadExamples, saveExample } from "./examples.ts";

Deno.test("examples store: saving creates without an id and overwrites with one", async () => {
  using server = serve(
    new Hono()
      .get("/api/examples", (c) => c.json({ items: [] }))
      .post("/api/examples", (c) => c.json({ example_id: "e1" }, 201))
      .put("/api/examples/:id", (c) => c.json({ example_id: "e1" }))
      .delete("/api/examples/:id", (c) => c.body(null, 204)),
  );
  const body = { workspace_id: "ws1", title: "Launch", content: "We shipped", tags: ["news"] };
  await loadExamples("ws1");
  await saveExample(body);
  await saveExample(body, "e1");
  await deleteExample("ws1", "e1");
  assert.deepEqual(server.seen.map((s) => [s.method, s.path, s.body ?? s.query]), [
    ["GET", "/api/examples", { workspaceId: "ws1" }],
    ["POST", "/api/examples", body],
    ["PUT", "/api/examples/e1", body],
    ["DELETE", "/api/examples/e1", { workspaceId: "ws1" }],
  ]);
});
