/// <reference lib="deno.ns" />
import assert from "node:assert/strict";
import { Hono } from "hono";
import { serve } from "./test_server.ts";
import {
  addComment,
  addReply,
  comments,
  deleteComment,
  deleteReply,
  loadComments,
  toggleResolved,
} from "./comments.ts";

Deno.test("comments store: lists a post's comments and sends each write to its route", async () => {
  using server = serve(
    new Hono()
      .get("/api/posts/:id/comments", (c) => c.json({ items: [{ comment_id: "c1" }] }))
      .post("/api/posts/:id/comments", (c) => c.json({ comment_id: "c2" }, 201))
      .post("/api/posts/:id/comments/:cid/resolve", (c) => c.json({}))
      .post("/api/posts/:id/comments/:cid/replies", (c) => c.json({}, 201))
      .delete("/api/posts/:id/comments/:cid/replies/:rid", (c) => c.body(null, 204))
      .delete("/api/posts/:id/comments/:cid", (c) => c.body(null, 204)),
  );
  await loadComments("ws1", "p1");
  assert.deepEqual(comments.value?.items.map((c) => c.comment_id), ["c1"]);
  assert.equal(
    (await addComment("ws1", "p1", "Hi", { markId: "m1", excerpt: "word" })).comment_id,
    "c2",
  );
  await addComment("ws1", "p1", "Plain");
  await toggleResolved("ws1", "p1", "c1");
  await addReply("ws1", "p1", "c1", "Yes");
  await deleteReply("ws1", "p1", "c1", "r1");
  await deleteComment("ws1", "p1", "c1");
  assert.deepEqual(server.seen.slice(1).map((s) => [s.method, s.path, s.body ?? s.query]), [
    ["POST", "/api/posts/p1/comments", {
      workspace_id: "ws1",
      body: "Hi",
      mark_id: "m1",
      text_excerpt: "word",
    }],
    ["POST", "/api/posts/p1/comments", { workspace_id: "ws1", body: "Plain" }],
    ["POST", "/api/posts/p1/comments/c1/resolve", { workspace_id: "ws1" }],
    ["POST", "/api/posts/p1/comments/c1/replies", { workspace_id: "ws1", body: "Yes" }],
    ["DELETE", "/api/posts/p1/comments/c1/replies/r1", { workspaceId: "ws1" }],
    ["DELETE", "/api/posts/p1/comments/c1", { workspaceId: "ws1" }],
  ]);
});

Deno.test("comments store: a comment and a reply send the members they mention, and no empty list", async () => {
  using server = serve(
    new Hono()
      .post("/api/posts/:id/comments", (c) => c.json({ comment_id: "c2" }, 201))
      .post("/api/posts/:id/comments/:cid/replies", (c) => c.json({}, 201)),
  );
  await addComment("ws1", "p1", "Hi @Bob", undefined, ["u2"]);
  await addReply("ws1", "p1", "c1", "Thanks @Ann", ["u1"]);
  await addReply("ws1", "p1", "c1", "No one", []);
  assert.deepEqual(server.seen.map((s) => s.body), [
    { workspace_id: "ws1", body: "Hi @Bob", mentions: ["u2"] },
    { workspace_id: "ws1", body: "Thanks @Ann", mentions: ["u1"] },
    { workspace_id: "ws1", body: "No one" },
  ]);
});
