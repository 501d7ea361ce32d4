/**
 * Action items end to end: every route and status,
 * the direct message each trigger sends (to the outbox and through a loopback Slack), none on
 * the non-triggers, and a DM retried after a Slack failure delivered once. Each test starts its
 * own stack, and each step makes the actions it needs, so one failure does not cascade.
 */
import assert from "node:assert/strict";
import { readOutbox, settledOutboxLength, waitForOutbox } from "./helpers/outbox.ts";
import { api, e2e, startTestStack, type TestStack } from "./helpers/stack.ts";
import { createUser, loginAdmin, type TestUser, uniqueEmail } from "./helpers/users.ts";
import { type FakeSlack, startFakeSlack } from "./fakes/slack.ts";
import { waitFor } from "./helpers/wait.ts";

const SLACK_TOKEN = "xoxb-test-token";

/** An action as the API answers it (the fields these tests read). */
interface ActionJson {
  action_id: string;
  workspace_id: string;
  title: string;
  created_at: string;
  updated_at: string;
  [field: string]: unknown;
}

/** A stack with a loopback Slack, four users and an admin, and two workspaces of `creator`. */
interface World {
  stack: TestStack;
  slack: FakeSlack;
  creator: TestUser;
  assignee: TestUser;
  other: TestUser;
  /** signed up and approved, but a member of no workspace */
  outsider: TestUser;
  /** the platform admin, a member of `ws` */
  admin: TestUser;
  /** creator's, with assignee, other and admin as editors */
  ws: string;
  /** creator's alone */
  ws2: string;
}

/** A Deno.test on its own World, closed afterwards. */
function actionsTest(name: string, body: (t: Deno.TestContext, w: World) => Promise<void>) {
  Deno.test(name, e2e, async (t) => {
    const emails = {
      creator: uniqueEmail("creator"),
      assignee: uniqueEmail("assignee"),
      other: uniqueEmail("other"),
    };
    const slack = startFakeSlack({
      token: SLACK_TOKEN,
      users: {
        [emails.creator]: "UCREATOR",
        [emails.assignee]: "UASSIGNEE",
        [emails.other]: "UOTHER",
      },
    });
    const stack = await startTestStack({
      SLACK_BOT_TOKEN: SLACK_TOKEN,
      SLACK_API_URL: slack.apiUrl,
    });
    try {
      const creator = await createUser(stack, { email: emails.creator, name: "Cora Creator" });
      const assignee = await createUser(stack, { email: emails.assignee, name: "Avi Assignee" });
      const other = await createUser(stack, { email: emails.other, name: "Oli Other" });
      const outsider = await createUser(stack, { name: "Out Sider" });
      const admin = await loginAdmin(stack);
      const ws = await createWorkspace(stack, creator, "Actions WS");
      for (const u of [assignee, other, admin]) await addMember(stack, creator, ws, u.email);
      const ws2 = await createWorkspace(stack, creator, "Second WS");
      await body(t, { stack, slack, creator, assignee, other, outsider, admin, ws, ws2 });
    } finally {
      await stack.close();
      await slack.close();
    }
  });
}

async function createWorkspace(stack: TestStack, owner: TestUser, name: string) {
  const res = await api(stack, "POST", "/api/workspaces", {
    token: owner.access_token,
    body: { name },
  });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body.workspace_id as string;
}

async function addMember(stack: TestStack, owner: TestUser, ws: string, email: string) {
  const res = await api(stack, "POST", `/api/workspaces/${ws}/members`, {
    token: owner.access_token,
    body: { email, role: "editor" },
  });
  assert.equal(res.status, 201, JSON.stringify(res.body));
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

/** DMs about one action, optionally of one template, once the outbox has stopped growing. */
async function dmsFor(stack: TestStack, actionId: string, template?: string) {
  await settledOutboxLength(stack.outboxFile);
  return (await readOutbox(stack.outboxFile)).filter((l) =>
    l.channel === "dm" && l.data.action_id === actionId && (!template || l.template === template)
  );
}

/** The outbox line of `template` about `actionId`, waited for. */
function dmOf(stack: TestStack, template: string, actionId: string) {
  return waitForOutbox(
    stack.outboxFile,
    (l) => l.template === template && l.data.action_id === actionId,
  );
}

actionsTest("actions: create, list and get", async (t, w) => {
  const { stack, creator, assignee, other, outsider } = w;

  await t.step("every action route is in the OpenAPI document", async () => {
    const doc = await api(stack, "GET", "/api/openapi.json");
    assert.equal(doc.status, 200);
    for (const path of ["/api/actions", "/api/actions/{id}", "/api/actions/{id}/status"]) {
      assert.ok(doc.body.paths[path], path);
    }
    assert.deepEqual(Object.keys(doc.body.paths["/api/actions/{id}/attachments"]).sort(), [
      "delete",
      "get",
      "post",
    ]);
    assert.ok(doc.body.paths["/api/actions/{id}/response"].put);
  });

  await t.step("create answers 201 with the documented fields", async () => {
    const action = await newAction(w, {
      title: "  Review the draft  ",
      description: "Check the hook",
      linked_post_id: "post-1",
      priority: "p2_high",
      due_date: "2026-12-01",
    });
    assert.equal(action.title, "Review the draft");
    assert.equal(action.workspace_id, w.ws);
    assert.equal(action.assignee_id, assignee.user_id);
    assert.equal(action.assignee_name, "Avi Assignee");
    assert.equal(action.assignee_response, "pending");
    assert.equal(action.status, "open");
    assert.equal(action.description, "Check the hook");
    assert.equal(action.linked_post_id, "post-1");
    assert.equal(action.priority, "p2_high");
    assert.equal(action.due_date, "2026-12-01");
    assert.deepEqual(action.attachments, []);
    assert.equal(action.created_by, creator.user_id);
    assert.equal(action.completed_at, null);
    assert.match(action.created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+00:00$/);
    assert.equal(action.updated_at, action.created_at);
  });

  await t.step("an action created without priority or due_date has them as strings", async () => {
    // The spec's Action table types both as string (only linked_post_id, completed_at are
    // "or null").
    const action = await newAction(w);
    assert.equal(action.priority, "");
    assert.equal(action.due_date, "");
    assert.equal(action.description, "");
    assert.equal(action.linked_post_id, null);
  });

  await t.step("create sends action_created to the assignee, by outbox and Slack", async () => {
    const action = await newAction(w, { title: "Review the draft" });
    const line = await dmOf(stack, "action_created", action.action_id);
    assert.equal(line.channel, "dm");
    assert.equal(line.to, assignee.email);
    assert.match(line.subject, /Review the draft/);
    const link = `${stack.url}/workspaces/${w.ws}/actions?action=${action.action_id}`;
    assert.equal(line.data.url, link);
    assert.ok(line.text.includes(link));
    await waitFor(() => w.slack.posts.some((p) => p.channel === "UASSIGNEE"), "the assignee's DM");
    assert.ok(
      w.slack.calls.some((c) =>
        c.method === "users.lookupByEmail" && c.params.email === assignee.email
      ),
    );
  });

  await t.step(
    "create refuses bad input with 400, non-members with 403, no token 401",
    async () => {
      const cases: [unknown, RegExp][] = [
        [{ title: "x", assignee_id: assignee.user_id }, /workspace_id/],
        [{ workspace_id: w.ws, assignee_id: assignee.user_id }, /title/],
        [{ workspace_id: w.ws, title: "   ", assignee_id: assignee.user_id }, /title/],
        [{ workspace_id: w.ws, title: "x" }, /assignee_id/],
        [{ workspace_id: w.ws, title: "x", assignee_id: "  " }, /assignee_id/],
        [{ workspace_id: w.ws, title: "x", assignee_id: outsider.user_id }, /assignee/],
        [{ workspace_id: "w".repeat(3000), title: "x", assignee_id: "a" }, /workspace_id/],
      ];
      for (const [body, message] of cases) {
        const res = await api(stack, "POST", "/api/actions", { token: creator.access_token, body });
        assert.equal(res.status, 400, JSON.stringify(body));
        assert.match(res.body.error, message);
      }
      const body = { workspace_id: w.ws, title: "x", assignee_id: assignee.user_id };
      const res = await api(stack, "POST", "/api/actions", { token: outsider.access_token, body });
      assert.equal(res.status, 403);
      assert.equal(res.body.error, "Not a workspace member");
      assert.equal((await api(stack, "POST", "/api/actions", { body })).status, 401);
    },
  );

  await t.step("list filters by exact status, assigneeId and linkedPostId", async () => {
    const ws = await createWorkspace(stack, creator, "Filters");
    for (const u of [assignee, other]) await addMember(stack, creator, ws, u.email);
    const first = await newAction(w, { workspace_id: ws, linked_post_id: "post-1" });
    const second = await newAction(w, { workspace_id: ws, assignee_id: other.user_id });
    const ids = async (query: string) => {
      const res = await api(stack, "GET", `/api/actions?workspaceId=${ws}${query}`, {
        token: assignee.access_token,
      });
      assert.equal(res.status, 200, query);
      assert.equal(res.body.count, res.body.items.length);
      return res.body.items.map((a: ActionJson) => a.action_id);
    };
    assert.deepEqual(await ids(""), [second.action_id, first.action_id]);
    assert.deepEqual(await ids(`&assigneeId=${other.user_id}`), [second.action_id]);
    assert.deepEqual(await ids("&linkedPostId=post-1"), [first.action_id]);
    assert.deepEqual(await ids("&linkedPostId=post"), []);
    assert.deepEqual(await ids("&status=completed"), []);
    assert.deepEqual(await ids("&status=open"), [second.action_id, first.action_id]);
    // A blank filter is no filter, not a match on the empty string.
    for (
      const filter of ["&status=", "&assigneeId=", "&linkedPostId=%20", "&status=&assigneeId="]
    ) {
      assert.equal((await ids(filter)).length, 2, filter);
    }
    const none = await api(stack, "GET", `/api/actions?workspaceId=${w.ws2}`, {
      token: creator.access_token,
    });
    assert.deepEqual(none.body, { items: [], count: 0 });
  });
});

actionsTest("actions: respond, update and status, each with its DM", async (t, w) => {
  const { stack, creator, assignee, other, outsider } = w;
  const put = (path: string, user: TestUser, body: unknown) =>
    api(stack, "PUT", path, { token: user.access_token, body });

  await t.step(
    "respond: the assignee accepts (200), the creator gets action_response",
    async () => {
      const action = await newAction(w);
      const res = await put(`/api/actions/${action.action_id}/response`, assignee, {
        workspace_id: w.ws,
        response: "accepted",
      });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.equal(res.body.assignee_response, "accepted");
      assert.equal(res.body.status, "open");
      const line = await dmOf(stack, "action_response", action.action_id);
      assert.equal(line.to, creator.email);
      assert.equal(line.data.response, "accepted");
    },
  );

  await t.step("update changes fields (200) and sends no DM without reassignment", async () => {
    const action = await newAction(w, { linked_post_id: "post-1" });
    await put(`/api/actions/${action.action_id}/response`, assignee, {
      workspace_id: w.ws,
      response: "accepted",
    });
    const res = await put(`/api/actions/${action.action_id}`, other, {
      workspace_id: w.ws,
      title: " Review v2 ",
      description: "new",
      priority: "p1_urgent",
      due_date: "soon",
      linked_post_id: null,
      assignee_id: assignee.user_id,
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.title, "Review v2");
    assert.equal(res.body.description, "new");
    assert.equal(res.body.priority, "p1_urgent");
    assert.equal(res.body.due_date, "soon");
    assert.equal(res.body.linked_post_id, null);
    assert.equal(res.body.assignee_response, "accepted");
    assert.ok(res.body.updated_at > action.updated_at);
    assert.equal((await dmsFor(stack, action.action_id, "action_assigned")).length, 0);
  });

  await t.step(
    "reassigning resets the response, refreshes the name and DMs the new assignee",
    async () => {
      const action = await newAction(w);
      const res = await put(`/api/actions/${action.action_id}`, creator, {
        workspace_id: w.ws,
        assignee_id: other.user_id,
      });
      assert.equal(res.status, 200);
      assert.equal(res.body.assignee_id, other.user_id);
      assert.equal(res.body.assignee_name, "Oli Other");
      assert.equal(res.body.assignee_response, "pending");
      const line = await dmOf(stack, "action_assigned", action.action_id);
      assert.equal(line.to, other.email);
      await waitFor(
        () => w.slack.posts.some((p) => p.channel === "UOTHER"),
        "the new assignee's DM",
      );
    },
  );

  await t.step("status moves any to any; only completed stamps and DMs the creator", async () => {
    const action = await newAction(w);
    const path = `/api/actions/${action.action_id}/status`;
    for (const status of ["in_progress", "cancelled", "open"]) {
      const res = await put(path, other, { workspace_id: w.ws, status });
      assert.equal(res.status, 200);
      assert.equal(res.body.status, status);
      assert.equal(res.body.completed_at, null);
    }
    assert.equal((await dmsFor(stack, action.action_id, "action_completed")).length, 0);
    const done = await put(path, other, { workspace_id: w.ws, status: "completed" });
    assert.equal(done.status, 200);
    assert.equal(done.body.status, "completed");
    assert.match(done.body.completed_at, /\+00:00$/);
    const line = await dmOf(stack, "action_completed", action.action_id);
    assert.equal(line.to, creator.email);
    assert.equal(line.data.actor_name, "Oli Other");
    await waitFor(() => w.slack.posts.some((p) => p.channel === "UCREATOR"), "the creator's DM");
    const back = await put(path, other, { workspace_id: w.ws, status: "in_progress" });
    assert.equal(back.body.status, "in_progress");
  });

  await t.step(
    "status refuses a bad status 400, a non-member 403, an unknown action 404",
    async () => {
      const action = await newAction(w);
      const path = `/api/actions/${action.action_id}/status`;
      for (
        const body of [{ workspace_id: w.ws, status: "done" }, { status: "open" }, {
          workspace_id: w.ws,
        }]
      ) {
        assert.equal((await put(path, creator, body)).status, 400, JSON.stringify(body));
      }
      assert.equal((await put(path, outsider, { workspace_id: w.ws, status: "open" })).status, 403);
      const unknown = await put("/api/actions/nope/status", creator, {
        workspace_id: w.ws,
        status: "open",
      });
      assert.equal(unknown.status, 404);
    },
  );

  await t.step("each trigger sends its DM once, and the documented non-triggers none", async () => {
    const action = await newAction(w);
    const path = `/api/actions/${action.action_id}`;
    const steps: [string, TestUser, unknown][] = [
      [`${path}/response`, assignee, { workspace_id: w.ws, response: "accepted" }],
      [path, creator, { workspace_id: w.ws, title: "Renamed", assignee_id: assignee.user_id }],
      [path, creator, { workspace_id: w.ws, assignee_id: other.user_id }],
      [`${path}/status`, other, { workspace_id: w.ws, status: "in_progress" }],
      [`${path}/status`, other, { workspace_id: w.ws, status: "completed" }],
      [`${path}/response`, other, { workspace_id: w.ws, response: "declined" }],
    ];
    for (const [url, user, body] of steps) {
      assert.equal((await put(url, user, body)).status, 200, JSON.stringify(body));
    }
    const templates = (await dmsFor(stack, action.action_id)).map((l) => l.template);
    assert.deepEqual(templates.sort(), [
      "action_assigned",
      "action_completed",
      "action_created",
      "action_response",
      "action_response",
    ]);
  });
});

actionsTest(
  "a DM retried after a Slack failure reaches Slack and the outbox once",
  async (_t, w) => {
    const { slack } = w;
    // The DMs of the set-up (each added member is told) land first, so the failure is ours.
    await waitFor(
      () => slack.posts.filter((p) => p.text.includes("added you to the workspace")).length >= 2,
      "the set-up's member_added DMs",
      15_000,
    );
    slack.postFailures.push("server_error");
    const action = await newAction(w, { title: "Retry me" });
    const posted = () => slack.posts.filter((p) => p.text.includes("Retry me")).length;
    await waitFor(() => posted() === 1, "one Slack post", 15_000);
    assert.equal((await dmsFor(w.stack, action.action_id, "action_created")).length, 1);
    assert.equal(posted(), 1);
    assert.ok(
      slack.calls.filter((c) =>
        c.method === "chat.postMessage" && String(c.params.text).includes("Retry me")
      ).length >= 2,
      "the first post failed and was retried",
    );
  },
);
