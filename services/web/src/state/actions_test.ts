/// <reference lib="deno.ns" />
import assert from "node:assert/strict";
import { Hono } from "hono";
import { serve } from "./test_server.ts";
import {
  type Action,
  actionBoard,
  addAttachment,
  createAction,
  deleteAction,
  loadAttachments,
  patchAction,
  refreshAction,
  removeAttachment,
  respondToAction,
  setActionStatus,
  updateAction,
} from "./actions.ts";

const action = (id: string) => ({ action_id: id, workspace_id: "ws1", title: id }) as Action;
const fields = {
  title: "Check facts",
  description: "",
  assignee_id: "u2",
  due_date: null,
  priority: "p2_high",
  linked_post_id: null,
};

Deno.test("actions store: the board's query names only the filters given; a deleted action leaves it", async () => {
  using server = serve(
    new Hono()
      .get(
        "/api/actions",
        (c) => c.json({ items: [action("a1"), action("a2")], next_cursor: null }),
      )
      .delete("/api/actions/:id", (c) => c.body(null, 204)),
  );
  await actionBoard.load({ workspaceId: "ws1", status: "", assigneeId: "u1" });
  await actionBoard.load({ workspaceId: "ws1", status: "open", createdBy: "u9" });
  assert.deepEqual(server.seen.map((s) => s.query), [
    { workspaceId: "ws1", assigneeId: "u1", limit: "50" },
    { workspaceId: "ws1", status: "open", createdBy: "u9", limit: "50" },
  ]);
  await deleteAction("ws1", "a1");
  assert.deepEqual(actionBoard.state.value?.items.map((a) => a.action_id), ["a2"]);
});

Deno.test("actions store: a changed action is patched in place, or leaves a board it no longer fits", async () => {
  let fresh = { ...action("a1"), status: "open" } as Action;
  using _server = serve(
    new Hono()
      .get("/api/actions", (c) => c.json({ items: [fresh, action("a2")], next_cursor: null }))
      .get(
        "/api/actions/:id",
        (c) =>
          c.req.param("id") === "a1" ? c.json(fresh) : c.json({ error: "Action not found" }, 404),
      ),
  );
  const q = { workspaceId: "ws1", status: "open" as const };
  await actionBoard.load(q);
  patchAction({ ...fresh, title: "Renamed" }, q);
  assert.equal(actionBoard.state.value?.items[0].title, "Renamed");
  fresh = { ...fresh, status: "completed" };
  await refreshAction(q, "a1");
  assert.deepEqual(actionBoard.state.value?.items.map((a) => a.action_id), ["a2"]);
  await refreshAction(q, "a2");
  assert.deepEqual(actionBoard.state.value?.items, [], "gone from the server: gone from the board");
});

Deno.test("actions store: create, edit, status, answer and attachments go to their routes", async () => {
  using server = serve(
    new Hono()
      .post("/api/actions", (c) => c.json(action("a3"), 201))
      .put("/api/actions/:id", (c) => c.json(action("a3")))
      .put("/api/actions/:id/status", (c) => c.json(action("a3")))
      .put("/api/actions/:id/response", (c) => c.json(action("a3")))
      .get("/api/actions/:id/attachments", (c) => c.json({ items: [] }))
      .post(
        "/api/actions/:id/attachments",
        (c) => c.json({ key: "k1", uploadUrl: "http://s3/x" }, 201),
      )
      .delete("/api/actions/:id/attachments", (c) => c.body(null, 204)),
  );
  assert.equal((await createAction("ws1", fields)).action_id, "a3");
  await updateAction("ws1", "a3", fields);
  await setActionStatus(action("a3"), "completed");
  await respondToAction(action("a3"), "accepted");
  await loadAttachments("ws1", "a3");
  assert.equal((await addAttachment("ws1", "a3", "f.pdf", "application/pdf")).key, "k1");
  await removeAttachment("ws1", "a3", "k1");
  assert.deepEqual(server.seen.map((s) => [s.method, s.path, s.body ?? s.query]), [
    ["POST", "/api/actions", { workspace_id: "ws1", ...fields }],
    ["PUT", "/api/actions/a3", { workspace_id: "ws1", ...fields }],
    ["PUT", "/api/actions/a3/status", { workspace_id: "ws1", status: "completed" }],
    ["PUT", "/api/actions/a3/response", { workspace_id: "ws1", response: "accepted" }],
    ["GET", "/api/actions/a3/attachments", { workspaceId: "ws1" }],
    ["POST", "/api/actions/a3/attachments", {
      workspace_id: "ws1",
      filename: "f.pdf",
      contentType: "application/pdf",
    }],
    ["DELETE", "/api/actions/a3/attachments", { workspaceId: "ws1", key: "k1" }],
  ]);
});
