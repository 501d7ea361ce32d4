/// <reference lib="deno.ns" />
import assert from "node:assert/strict";
import { Hono } from "hono";
import { serve } from "./test_server.ts";
import type { Schemas } from "./api.ts";
import { loadReviews, requestReview, submitReview } from "./reviews.ts";

const post = { post_id: "p1", workspace_id: "ws1" } as Schemas["Post"];

Deno.test("reviews store: lists reviews, asks reviewers and sends a decision", async () => {
  using server = serve(
    new Hono()
      .get("/api/posts/:id/reviews", (c) => c.json({ items: [] }))
      .post("/api/posts/:id/review-requests", (c) => c.json({ ...post, status: "in_review" }))
      .post("/api/posts/:id/reviews", (c) => c.json({ ...post, status: "approved" })),
  );
  await loadReviews("ws1", "p1");
  assert.deepEqual(server.seen[0].query, { workspaceId: "ws1" });
  assert.equal((await requestReview(post, ["u2"], null)).status, "in_review");
  assert.deepEqual(server.seen[1].body, { workspace_id: "ws1", reviewer_ids: ["u2"], note: null });
  assert.equal((await submitReview(post, "approve", "Good")).status, "approved");
  assert.deepEqual(server.seen[2].body, { workspace_id: "ws1", decision: "approve", note: "Good" });
});
