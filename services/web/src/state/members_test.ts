/// <reference lib="deno.ns" />
import assert from "node:assert/strict";
import { Hono } from "hono";
import { serve } from "./test_server.ts";
import { ApiError } from "./api.ts";
import {
  cancelInvite,
  inviteMember,
  loadInvites,
  loadMembers,
  members,
  removeMember,
} from "./members.ts";

const member = (id: string) => ({ user_id: id, role: "editor", email: `${id}@x.test`, name: id });

Deno.test("members store: lists into its signal; a removed member leaves it", async () => {
  using server = serve(
    new Hono()
      .get("/api/workspaces/:id/members", (c) => c.json({ members: [member("u1"), member("u2")] }))
      .delete("/api/workspaces/:id/members/:userId", (c) => c.body(null, 204)),
  );
  await loadMembers("ws1");
  assert.deepEqual(members.value?.members.map((m) => m.user_id), ["u1", "u2"]);
  await removeMember("ws1", "u2");
  assert.equal(server.seen[1].path, "/api/workspaces/ws1/members/u2");
  assert.deepEqual(members.value?.members.map((m) => m.user_id), ["u1"]);
});

Deno.test("members store: invites by email and cancels a pending invite", async () => {
  using server = serve(
    new Hono()
      .post(
        "/api/workspaces/:id/members",
        (c) => c.json({ status: "invited", email: "a@x.test" }, 201),
      )
      .get("/api/workspaces/:id/invites", (c) => c.json({ invites: [] }))
      .delete(
        "/api/workspaces/:id/invites/:email",
        (c) => c.json({ error: "No pending invite" }, 404),
      ),
  );
  const answer = await inviteMember("ws1", "a@x.test", "viewer");
  assert.ok("status" in answer && answer.status === "invited");
  assert.deepEqual(server.seen[0].body, { email: "a@x.test", role: "viewer" });
  assert.deepEqual(await loadInvites("ws1"), { invites: [] });
  await assert.rejects(
    () => cancelInvite("ws1", "a@x.test"),
    (err) => err instanceof ApiError && err.status === 404,
  );
  assert.equal(server.seen[2].path, "/api/workspaces/ws1/invites/a%40x.test");
});
