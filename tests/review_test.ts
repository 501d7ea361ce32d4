import assert from "node:assert/strict";
import { api, e2e, startTestStack, type TestStack } from "./helpers/stack.ts";
import { createUser, type TestUser } from "./helpers/users.ts";

/** A workspace owned by `owner` with `others` added in the given roles. */
async function workspaceWith(
  stack: TestStack,
  owner: TestUser,
  others: [TestUser, "editor" | "viewer"][] = [],
): Promise<string> {
  const ws = await api(stack, "POST", "/api/workspaces", {
    token: owner.access_token,
    body: { name: "Review space" },
  });
  assert.equal(ws.status, 201, JSON.stringify(ws.body));
  for (const [user, role] of others) {
    const add = await api(stack, "POST", `/api/workspaces/${ws.body.workspace_id}/members`, {
      token: owner.access_token,
      body: { email: user.email, role },
    });
    assert.equal(add.status, 201, JSON.stringify(add.body));
  }
  return ws.body.workspace_id;
}

Deno.test("workspace: approval_required, timezone and slot format (CONTRACT 12)", e2e, async () => {
  const stack = await startTestStack();
  try {
    const owner = await createUser(stack);
    const viewer = await createUser(stack);
    const wsId = await workspaceWith(stack, owner, [[viewer, "viewer"]]);
    const fresh = await api(stack, "GET", `/api/workspaces/${wsId}`, {
      token: owner.access_token,
    });
    assert.equal(fresh.body.approval_required, false);
    assert.equal(fresh.body.timezone, "UTC");

    const put = (body: Record<string, unknown>, token = owner.access_token) =>
      api(stack, "PUT", `/api/workspaces/${wsId}`, { token, body });
    const ok = await put({
      approval_required: true,
      timezone: "Europe/Zurich",
      publishing_slots: ["Mon 09:30", "Sun 23:59"],
    });
    assert.equal(ok.status, 200, JSON.stringify(ok.body));
    assert.equal(ok.body.approval_required, true);
    assert.equal(ok.body.timezone, "Europe/Zurich");
    assert.deepEqual(ok.body.publishing_slots, ["Mon 09:30", "Sun 23:59"]);

    const badZone = await put({ timezone: "Mars/Olympus" });
    assert.equal(badZone.status, 400);
    assert.match(badZone.body.error, /timezone/);
    for (const slot of ["Monday 09:30", "Mon 24:00", "Mon 9:30", "mon 09:30", "Mon 09:60"]) {
      const bad = await put({ publishing_slots: [slot] });
      assert.equal(bad.status, 400, slot);
      assert.match(bad.body.error, /publishing_slots/);
    }
    const badFlag = await put({ approval_required: "yes" });
    assert.equal(badFlag.status, 400);
    assert.match(badFlag.body.error, /approval_required/);
    const byViewer = await put({ approval_required: false }, viewer.access_token);
    assert.equal(byViewer.status, 403);

    const after = await api(stack, "GET", `/api/workspaces/${wsId}`, {
      token: owner.access_token,
    });
    assert.equal(after.body.timezone, "Europe/Zurich");
    assert.equal(after.body.approval_required, true);
  } finally {
    await stack.close();
  }
});
