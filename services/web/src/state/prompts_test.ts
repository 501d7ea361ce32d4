/// <reference lib="deno.ns" />
import assert from "node:assert/strict";
import { Hono } from "hono";
import { serve } from "./test_server.ts";
import {
  createPrompt,
  deletePrompt,
  loadList,
  loadPrompts,
  makeDefaultPrompt,
  saveList,
  updatePrompt,
} from "./prompts.ts";

const fields = {
  name: "Short",
  system_instruction: "Be brief",
  user_template: "{idea_title}",
  tone: "professional" as const,
  default_audience: null,
  default_language: null,
};

Deno.test("prompts store: prompt writes carry the workspace; the default is set by id", async () => {
  using server = serve(
    new Hono()
      .get("/api/prompts", (c) => c.json({ items: [] }))
      .post("/api/prompts", (c) => c.json({ prompt_id: "pr1" }, 201))
      .put("/api/prompts/:id/default", (c) => c.json({}))
      .put("/api/prompts/:id", (c) => c.json({ prompt_id: "pr1" }))
      .delete("/api/prompts/:id", (c) => c.body(null, 204)),
  );
  await loadPrompts("ws1");
  await createPrompt("ws1", fields);
  await updatePrompt("ws1", "pr1", fields);
  await makeDefaultPrompt("ws1", "pr1");
  await deletePrompt("ws1", "pr1");
  assert.deepEqual(server.seen.map((s) => [s.method, s.path, s.body ?? s.query]), [
    ["GET", "/api/prompts", { workspaceId: "ws1" }],
    ["POST", "/api/prompts", { workspace_id: "ws1", ...fields }],
    ["PUT", "/api/prompts/pr1", { workspace_id: "ws1", ...fields }],
    ["PUT", "/api/prompts/pr1/default", { workspace_id: "ws1" }],
    ["DELETE", "/api/prompts/pr1", { workspaceId: "ws1" }],
  ]);
});

Deno.test("prompts store: audiences and languages load and save as whole lists", async () => {
  const items = [{ id: "a1", name: "Engineers" }];
  using server = serve(
    new Hono()
      .get("/api/audiences", (c) => c.json({ items }))
      .get("/api/languages", (c) => c.json({ items: [] }))
      .put("/api/audiences", (c) => c.json({ items }))
      .put("/api/languages", (c) => c.json({ items: [] })),
  );
  assert.deepEqual((await loadList("ws1", "audiences")).items, items);
  assert.deepEqual((await loadList("ws1", "languages")).items, []);
  assert.deepEqual((await saveList("ws1", "audiences", items)).items, items);
  await saveList("ws1", "languages", []);
  assert.deepEqual(server.seen.slice(2).map((s) => [s.path, s.body]), [
    ["/api/audiences", { workspace_id: "ws1", audiences: items }],
    ["/api/languages", { workspace_id: "ws1", languages: [] }],
  ]);
});
