/// <reference lib="deno.ns" />
import assert from "node:assert/strict";
import { Hono } from "hono";
import { ApiError } from "./api.ts";
import {
  createIdea,
  deleteIdea,
  dismissPendingIdea,
  getIdea,
  ideaBoard,
  pendingIdeas,
  quickAddIdea,
  updateIdea,
} from "./ideas.ts";
import { serve } from "./test_server.ts";

const idea = (id: string, title = "An idea") => ({
  idea_id: id,
  workspace_id: "ws1",
  title,
  description: "",
  tags: [],
  source_url: "",
  status: "new",
  author_id: "u1",
  created_at: "2030-01-01T00:00:00Z",
  updated_at: "2030-01-01T00:00:00Z",
});

Deno.test("ideas store: the board loads the filtered list a page at a time and drops a deleted idea", async () => {
  using server = serve(
    new Hono()
      .get("/api/ideas", (c) =>
        c.json(
          c.req.query("cursor") === "after-i2"
            ? { items: [idea("i2"), idea("i3")], count: 2, next_cursor: null }
            : { items: [idea("i1"), idea("i2")], count: 2, next_cursor: "after-i2" },
        ))
      .delete("/api/ideas/:id", (c) => c.body(null, 204)),
  );
  await ideaBoard.load({ workspaceId: "ws1", status: "new", tags: "", author: "u9" });
  assert.deepEqual(server.seen[0].query, {
    workspaceId: "ws1",
    status: "new",
    authorId: "u9",
    limit: "50",
  });
  assert.equal(ideaBoard.state.value?.nextCursor, "after-i2");
  await ideaBoard.more();
  assert.deepEqual(server.seen[1].query.cursor, "after-i2");
  // an item a page repeats is shown once
  assert.deepEqual(ideaBoard.state.value?.items.map((i) => i.idea_id), ["i1", "i2", "i3"]);
  assert.equal(ideaBoard.state.value?.nextCursor, null);
  await ideaBoard.more();
  assert.equal(server.seen.length, 2, "no request once the last page came");
  await deleteIdea("ws1", "i1");
  assert.deepEqual(server.seen[2].method, "DELETE");
  assert.deepEqual(server.seen[2].path, "/api/ideas/i1");
  assert.deepEqual(server.seen[2].query, { workspaceId: "ws1" });
  assert.deepEqual(ideaBoard.state.value?.items.map((i) => i.idea_id), ["i2", "i3"]);
});

Deno.test("ideas store: a failed page keeps what was shown, and more tries that page again", async () => {
  let fail = true;
  using server = serve(
    new Hono().get("/api/ideas", (c) => {
      if (!c.req.query("cursor")) return c.json({ items: [idea("i1")], next_cursor: "c1" });
      if (fail) return c.json({ error: "Service unavailable" }, 503);
      return c.json({ items: [idea("i2")], next_cursor: null });
    }),
  );
  await ideaBoard.load({ workspaceId: "ws1" });
  await ideaBoard.more();
  assert.ok(ideaBoard.state.value?.error instanceof ApiError);
  assert.deepEqual(ideaBoard.state.value?.items.map((i) => i.idea_id), ["i1"]);
  fail = false;
  await ideaBoard.more();
  assert.equal(ideaBoard.state.value?.error, null);
  assert.deepEqual(ideaBoard.state.value?.items.map((i) => i.idea_id), ["i1", "i2"]);
  assert.deepEqual(server.seen.map((s) => s.query.cursor), [undefined, "c1", "c1"]);
});

Deno.test("ideas store: writes send the body and answer the saved idea", async () => {
  using server = serve(
    new Hono()
      .post("/api/ideas", async (c) => c.json(idea("i3", (await c.req.json()).title), 201))
      .put(
        "/api/ideas/:id",
        async (c) => c.json(idea(c.req.param("id"), (await c.req.json()).title)),
      ),
  );
  const created = await createIdea({ workspace_id: "ws1", title: "New", tags: [], source_url: "" });
  assert.deepEqual(created.title, "New");
  assert.deepEqual(server.seen[0].body, {
    workspace_id: "ws1",
    title: "New",
    tags: [],
    source_url: "",
  });
  const saved = await updateIdea("i3", { workspace_id: "ws1", title: "Renamed" });
  assert.deepEqual([saved.idea_id, saved.title], ["i3", "Renamed"]);
});

Deno.test("ideas store: a missing idea is null; a refused write carries the server's message", async () => {
  using _server = serve(
    new Hono()
      .get("/api/ideas/:id", (c) => c.json({ error: "Idea not found" }, 404))
      .post("/api/ideas", (c) => c.json({ error: "title: Required" }, 400)),
  );
  assert.deepEqual(await getIdea("ws1", "gone"), null);
  await assert.rejects(
    () => createIdea({ workspace_id: "ws1", title: "", tags: [], source_url: "" }),
    (err) => err instanceof ApiError && err.status === 400 && err.message === "title: Required",
  );
});

Deno.test("ideas store: a quick-added idea is pending at once, leaves when saved, stays with its error when refused", async () => {
  let release = () => {};
  let refuse = false;
  using _server = serve(
    new Hono().post("/api/ideas", async (c) => {
      const { title } = await c.req.json();
      if (refuse) return c.json({ error: "Too many ideas" }, 429);
      await new Promise<void>((r) => release = r);
      return c.json(idea("i9", title), 201);
    }),
  );
  const saving = quickAddIdea("ws1", { key: "k1", text: "Fast thought" });
  assert.deepEqual(pendingIdeas.value, [{ key: "k1", text: "Fast thought", workspaceId: "ws1" }]);
  await new Promise((r) => setTimeout(r, 10));
  release();
  assert.equal((await saving)?.title, "Fast thought");
  assert.deepEqual(pendingIdeas.value, []);

  refuse = true;
  assert.equal(await quickAddIdea("ws1", { key: "k2", text: "Another" }), null);
  const left = pendingIdeas.peek();
  assert.equal(left.length, 1);
  assert.ok(left[0].error instanceof ApiError);
  dismissPendingIdea("k2");
  assert.deepEqual(pendingIdeas.value, []);
});

Deno.test("ideas store: a late answer for older filters does not replace the newer board", async () => {
  let releaseOld = () => {};
  using _server = serve(
    new Hono().get("/api/ideas", async (c) => {
      if (c.req.query("status") === "new") await new Promise<void>((r) => releaseOld = r);
      return c.json({ items: [idea(c.req.query("status") ?? "all")], next_cursor: null });
    }),
  );
  const old = ideaBoard.load({ workspaceId: "ws1", status: "new" });
  await new Promise((r) => setTimeout(r, 10));
  await ideaBoard.load({ workspaceId: "ws1" });
  releaseOld();
  await old;
  assert.deepEqual(ideaBoard.state.value?.items.map((i) => i.idea_id), ["all"]);
  assert.equal(ideaBoard.state.value?.key, ideaBoard.keyOf({ workspaceId: "ws1" }));
});
