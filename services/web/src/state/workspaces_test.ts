/// <reference lib="deno.ns" />
import assert from "node:assert/strict";
import { Hono } from "hono";
import { serve } from "./test_server.ts";
import {
  createWorkspace,
  deleteWorkspace,
  loadWorkspace,
  loadWorkspaces,
  updateWorkspace,
  workspaces,
} from "./workspaces.ts";

const ws = (id: string, name = id) => ({ workspace_id: id, name, member_role: "owner" });

Deno.test("workspaces store: create, update (with a new role) and delete keep the list in step", async () => {
  let list = [ws("w1")];
  const names = new Map<string, string>();
  using server = serve(
    new Hono()
      .get("/api/workspaces", (c) => c.json({ workspaces: list }))
      .post("/api/workspaces", async (c) => c.json(ws("w2", (await c.req.json()).name), 201))
      .get("/api/workspaces/:id", (c) => c.json({ ...ws(c.req.param("id")), member_count: 1 }))
      .put("/api/workspaces/:id", async (c) => {
        const body = await c.req.json();
        if (body.name) names.set(c.req.param("id"), body.name);
        return c.json({ ...ws(c.req.param("id"), names.get(c.req.param("id"))), ...body });
      })
      .delete("/api/workspaces/:id", (c) => {
        list = list.filter((w) => w.workspace_id !== c.req.param("id"));
        return c.body(null, 204);
      }),
  );
  await loadWorkspaces();
  await createWorkspace("Second");
  assert.deepEqual(workspaces.value?.map((w) => w.name), ["w1", "Second"]);
  assert.equal((await loadWorkspace("w1")).member_count, 1);
  await updateWorkspace("w1", { name: "Renamed" });
  await updateWorkspace("w1", { owner_id: "u2" }, "editor");
  assert.deepEqual(workspaces.value?.[0], {
    ...ws("w1", "Renamed"),
    member_role: "editor",
    owner_id: "u2",
  });
  await deleteWorkspace("w1");
  assert.deepEqual(workspaces.value?.map((w) => w.workspace_id), []);
  assert.deepEqual(server.seen.slice(-2).map((s) => `${s.method} ${s.path}`), [
    "DELETE /api/workspaces/w1",
    "GET /api/workspaces",
  ]);
});

Deno.test("workspaces store: a new workspace takes the time zone it is created with", async () => {
  workspaces.value = [];
  using server = serve(
    new Hono()
      .post(
        "/api/workspaces",
        async (c) => c.json({ ...ws("w9", (await c.req.json()).name), timezone: "UTC" }, 201),
      )
      .put(
        "/api/workspaces/:id",
        async (c) => c.json({ ...ws(c.req.param("id"), "Zoned"), ...(await c.req.json()) }),
      ),
  );
  const created = await createWorkspace("Zoned", undefined, "Europe/Berlin");
  assert.equal(created.timezone, "Europe/Berlin");
  assert.equal(workspaces.value?.[0].timezone, "Europe/Berlin");
  assert.deepEqual(server.seen.map((s) => [s.method, s.path, s.body]), [
    ["POST", "/api/workspaces", { name: "Zoned" }],
    ["PUT", "/api/workspaces/w9", { timezone: "Europe/Berlin" }],
  ]);
  // Already in that zone: no second call.
  await createWorkspace("Plain", undefined, "UTC");
  assert.equal(server.seen.length, 3);
});
