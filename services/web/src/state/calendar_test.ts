/// <reference lib="deno.ns" />
import assert from "node:assert/strict";
import { Hono } from "hono";
import { serve } from "./test_server.ts";
import { loadPlanning, movePost } from "./calendar.ts";

const post = (id: string, status: string, approved_by: string | null = null) => ({
  post_id: id,
  workspace_id: "ws1",
  title: `Post ${id}`,
  content: "Text",
  status,
  approved_by,
});

function planningServer() {
  return serve(
    new Hono()
      .get("/api/workspaces/:id/calendar", (c) =>
        c.json({
          timezone: "Europe/Zurich",
          items: [
            {
              kind: "published",
              at: "2027-03-22T08:00:00Z",
              post_id: "p0",
              title: "Out",
              status: "published",
            },
            { kind: "slot", at: "2027-03-22T09:00:00Z", post_id: null, title: null, status: null },
            {
              kind: "scheduled",
              at: "2027-03-23T08:00:00Z",
              post_id: "p1",
              title: "One",
              status: "scheduled",
            },
            {
              kind: "scheduled",
              at: "2027-03-24T08:00:00Z",
              post_id: "p2",
              title: null,
              status: "scheduled",
            },
          ],
        }))
      .get("/api/posts", (c) => {
        const status = c.req.query("status");
        const items = status === "scheduled"
          ? [post("p1", "scheduled", "u9"), post("p2", "scheduled")]
          : status === "approved"
          ? [post("p3", "approved", "u9")]
          : status === "draft"
          ? [post("p4", "draft")]
          : [];
        return c.json({ items, count: items.length });
      })
      .post(
        "/api/posts/:id/schedule",
        async (c) =>
          c.json({
            ...post(c.req.param("id"), "scheduled"),
            scheduled_at: (await c.req.json()).at,
          }),
      ),
  );
}

Deno.test("calendar store: the range's items with each scheduled post's approval, and the posts ready", async () => {
  using server = planningServer();
  const plan = await loadPlanning("ws1", "2027-03-22", "2027-03-28", { approvalRequired: true });
  assert.deepEqual(server.seen[0].query, { from: "2027-03-22", to: "2027-03-28" });
  assert.equal(server.seen[0].path, "/api/workspaces/ws1/calendar");
  assert.equal(plan.timezone, "Europe/Zurich");
  assert.deepEqual(plan.items.map((i) => [i.kind, "post_id" in i ? i.post_id : null]), [
    ["published", "p0"],
    ["slot", null],
    ["scheduled", "p1"],
    ["scheduled", "p2"],
  ]);
  const [, , one, two] = plan.items;
  assert.equal("approved" in one && one.approved, true, "approved by a reviewer");
  assert.equal("approved" in two && two.approved, false, "scheduled without an approval");
  assert.equal("title" in two && two.title, "");
  assert.deepEqual(plan.ready.map((p) => p.post_id), ["p3"], "only approved posts when required");
});

Deno.test("calendar store: without required approval drafts are ready too; a move schedules at the new time", async () => {
  using server = planningServer();
  const plan = await loadPlanning("ws1", "2027-03-22", "2027-03-28", { approvalRequired: false });
  assert.deepEqual(plan.ready.map((p) => p.post_id), ["p3", "p4"]);
  const statuses = server.seen.filter((r) => r.path === "/api/posts").map((r) => r.query.status);
  assert.deepEqual(statuses.sort(), ["approved", "draft", "in_review", "scheduled"]);
  const moved = await movePost("ws1", "p1", "2027-03-25T08:00:00.000Z");
  assert.equal(moved.scheduled_at, "2027-03-25T08:00:00.000Z");
  assert.deepEqual(server.seen.at(-1)?.body, {
    workspace_id: "ws1",
    at: "2027-03-25T08:00:00.000Z",
  });
});
