/// <reference lib="deno.ns" />
import assert from "node:assert/strict";
import { Hono } from "hono";
import { serve } from "./test_server.ts";
import type { Post } from "./posts.ts";
import {
  createPost,
  getPost,
  loadPosts,
  postBoard,
  publishPost,
  schedulePost,
  setPostStatus,
  unschedulePost,
  updatePost,
  watchPost,
} from "./posts.ts";

const post = { post_id: "p1", workspace_id: "ws1", title: "T", status: "draft" } as Post;

Deno.test("posts store: lists, reads and writes one post with its workspace", async () => {
  using server = serve(
    new Hono()
      .get("/api/posts", (c) => c.json({ items: [post] }))
      .get("/api/posts/:id", (c) => c.json(post))
      .post("/api/posts", (c) => c.json(post, 201))
      .put("/api/posts/:id", (c) => c.json(post))
      .put("/api/posts/:id/status", (c) => c.json({ ...post, status: "in_review" })),
  );
  assert.deepEqual((await loadPosts("ws1")).items, [post]);
  assert.deepEqual(server.seen[0].query, { workspaceId: "ws1" }, "the whole list: no limit");
  await getPost("ws1", "p1");
  assert.deepEqual(server.seen[1].query, { workspaceId: "ws1" });
  await createPost("ws1", { title: "From idea", source_idea_id: "i1" });
  assert.deepEqual(server.seen[2].body, {
    workspace_id: "ws1",
    title: "From idea",
    source_idea_id: "i1",
  });
  await updatePost(post, { title: "T2", tags: ["a"] });
  assert.deepEqual(server.seen[3].body, { workspace_id: "ws1", title: "T2", tags: ["a"] });
  assert.equal((await setPostStatus(post, "in_review")).status, "in_review");
  assert.deepEqual(server.seen[4].body, { workspace_id: "ws1", status: "in_review" });
});

Deno.test("posts store: schedules at a time or the next slot, publishes, unschedules", async () => {
  using server = serve(
    new Hono()
      .post("/api/posts/:id/schedule", (c) => c.json(post))
      .post("/api/posts/:id/publish", (c) => c.json(post))
      .delete("/api/posts/:id/schedule", (c) => c.json(post)),
  );
  await schedulePost("ws1", "p1", "2030-01-01T09:00:00Z");
  await schedulePost("ws1", "p1");
  await publishPost("ws1", "p1");
  await unschedulePost("ws1", "p1");
  assert.deepEqual(server.seen.map((s) => [s.method, s.path, s.body ?? s.query]), [
    ["POST", "/api/posts/p1/schedule", { workspace_id: "ws1", at: "2030-01-01T09:00:00Z" }],
    ["POST", "/api/posts/p1/schedule", { workspace_id: "ws1" }],
    ["POST", "/api/posts/p1/publish", { workspace_id: "ws1" }],
    ["DELETE", "/api/posts/p1/schedule", { workspaceId: "ws1" }],
  ]);
});

Deno.test("posts store: a watched post is re-read on wake and reported only when its review fields change", async () => {
  let status = "draft";
  using server = serve(new Hono().get("/api/posts/:id", (c) => c.json({ ...post, status })));
  let shown = post;
  const changes: string[] = [];
  let wake = () => {};
  let visible = false;
  const stop = watchPost({
    workspaceId: "ws1",
    postId: "p1",
    everyMs: 60_000,
    current: () => shown,
    onChange: (fresh, before) => {
      changes.push(`${before.status}->${fresh.status}`);
      shown = fresh;
    },
    isVisible: () => visible,
    subscribeWake: (w) => {
      wake = w;
      return () => {
        wake = () => {};
      };
    },
  });
  const settle = () => new Promise((r) => setTimeout(r, 20));
  wake();
  await settle();
  assert.equal(server.seen.length, 0, "a hidden tab reads nothing");
  visible = true;
  wake();
  await settle();
  assert.equal(server.seen.length, 1);
  assert.deepEqual(changes, [], "the same post is not a change");
  status = "in_review";
  wake();
  await settle();
  assert.deepEqual(changes, ["draft->in_review"]);
  stop();
  wake();
  await settle();
  assert.equal(server.seen.length, 2, "a stopped watch reads nothing");
});

Deno.test("posts store: the board asks the server for one status a page at a time", async () => {
  using server = serve(
    new Hono().get("/api/posts", (c) =>
      c.json(
        c.req.query("cursor")
          ? { items: [{ ...post, post_id: "p2" }], count: 1, next_cursor: null }
          : { items: [post], count: 1, next_cursor: "c1" },
      )),
  );
  await postBoard.load({ workspaceId: "ws1", status: "in_review" });
  await postBoard.more();
  assert.deepEqual(server.seen.map((s) => s.query), [
    { workspaceId: "ws1", status: "in_review", limit: "50" },
    { workspaceId: "ws1", status: "in_review", limit: "50", cursor: "c1" },
  ]);
  assert.deepEqual(postBoard.state.value?.items.map((p) => p.post_id), ["p1", "p2"]);
  assert.equal(postBoard.state.value?.nextCursor, null);
});
