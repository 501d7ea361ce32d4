/**
 * The actions service's own refusals (400 bad input, 403 non-member or wrong role, 404 unknown
 * or through another workspace) and who may delete, on the actions service alone: workspaces
 * and auth's user lookups are stubs, the caller is handed in as the gateway hands it on. The
 * DMs and Slack stay in actions_test.ts, end to end.
 */
import assert from "node:assert/strict";
import type { Caller } from "../shared/http/identity.ts";
import { createActionsService } from "../services/actions/mod.ts";
import { e2e } from "./helpers/stack.ts";
import {
  type ServiceHarness,
  startServiceHarness,
  stubAuth,
  stubWorkspaces,
  testCaller,
} from "./helpers/service_harness.ts";

/** An action as the API answers it (the fields these tests read). */
interface ActionJson {
  action_id: string;
  workspace_id: string;
  title: string;
  created_at: string;
  updated_at: string;
  [field: string]: unknown;
}

/**
 * A caller that the steps below name the way they do on the whole stack (`user.access_token`
 * is what a request is made as): here it is the caller itself.
 */
type TestUser = Caller & { access_token: Caller };
function user(name: string, over: Partial<Caller> = {}): TestUser {
  const caller = testCaller(name, over);
  return { ...caller, access_token: caller };
}

/** A route call as the gateway passes it on for the token's caller. */
function api(
  stack: ServiceHarness,
  method: string,
  path: string,
  options: { token?: Caller; body?: unknown } = {},
) {
  return stack.request(method, path, { as: options.token, body: options.body });
}

/** The actions service, four users and a platform admin, and two workspaces of `creator`. */
interface World {
  stack: ServiceHarness;
  creator: TestUser;
  assignee: TestUser;
  other: TestUser;
  /** a member of no workspace */
  outsider: TestUser;
  /** a platform admin, a member of `ws` */
  admin: TestUser;
  /** creator's, with assignee, other and admin as editors */
  ws: string;
  /** creator's alone */
  ws2: string;
}

function actionsTest(name: string, body: (t: Deno.TestContext, w: World) => Promise<void>) {
  Deno.test(name, e2e, async (t) => {
    const creator = user("Cora Creator");
    const assignee = user("Avi Assignee");
    const other = user("Oli Other");
    const outsider = user("Out Sider");
    const admin = user("Test Admin", { role: "admin" });
    const workspaces = stubWorkspaces();
    const ws = workspaces.create(creator, [[assignee, "editor"], [other, "editor"], [
      admin,
      "editor",
    ]]);
    const ws2 = workspaces.create(creator);
    const stack = await startServiceHarness("actions", createActionsService, {
      peers: {
        workspaces: workspaces.fetch,
        auth: stubAuth([creator, assignee, other, outsider, admin]).fetch,
      },
    });
    try {
      await body(t, { stack, creator, assignee, other, outsider, admin, ws, ws2 });
    } finally {
      await stack.close();
    }
  });
}

/** A new action of the creator in `ws` (assigned to the assignee unless `body` says otherwise). */
async function newAction(w: World, body: Record<string, unknown> = {}): Promise<ActionJson> {
  const res = await api(w.stack, "POST", "/api/actions", {
    token: w.creator.access_token,
    body: { workspace_id: w.ws, title: "An action", assignee_id: w.assignee.user_id, ...body },
  });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body;
}

actionsTest("actions: list and get refuse bad input, non-members and unknown ids", async (t, w) => {
  const { stack, creator, other, outsider } = w;

  await t.step("list answers 400 without workspaceId and 403 to a non-member", async () => {
    const missing = await api(stack, "GET", "/api/actions", { token: creator.access_token });
    assert.equal(missing.status, 400);
    assert.match(missing.body.error, /workspaceId/);
    const outside = await api(stack, "GET", `/api/actions?workspaceId=${w.ws}`, {
      token: outsider.access_token,
    });
    assert.equal(outside.status, 403);
    assert.equal(outside.body.error, "Not a workspace member");
  });

  await t.step("get answers 200, 400, 403 and 404 (also through another workspace)", async () => {
    const action = await newAction(w);
    const path = `/api/actions/${action.action_id}`;
    const get = (url: string, user: TestUser) =>
      api(stack, "GET", url, { token: user.access_token });
    const ok = await get(`${path}?workspaceId=${w.ws}`, other);
    assert.equal(ok.status, 200);
    assert.deepEqual(ok.body, action);
    assert.equal((await get(path, other)).status, 400);
    assert.equal((await get(`${path}?workspaceId=${w.ws}`, outsider)).status, 403);
    assert.equal((await get(`/api/actions/nope?workspaceId=${w.ws}`, other)).status, 404);
    assert.equal((await get(`${path}?workspaceId=${w.ws2}`, creator)).status, 404);
  });
});

actionsTest(
  "actions: respond and update refuse bad input, wrong callers, unknown ids",
  async (t, w) => {
    const { stack, creator, assignee, other, outsider, admin } = w;
    const put = (path: string, user: TestUser, body: unknown) =>
      api(stack, "PUT", path, { token: user.access_token, body });

    await t.step("respond refuses 400, a non-assignee 403, a non-member 403, 404", async () => {
      const action = await newAction(w);
      const path = `/api/actions/${action.action_id}/response`;
      const declined = { workspace_id: w.ws, response: "declined" };
      const bad = await put(path, assignee, { workspace_id: w.ws, response: "maybe" });
      assert.equal(bad.status, 400);
      assert.match(bad.body.error, /response/);
      assert.equal((await put(path, assignee, { response: "declined" })).status, 400);
      for (const user of [creator, other, admin]) {
        const res = await put(path, user, declined);
        assert.equal(res.status, 403, user.email);
        assert.equal(res.body.error, "Only the assignee can respond to this action");
      }
      const outside = await put(path, outsider, declined);
      assert.equal(outside.status, 403);
      assert.equal(outside.body.error, "Not a workspace member");
      assert.equal((await put("/api/actions/nope/response", assignee, declined)).status, 404);
    });

    await t.step("update refuses 400, a non-member 403 and an unknown action 404", async () => {
      const action = await newAction(w, { title: "Unchanged" });
      const path = `/api/actions/${action.action_id}`;
      const notMember = await put(path, creator, {
        workspace_id: w.ws,
        assignee_id: outsider.user_id,
      });
      assert.equal(notMember.status, 400);
      assert.match(notMember.body.error, /assignee_id/);
      const noWs = await put(path, creator, { title: "x" });
      assert.equal(noWs.status, 400);
      assert.match(noWs.body.error, /workspace_id/);
      assert.equal((await put(path, creator, { workspace_id: w.ws, title: "  " })).status, 400);
      assert.equal((await put(path, outsider, { workspace_id: w.ws, title: "x" })).status, 403);
      assert.equal(
        (await put("/api/actions/nope", creator, { workspace_id: w.ws, title: "x" })).status,
        404,
      );
      const current = await api(stack, "GET", `${path}?workspaceId=${w.ws}`, {
        token: creator.access_token,
      });
      assert.deepEqual(current.body, action);
    });
  },
);

actionsTest("actions: delete (creator or a platform admin who is a member)", async (t, w) => {
  const { stack, creator, assignee, other, outsider, admin } = w;
  const del = (path: string, user: TestUser) =>
    api(stack, "DELETE", path, { token: user.access_token });

  await t.step("delete: 400 without workspaceId, 403 for others, 204 for the creator", async () => {
    const action = await newAction(w);
    const path = `/api/actions/${action.action_id}`;
    assert.equal((await del(path, creator)).status, 400);
    const outside = await del(`${path}?workspaceId=${w.ws}`, outsider);
    assert.equal(outside.status, 403);
    assert.equal(outside.body.error, "Not a workspace member");
    for (const user of [assignee, other]) {
      const res = await del(`${path}?workspaceId=${w.ws}`, user);
      assert.equal(res.status, 403, user.email);
      assert.equal(res.body.error, "Only the creator or an admin can delete this action");
    }
    const res = await del(`${path}?workspaceId=${w.ws}`, creator);
    assert.equal(res.status, 204);
    assert.equal(res.body, null);
    const gone = await api(stack, "GET", `${path}?workspaceId=${w.ws}`, {
      token: creator.access_token,
    });
    assert.equal(gone.status, 404);
    assert.equal((await del(`${path}?workspaceId=${w.ws}`, creator)).status, 404);
  });

  await t.step("delete: a platform admin who is not a member is refused 403", async () => {
    const action = await newAction(w, { workspace_id: w.ws2, assignee_id: creator.user_id });
    const res = await del(`/api/actions/${action.action_id}?workspaceId=${w.ws2}`, admin);
    assert.equal(res.status, 403);
    assert.equal(res.body.error, "Not a workspace member");
  });

  await t.step("delete: a platform admin who is a member may delete another's action", async () => {
    const action = await newAction(w);
    const res = await del(`/api/actions/${action.action_id}?workspaceId=${w.ws}`, admin);
    assert.equal(res.status, 204);
  });
});
