/**
 * Action items end to end (spec: Actions; CONTRACT sections 6 and 8): every route and status,
 * the direct message each trigger sends (to the outbox and through a loopback Slack), none on
 * the non-triggers, and a DM retried after a Slack failure delivered once.
 */
import assert from "node:assert/strict";
import { type OutboxLine, readOutbox, waitForOutbox } from "./helpers/outbox.ts";
import { api, e2e, startTestStack, type TestStack } from "./helpers/stack.ts";
import { createUser, loginAdmin, type TestUser, uniqueEmail } from "./helpers/users.ts";
import { startFakeSlack } from "./fakes/slack.ts";

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

/** DMs about one action, optionally of one template. */
async function dmsFor(stack: TestStack, actionId: string, template?: string) {
  return (await readOutbox(stack.outboxFile)).filter((l) =>
    l.channel === "dm" && l.data.action_id === actionId && (!template || l.template === template)
  );
}

const settle = () => new Promise((r) => setTimeout(r, 400));

Deno.test("actions: routes, statuses and direct messages", e2e, async (t) => {
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
  const stack = await startTestStack({ SLACK_BOT_TOKEN: SLACK_TOKEN, SLACK_API_URL: slack.apiUrl });
  try {
    const creator = await createUser(stack, { email: emails.creator, name: "Cora Creator" });
    const assignee = await createUser(stack, { email: emails.assignee, name: "Avi Assignee" });
    const other = await createUser(stack, { email: emails.other, name: "Oli Other" });
    const outsider = await createUser(stack, { name: "Out Sider" });
    const admin = await loginAdmin(stack);
    const ws = await createWorkspace(stack, creator, "Actions WS");
    for (const u of [assignee, other, admin]) await addMember(stack, creator, ws, u.email);
    const ws2 = await createWorkspace(stack, creator, "Second WS");
    let action = {} as ActionJson;

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
      const res = await api(stack, "POST", "/api/actions", {
        token: creator.access_token,
        body: {
          workspace_id: ws,
          title: "  Review the draft  ",
          assignee_id: assignee.user_id,
          description: "Check the hook",
          linked_post_id: "post-1",
          priority: "p2_high",
          due_date: "2026-12-01",
        },
      });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      action = res.body;
      assert.equal(action.title, "Review the draft");
      assert.equal(action.workspace_id, ws);
      assert.equal(action.assignee_id, assignee.user_id);
      assert.equal(action.assignee_name, "Avi Assignee");
      assert.equal(action.assignee_response, "pending");
      assert.equal(action.status, "open");
      assert.equal(action.linked_post_id, "post-1");
      assert.equal(action.priority, "p2_high");
      assert.equal(action.due_date, "2026-12-01");
      assert.deepEqual(action.attachments, []);
      assert.equal(action.created_by, creator.user_id);
      assert.equal(action.completed_at, null);
      assert.match(action.created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+00:00$/);
      assert.equal(action.updated_at, action.created_at);
    });

    await t.step("create sends action_created to the assignee, by outbox and Slack", async () => {
      const line = await waitForOutbox(
        stack.outboxFile,
        (l) => l.template === "action_created" && l.data.action_id === action.action_id,
      );
      assert.equal(line.channel, "dm");
      assert.equal(line.to, assignee.email);
      assert.match(line.subject, /Review the draft/);
      const link =
        `${stack.url}/workspaces/${action.workspace_id}/actions?action=${action.action_id}`;
      assert.equal(line.data.url, link);
      assert.ok(line.text.includes(link));
      await waitFor(() => slack.posts.some((p) => p.channel === "UASSIGNEE"));
      assert.ok(
        slack.calls.some((c) =>
          c.method === "users.lookupByEmail" && c.params.email === assignee.email
        ),
      );
    });

    await t.step(
      "create refuses bad input with 400, non-members with 403, no token 401",
      async () => {
        const cases: [unknown, RegExp][] = [
          [{ title: "x", assignee_id: assignee.user_id }, /workspace_id/],
          [{ workspace_id: ws, assignee_id: assignee.user_id }, /title/],
          [{ workspace_id: ws, title: "   ", assignee_id: assignee.user_id }, /title/],
          [{ workspace_id: ws, title: "x" }, /assignee_id/],
          [{ workspace_id: ws, title: "x", assignee_id: "  " }, /assignee_id/],
          [{ workspace_id: ws, title: "x", assignee_id: outsider.user_id }, /assignee/],
          [{ workspace_id: "w".repeat(3000), title: "x", assignee_id: "a" }, /workspace_id/],
        ];
        for (const [body, message] of cases) {
          const res = await api(stack, "POST", "/api/actions", {
            token: creator.access_token,
            body,
          });
          assert.equal(res.status, 400, JSON.stringify(body));
          assert.match(res.body.error, message);
        }
        const res = await api(stack, "POST", "/api/actions", {
          token: outsider.access_token,
          body: { workspace_id: ws, title: "x", assignee_id: assignee.user_id },
        });
        assert.equal(res.status, 403);
        assert.equal(res.body.error, "Not a workspace member");
        const anon = await api(stack, "POST", "/api/actions", {
          body: { workspace_id: ws, title: "x", assignee_id: assignee.user_id },
        });
        assert.equal(anon.status, 401);
      },
    );

    let second = {} as ActionJson;
    await t.step("list filters by exact status, assigneeId and linkedPostId", async () => {
      const made = await api(stack, "POST", "/api/actions", {
        token: creator.access_token,
        body: { workspace_id: ws, title: "Second", assignee_id: other.user_id },
      });
      assert.equal(made.status, 201);
      second = made.body;
      const all = await api(stack, "GET", `/api/actions?workspaceId=${ws}`, {
        token: assignee.access_token,
      });
      assert.equal(all.status, 200);
      assert.equal(all.body.count, 2);
      assert.deepEqual(
        all.body.items.map((a: ActionJson) => a.action_id).sort(),
        [
          action.action_id,
          second.action_id,
        ].sort(),
      );
      const byAssignee = await api(
        stack,
        "GET",
        `/api/actions?workspaceId=${ws}&assigneeId=${other.user_id}`,
        { token: assignee.access_token },
      );
      assert.deepEqual(byAssignee.body.items.map((a: ActionJson) => a.action_id), [
        second.action_id,
      ]);
      const byPost = await api(stack, "GET", `/api/actions?workspaceId=${ws}&linkedPostId=post-1`, {
        token: assignee.access_token,
      });
      assert.deepEqual(byPost.body.items.map((a: ActionJson) => a.action_id), [action.action_id]);
      const partial = await api(stack, "GET", `/api/actions?workspaceId=${ws}&linkedPostId=post`, {
        token: assignee.access_token,
      });
      assert.equal(partial.body.count, 0);
      const byStatus = await api(stack, "GET", `/api/actions?workspaceId=${ws}&status=completed`, {
        token: assignee.access_token,
      });
      assert.equal(byStatus.body.count, 0);
      const none = await api(stack, "GET", `/api/actions?workspaceId=${ws2}`, {
        token: creator.access_token,
      });
      assert.deepEqual(none.body, { items: [], count: 0 });
    });

    await t.step("a blank list filter is no filter, not a match on the empty string", async () => {
      for (const filter of ["status=", "assigneeId=", "linkedPostId=%20", "status=&assigneeId="]) {
        const res = await api(stack, "GET", `/api/actions?workspaceId=${ws}&${filter}`, {
          token: assignee.access_token,
        });
        assert.equal(res.status, 200, filter);
        assert.equal(res.body.count, 2, filter);
      }
    });

    await t.step("an action created without priority or due_date has them as strings", () => {
      // The spec's Action table types both as string (only linked_post_id, completed_at are
      // "or null").
      assert.equal(second.priority, "");
      assert.equal(second.due_date, "");
      assert.equal(second.description, "");
      assert.equal(second.linked_post_id, null);
    });

    await t.step("list answers 400 without workspaceId and 403 to a non-member", async () => {
      const missing = await api(stack, "GET", "/api/actions", { token: creator.access_token });
      assert.equal(missing.status, 400);
      assert.match(missing.body.error, /workspaceId/);
      const outside = await api(stack, "GET", `/api/actions?workspaceId=${ws}`, {
        token: outsider.access_token,
      });
      assert.equal(outside.status, 403);
      assert.equal(outside.body.error, "Not a workspace member");
    });

    await t.step("get answers 200, 400, 403 and 404 (also through another workspace)", async () => {
      const path = `/api/actions/${action.action_id}`;
      const ok = await api(stack, "GET", `${path}?workspaceId=${ws}`, {
        token: other.access_token,
      });
      assert.equal(ok.status, 200);
      assert.equal(ok.body.action_id, action.action_id);
      assert.equal((await api(stack, "GET", path, { token: other.access_token })).status, 400);
      const outside = await api(stack, "GET", `${path}?workspaceId=${ws}`, {
        token: outsider.access_token,
      });
      assert.equal(outside.status, 403);
      const unknown = await api(stack, "GET", `/api/actions/nope?workspaceId=${ws}`, {
        token: other.access_token,
      });
      assert.equal(unknown.status, 404);
      const elsewhere = await api(stack, "GET", `${path}?workspaceId=${ws2}`, {
        token: creator.access_token,
      });
      assert.equal(elsewhere.status, 404);
    });

    await t.step(
      "respond: the assignee accepts (200), the creator gets action_response",
      async () => {
        const path = `/api/actions/${action.action_id}/response`;
        const res = await api(stack, "PUT", path, {
          token: assignee.access_token,
          body: { workspace_id: ws, response: "accepted" },
        });
        assert.equal(res.status, 200, JSON.stringify(res.body));
        assert.equal(res.body.assignee_response, "accepted");
        assert.equal(res.body.status, "open");
        const line = await waitForOutbox(
          stack.outboxFile,
          (l) => l.template === "action_response" && l.data.action_id === action.action_id,
        );
        assert.equal(line.to, creator.email);
        assert.equal(line.data.response, "accepted");
      },
    );

    await t.step("respond refuses 400, a non-assignee 403, a non-member 403, 404", async () => {
      const path = `/api/actions/${action.action_id}/response`;
      const bad = await api(stack, "PUT", path, {
        token: assignee.access_token,
        body: { workspace_id: ws, response: "maybe" },
      });
      assert.equal(bad.status, 400);
      assert.match(bad.body.error, /response/);
      const noWs = await api(stack, "PUT", path, {
        token: assignee.access_token,
        body: { response: "declined" },
      });
      assert.equal(noWs.status, 400);
      for (const user of [creator, other, admin]) {
        const res = await api(stack, "PUT", path, {
          token: user.access_token,
          body: { workspace_id: ws, response: "declined" },
        });
        assert.equal(res.status, 403, user.email);
      }
      const outside = await api(stack, "PUT", path, {
        token: outsider.access_token,
        body: { workspace_id: ws, response: "declined" },
      });
      assert.equal(outside.status, 403);
      assert.equal(outside.body.error, "Not a workspace member");
      const unknown = await api(stack, "PUT", "/api/actions/nope/response", {
        token: assignee.access_token,
        body: { workspace_id: ws, response: "declined" },
      });
      assert.equal(unknown.status, 404);
    });

    await t.step("update changes fields (200) and sends no DM without reassignment", async () => {
      const res = await api(stack, "PUT", `/api/actions/${action.action_id}`, {
        token: other.access_token,
        body: {
          workspace_id: ws,
          title: " Review v2 ",
          description: "new",
          priority: "p1_urgent",
          due_date: "soon",
          linked_post_id: null,
          assignee_id: assignee.user_id,
        },
      });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.equal(res.body.title, "Review v2");
      assert.equal(res.body.description, "new");
      assert.equal(res.body.priority, "p1_urgent");
      assert.equal(res.body.due_date, "soon");
      assert.equal(res.body.linked_post_id, null);
      assert.equal(res.body.assignee_response, "accepted");
      assert.ok(res.body.updated_at > action.updated_at);
      await settle();
      assert.equal((await dmsFor(stack, action.action_id, "action_assigned")).length, 0);
    });

    await t.step(
      "reassigning resets the response, refreshes the name and DMs the new assignee",
      async () => {
        const res = await api(stack, "PUT", `/api/actions/${action.action_id}`, {
          token: creator.access_token,
          body: { workspace_id: ws, assignee_id: other.user_id },
        });
        assert.equal(res.status, 200);
        assert.equal(res.body.assignee_id, other.user_id);
        assert.equal(res.body.assignee_name, "Oli Other");
        assert.equal(res.body.assignee_response, "pending");
        const line = await waitForOutbox(
          stack.outboxFile,
          (l) => l.template === "action_assigned" && l.data.action_id === action.action_id,
        );
        assert.equal(line.to, other.email);
        await waitFor(() => slack.posts.some((p) => p.channel === "UOTHER"));
      },
    );

    await t.step("update refuses 400, a non-member 403 and an unknown action 404", async () => {
      const path = `/api/actions/${action.action_id}`;
      const notMember = await api(stack, "PUT", path, {
        token: creator.access_token,
        body: { workspace_id: ws, assignee_id: outsider.user_id },
      });
      assert.equal(notMember.status, 400);
      const noWs = await api(stack, "PUT", path, {
        token: creator.access_token,
        body: { title: "x" },
      });
      assert.equal(noWs.status, 400);
      assert.match(noWs.body.error, /workspace_id/);
      const blank = await api(stack, "PUT", path, {
        token: creator.access_token,
        body: { workspace_id: ws, title: "  " },
      });
      assert.equal(blank.status, 400);
      const outside = await api(stack, "PUT", path, {
        token: outsider.access_token,
        body: { workspace_id: ws, title: "x" },
      });
      assert.equal(outside.status, 403);
      const unknown = await api(stack, "PUT", "/api/actions/nope", {
        token: creator.access_token,
        body: { workspace_id: ws, title: "x" },
      });
      assert.equal(unknown.status, 404);
      const current = await api(stack, "GET", `${path}?workspaceId=${ws}`, {
        token: creator.access_token,
      });
      assert.equal(current.body.assignee_id, other.user_id);
      assert.equal(current.body.title, "Review v2");
    });

    await t.step("status moves any to any; only completed stamps and DMs the creator", async () => {
      const path = `/api/actions/${action.action_id}/status`;
      for (const status of ["in_progress", "cancelled", "open"]) {
        const res = await api(stack, "PUT", path, {
          token: other.access_token,
          body: { workspace_id: ws, status },
        });
        assert.equal(res.status, 200);
        assert.equal(res.body.status, status);
        assert.equal(res.body.completed_at, null);
      }
      await settle();
      assert.equal((await dmsFor(stack, action.action_id, "action_completed")).length, 0);
      const done = await api(stack, "PUT", path, {
        token: other.access_token,
        body: { workspace_id: ws, status: "completed" },
      });
      assert.equal(done.status, 200);
      assert.equal(done.body.status, "completed");
      assert.match(done.body.completed_at, /\+00:00$/);
      const line = await waitForOutbox(
        stack.outboxFile,
        (l) => l.template === "action_completed" && l.data.action_id === action.action_id,
      );
      assert.equal(line.to, creator.email);
      assert.equal(line.data.actor_name, "Oli Other");
      await waitFor(() => slack.posts.some((p) => p.channel === "UCREATOR"));
      const back = await api(stack, "PUT", path, {
        token: other.access_token,
        body: { workspace_id: ws, status: "in_progress" },
      });
      assert.equal(back.body.status, "in_progress");
    });

    await t.step(
      "status refuses a bad status 400, a non-member 403, an unknown action 404",
      async () => {
        const path = `/api/actions/${action.action_id}/status`;
        for (
          const body of [{ workspace_id: ws, status: "done" }, { status: "open" }, {
            workspace_id: ws,
          }]
        ) {
          const res = await api(stack, "PUT", path, { token: creator.access_token, body });
          assert.equal(res.status, 400, JSON.stringify(body));
        }
        const outside = await api(stack, "PUT", path, {
          token: outsider.access_token,
          body: { workspace_id: ws, status: "open" },
        });
        assert.equal(outside.status, 403);
        const unknown = await api(stack, "PUT", "/api/actions/nope/status", {
          token: creator.access_token,
          body: { workspace_id: ws, status: "open" },
        });
        assert.equal(unknown.status, 404);
      },
    );

    await t.step("the documented non-triggers sent no other DM", async () => {
      await settle();
      const lines = await dmsFor(stack, action.action_id);
      assert.deepEqual(lines.map((l: OutboxLine) => l.template).sort(), [
        "action_assigned",
        "action_completed",
        "action_created",
        "action_response",
      ]);
    });

    await t.step(
      "delete: 400 without workspaceId, 403 for others, 204 for the creator",
      async () => {
        const path = `/api/actions/${second.action_id}`;
        assert.equal(
          (await api(stack, "DELETE", path, { token: creator.access_token })).status,
          400,
        );
        const outside = await api(stack, "DELETE", `${path}?workspaceId=${ws}`, {
          token: outsider.access_token,
        });
        assert.equal(outside.status, 403);
        for (const user of [assignee, other]) {
          const res = await api(stack, "DELETE", `${path}?workspaceId=${ws}`, {
            token: user.access_token,
          });
          assert.equal(res.status, 403, user.email);
        }
        const res = await api(stack, "DELETE", `${path}?workspaceId=${ws}`, {
          token: creator.access_token,
        });
        assert.equal(res.status, 204);
        assert.equal(res.body, null);
        const gone = await api(stack, "GET", `${path}?workspaceId=${ws}`, {
          token: creator.access_token,
        });
        assert.equal(gone.status, 404);
        const again = await api(stack, "DELETE", `${path}?workspaceId=${ws}`, {
          token: creator.access_token,
        });
        assert.equal(again.status, 404);
      },
    );

    await t.step("delete: a platform admin who is not a member is refused 403", async () => {
      const adminWs = await createWorkspace(stack, creator, "No admin here");
      await addMember(stack, creator, adminWs, assignee.email);
      const made = await api(stack, "POST", "/api/actions", {
        token: creator.access_token,
        body: { workspace_id: adminWs, title: "Private", assignee_id: assignee.user_id },
      });
      const res = await api(
        stack,
        "DELETE",
        `/api/actions/${made.body.action_id}?workspaceId=${adminWs}`,
        { token: admin.access_token },
      );
      assert.equal(res.status, 403);
      assert.equal(res.body.error, "Not a workspace member");
    });

    await t.step(
      "delete: a platform admin who is a member may delete another's action",
      async () => {
        const res = await api(
          stack,
          "DELETE",
          `/api/actions/${action.action_id}?workspaceId=${ws}`,
          {
            token: admin.access_token,
          },
        );
        assert.equal(res.status, 204);
      },
    );

    await t.step(
      "a DM retried after a Slack failure reaches Slack and the outbox once",
      async () => {
        // Earlier DMs must be through first, so the failure hits this one.
        await waitFor(() => slack.posts.some((p) => p.text.includes("Private")));
        await settle();
        slack.postFailures.push("server_error");
        const res = await api(stack, "POST", "/api/actions", {
          token: creator.access_token,
          body: { workspace_id: ws, title: "Retry me", assignee_id: assignee.user_id },
        });
        assert.equal(res.status, 201);
        const id = res.body.action_id;
        await waitFor(
          () => slack.posts.filter((p) => p.text.includes("Retry me")).length === 1,
          15_000,
        );
        await settle();
        assert.equal(slack.posts.filter((p) => p.text.includes("Retry me")).length, 1);
        assert.equal((await dmsFor(stack, id, "action_created")).length, 1);
        assert.ok(
          slack.calls.filter((c) =>
            c.method === "chat.postMessage" && String(c.params.text).includes("Retry me")
          )
            .length >= 2,
          "the first post failed and was retried",
        );
      },
    );
  } finally {
    await stack.close();
    await slack.close();
  }
});

async function waitFor(check: () => boolean, timeoutMs = 10_000) {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 50));
  }
}
