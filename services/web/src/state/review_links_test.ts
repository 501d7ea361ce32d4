/// <reference lib="deno.ns" />
import assert from "node:assert/strict";
import { Hono } from "hono";
import { serve } from "./test_server.ts";
import {
  createReviewLink,
  decideReviewLink,
  loadReviewLinks,
  openReviewLink,
  revokeReviewLink,
} from "./review_links.ts";

Deno.test("review links store: makes, lists and revokes a post's links, and the reviewer opens and decides by token", async () => {
  using server = serve(
    new Hono()
      .post(
        "/api/posts/:id/review-links",
        (c) =>
          c.json({ link_id: "l1", url: "http://app/review/t1", expires_at: "2026-01-04" }, 201),
      )
      .get("/api/posts/:id/review-links", (c) => c.json({ items: [], count: 0 }))
      .delete("/api/posts/:id/review-links/:link", (c) => c.body(null, 204))
      .get("/api/review-links/:token", (c) => c.json({ reviewer_name: "Clara" }))
      .post(
        "/api/review-links/:token/decision",
        async (c) => c.json({ decision: (await c.req.json()).decision }),
      ),
  );
  assert.equal((await createReviewLink("ws1", "p1", "Clara", 72)).url, "http://app/review/t1");
  await loadReviewLinks("ws1", "p1");
  await revokeReviewLink("ws1", "p1", "l1");
  assert.equal((await openReviewLink("t1")).reviewer_name, "Clara");
  assert.deepEqual(await decideReviewLink("t1", "approve", null), { decision: "approve" });
  assert.deepEqual(server.seen.map((s) => [s.method, s.path, s.body ?? s.query]), [
    ["POST", "/api/posts/p1/review-links", {
      workspace_id: "ws1",
      reviewer_name: "Clara",
      expires_in_hours: 72,
    }],
    ["GET", "/api/posts/p1/review-links", { workspaceId: "ws1" }],
    ["DELETE", "/api/posts/p1/review-links/l1", { workspaceId: "ws1" }],
    ["GET", "/api/review-links/t1", {}],
    ["POST", "/api/review-links/t1/decision", { decision: "approve", note: null }],
  ]);
  // The reviewer has no session: nothing authenticates these calls but the token.
  assert.equal(server.seen[3].headers.get("authorization"), null);
});
