/// <reference lib="deno.ns" />
import assert from "node:assert/strict";
import { Hono } from "hono";
import { serve } from "./test_server.ts";
import { ApiError } from "./api.ts";
import { generatePost, iteratePost, loadAiStatus, proofreadPost } from "./genai.ts";

Deno.test("genai store: answers the generated text, the suggestion, the annotations and the status", async () => {
  using server = serve(
    new Hono()
      .post("/api/genai/generate", (c) => c.json({ content: "A post" }))
      .post("/api/genai/iterate", (c) => c.json({ suggestion: "A better post" }))
      .post("/api/genai/proofread", (c) => c.json({ annotations: [], model: "unusable" }))
      .get("/api/genai/status", (c) => c.json({ backend_configured: false })),
  );
  assert.equal(
    await generatePost({ workspace_id: "ws1", idea_id: "i1", tone: "casual" }),
    "A post",
  );
  assert.deepEqual(server.seen[0].body, { workspace_id: "ws1", idea_id: "i1", tone: "casual" });
  assert.equal(
    await iteratePost({
      workspace_id: "ws1",
      post_id: "p1",
      instruction: "Shorter",
      current_content: "x",
    }),
    "A better post",
  );
  assert.deepEqual(await proofreadPost({ workspace_id: "ws1", post_id: "p1", content: "x" }), {
    annotations: [],
    model: "unusable",
  });
  assert.deepEqual(await loadAiStatus(), { backend_configured: false });
});

Deno.test("genai store: a busy AI's refusal keeps its status and message", async () => {
  using _server = serve(
    new Hono().post("/api/genai/generate", (c) => c.json({ error: "Too many requests" }, 429)),
  );
  await assert.rejects(
    () => generatePost({ workspace_id: "ws1", idea_id: "i1" }),
    (err) => err instanceof ApiError && err.status === 429 && err.message === "Too many requests",
  );
});
