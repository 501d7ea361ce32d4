import assert from "node:assert/strict";
import { api, e2e, startTestStack, TEST_INTERNAL_SECRET, type TestStack } from "./helpers/stack.ts";
import { createUser, loginAdmin, type TestUser, uniqueEmail } from "./helpers/users.ts";
import { waitFor } from "./helpers/wait.ts";
import { AppError } from "../shared/http/app_error.ts";
import { ServiceDirectory } from "../shared/service/service_directory.ts";
import { WorkspacesClient } from "../services/workspaces/client.ts";

const TIMESTAMP = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+00:00$/;
const WORKSPACE_KEYS = [
  "approval_required",
  "approvals_required",
  "created_at",
  "default_prompt_id",
  "description",
  "name",
  "owner_id",
  "publishing_slots",
  "status",
  "timezone",
  "updated_at",
  "workspace_id",
];
function as(stack: TestStack, user: TestUser) {
  return (method: string, path: string, body?: unknown) =>
    api(stack, method, path, { token: user.access_token, body });
}

async function internalJson(stack: TestStack, method: string, path: string, body?: unknown) {
  const res = await stack.internal("workspaces", method, path, body);
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

function assertError(res: { status: number; body: unknown }, status: number, message?: string) {
  assert.equal(res.status, status, JSON.stringify(res.body));
  const body = res.body as { error?: unknown };
  assert.equal(typeof body?.error, "string", `no error body: ${JSON.stringify(res.body)}`);
  if (message !== undefined) assert.equal(body.error, message);
}

Deno.test("workspaces service", e2e, async (t) => {
  const stack = await startTestStack();
  try {
    const [owner, editor, viewer, outsider] = await Promise.all([
      createUser(stack, { name: "Olive Owner" }),
      createUser(stack, { name: "Eddie Editor" }),
      createUser(stack, { name: "Vera Viewer" }),
      createUser(stack, { name: "Otto Outsider" }),
    ]);
    const admin = await loginAdmin(stack);
    const O = as(stack, owner);
    const E = as(stack, editor);
    const V = as(stack, viewer);
    const X = as(stack, outsider);
    /** A fresh workspace owned by `owner`, no other member. */
    const bare = async (name = "Launch Team") => {
      const res = await O("POST", "/api/workspaces", { name });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      return res.body.workspace_id as string;
    };
    /** A fresh workspace with `viewer` (viewer) and then `editor` (editor) added. */
    const team = async (name?: string) => {
      const id = await bare(name);
      for (const [user, role] of [[viewer, "viewer"], [editor, "editor"]] as const) {
        const add = await O("POST", `/api/workspaces/${id}/members`, { email: user.email, role });
        assert.equal(add.status, 201, JSON.stringify(add.body));
      }
      return id;
    };

    await t.step("create answers 201 with the spec's fields and an owner membership", async () => {
      const res = await O("POST", "/api/workspaces", { name: "  Launch Team  " });
      assert.equal(res.status, 201);
      assert.deepEqual(Object.keys(res.body).sort(), WORKSPACE_KEYS);
      assert.equal(res.body.name, "Launch Team");
      assert.equal(res.body.description, "");
      assert.equal(res.body.owner_id, owner.user_id);
      assert.equal(res.body.status, "active");
      assert.equal(res.body.default_prompt_id, null);
      assert.deepEqual(res.body.publishing_slots, []);
      assert.match(res.body.created_at, TIMESTAMP);
      assert.match(res.body.updated_at, TIMESTAMP);
      const withDesc = await O("POST", "/api/workspaces", {
        name: "x".repeat(100),
        description: "d",
      });
      assert.equal(withDesc.status, 201);
      assert.equal(withDesc.body.description, "d");
    });

    await t.step("create refuses a missing, blank or over-long name with 400", async () => {
      assertError(await O("POST", "/api/workspaces", {}), 400, "name is required");
      assertError(await O("POST", "/api/workspaces", { name: "   " }), 400, "name is required");
      assertError(
        await O("POST", "/api/workspaces", { name: "x".repeat(101) }),
        400,
        "name must be at most 100 characters",
      );
      assertError(await O("POST", "/api/workspaces", { name: 42 }), 400);
      assertError(await O("POST", "/api/workspaces", "not json"), 400);
    });

    await t.step("get answers the workspace with member_count and member_role", async () => {
      const wsId = await bare();
      const res = await O("GET", `/api/workspaces/${wsId}`);
      assert.equal(res.status, 200);
      assert.deepEqual(
        Object.keys(res.body).sort(),
        [...WORKSPACE_KEYS, "member_count", "member_role"].sort(),
      );
      assert.equal(res.body.member_count, 1);
      assert.equal(res.body.member_role, "owner");
    });

    await t.step(
      "get refuses non-members, unknown ids and non-member admins with 403",
      async () => {
        const wsId = await bare();
        assertError(await X("GET", `/api/workspaces/${wsId}`), 403, "Not a workspace member");
        assertError(
          await O("GET", "/api/workspaces/01HZZZZZZZZZZZZZZZZZZZZZZZ"),
          403,
          "Not a workspace member",
        );
        assertError(await as(stack, admin)("GET", `/api/workspaces/${wsId}`), 403);
        assertError(await O("GET", `/api/workspaces/${"a".repeat(300)}`), 400);
      },
    );

    await t.step(
      "add member adds a registered user (201) with the default role viewer",
      async () => {
        const wsId = await bare();
        const res = await O("POST", `/api/workspaces/${wsId}/members`, {
          email: `  ${viewer.email.toUpperCase()} `,
        });
        assert.equal(res.status, 201);
        assert.deepEqual(Object.keys(res.body).sort(), [
          "joined_at",
          "role",
          "user_id",
          "workspace_id",
        ]);
        assert.equal(res.body.user_id, viewer.user_id);
        assert.equal(res.body.role, "viewer");
        assert.equal(res.body.workspace_id, wsId);
        assert.match(res.body.joined_at, TIMESTAMP);
        const ed = await O("POST", `/api/workspaces/${wsId}/members`, {
          email: editor.email,
          role: "editor",
        });
        assert.equal(ed.status, 201);
        assert.equal(ed.body.role, "editor");
        const got = await V("GET", `/api/workspaces/${wsId}`);
        assert.equal(got.body.member_role, "viewer");
        assert.equal(got.body.member_count, 3);
      },
    );

    await t.step("add member: 409 member, 400 email/role, 403 viewer and non-member", async () => {
      const wsId = await team();
      const path = `/api/workspaces/${wsId}/members`;
      assertError(
        await O("POST", path, { email: viewer.email }),
        409,
        "User is already a member of the workspace",
      );
      assertError(await O("POST", path, {}), 400, "email is required");
      assertError(await O("POST", path, { email: "  " }), 400, "email is required");
      assertError(await O("POST", path, { email: "not-an-email" }), 400);
      assertError(
        await O("POST", path, { email: uniqueEmail(), role: "admin" }),
        400,
        "role must be editor or viewer",
      );
      const ownerRole = await O("POST", path, { email: outsider.email, role: "owner" });
      assertError(ownerRole, 400);
      assert.match(ownerRole.body.error, /^role/);
      assertError(
        await V("POST", path, { email: outsider.email }),
        403,
        "Only the owner or an editor can add members",
      );
      assertError(await X("POST", path, { email: outsider.email }), 403, "Not a workspace member");
      assertError(
        await X("POST", "/api/workspaces/01HZZZZZZZZZZZZZZZZZZZZZZZ/members", {
          email: outsider.email,
        }),
        403,
      );
      const after = await O("GET", `/api/workspaces/${wsId}`);
      assert.equal(after.body.member_count, 3, "no refused add changed the count");
    });

    await t.step(
      "add member invites an unregistered email; inviting it again answers 201 and the last role wins",
      async () => {
        const wsId = await team();
        const email = uniqueEmail("Invitee").toUpperCase();
        const res = await E("POST", `/api/workspaces/${wsId}/members`, { email, role: "editor" });
        assert.equal(res.status, 201);
        assert.deepEqual(res.body, {
          status: "invited",
          email: email.toLowerCase(),
          role: "editor",
        });
        const again = await O("POST", `/api/workspaces/${wsId}/members`, {
          email: ` ${email.toLowerCase()} `,
        });
        assert.equal(again.status, 201, JSON.stringify(again.body));
        assert.deepEqual(again.body, {
          status: "invited",
          email: email.toLowerCase(),
          role: "viewer",
        });
        const invitee = await createUser(stack, { email: email.toLowerCase() });
        const list = await as(stack, invitee)("GET", "/api/workspaces");
        assert.deepEqual(
          list.body.workspaces.map((w: { workspace_id: string; member_role: string }) => [
            w.workspace_id,
            w.member_role,
          ]),
          [[wsId, "viewer"]],
        );
        assertError(await O("POST", `/api/workspaces/${wsId}/members`, { email }), 409);
        const left = await as(stack, invitee)(
          "DELETE",
          `/api/workspaces/${wsId}/members/${invitee.user_id}`,
        );
        assert.equal(left.status, 204);
      },
    );

    await t.step("an invited email becomes a member when it signs up and confirms", async () => {
      const wsId = await team();
      const email = uniqueEmail("joiner");
      const second = await O("POST", "/api/workspaces", { name: "Second" });
      const invited = await O("POST", `/api/workspaces/${wsId}/members`, {
        email,
        role: "editor",
      });
      assert.equal(invited.body.status, "invited");
      await O("POST", `/api/workspaces/${second.body.workspace_id}/members`, { email });
      const joiner = await createUser(stack, { email, name: "Jo Joiner" });
      const list = await as(stack, joiner)("GET", "/api/workspaces");
      assert.equal(list.status, 200);
      const roles = Object.fromEntries(
        list.body.workspaces.map((w: { workspace_id: string; member_role: string }) => [
          w.workspace_id,
          w.member_role,
        ]),
      );
      assert.deepEqual(roles, { [wsId]: "editor", [second.body.workspace_id]: "viewer" });
      // Each invite that became a membership tells the new member, as adding an account does.
      const told = await waitFor(async () => {
        const res = await as(stack, joiner)("GET", "/api/notifications");
        const added = res.body.items.filter((n: { template: string }) =>
          n.template === "member_added"
        );
        return added.length >= 2 ? added : false;
      }, "a member_added notification for each invite");
      assert.deepEqual(
        told.map((n: { data: Record<string, unknown> }) => n.data).sort((
          a: Record<string, unknown>,
          b: Record<string, unknown>,
        ) => String(a.role).localeCompare(String(b.role))),
        [
          {
            workspace_id: wsId,
            workspace_name: "Launch Team",
            actor_name: "Olive Owner",
            role: "editor",
            url: `${stack.url}/workspaces/${wsId}`,
          },
          {
            workspace_id: second.body.workspace_id,
            workspace_name: "Second",
            actor_name: "Olive Owner",
            role: "viewer",
            url: `${stack.url}/workspaces/${second.body.workspace_id}`,
          },
        ],
      );
      const members = await O("GET", `/api/workspaces/${wsId}/members`);
      const jo = members.body.members.find((m: { user_id: string }) =>
        m.user_id === joiner.user_id
      );
      assert.deepEqual(
        { email: jo.email, name: jo.name, role: jo.role },
        { email, name: "Jo Joiner", role: "editor" },
      );
      assertError(await O("POST", `/api/workspaces/${wsId}/members`, { email }), 409);
      const left = await as(stack, joiner)(
        "DELETE",
        `/api/workspaces/${wsId}/members/${joiner.user_id}`,
      );
      assert.equal(left.status, 204);
    });

    await t.step("list members answers every member with email and name (any member)", async () => {
      const wsId = await team();
      const res = await V("GET", `/api/workspaces/${wsId}/members`);
      assert.equal(res.status, 200);
      const members = res.body.members as Record<string, string>[];
      assert.deepEqual(
        members.map((m) => [m.user_id, m.role, m.email, m.name]),
        [
          [owner.user_id, "owner", owner.email, "Olive Owner"],
          [viewer.user_id, "viewer", viewer.email, "Vera Viewer"],
          [editor.user_id, "editor", editor.email, "Eddie Editor"],
        ],
      );
      for (const m of members) {
        assert.deepEqual(Object.keys(m).sort(), [
          "email",
          "joined_at",
          "name",
          "role",
          "user_id",
          "workspace_id",
        ]);
      }
      assertError(await X("GET", `/api/workspaces/${wsId}/members`), 403, "Not a workspace member");
    });

    await t.step("list answers my active workspaces with member_role only", async () => {
      const wsId = await team();
      const res = await E("GET", "/api/workspaces");
      assert.equal(res.status, 200);
      const mine = res.body.workspaces.find((w: { workspace_id: string }) =>
        w.workspace_id === wsId
      );
      assert.equal(mine.member_role, "editor");
      assert.deepEqual(Object.keys(mine).sort(), [...WORKSPACE_KEYS, "member_role"].sort());
      // A fresh account: the shared outsider joins workspaces in other steps.
      const none = await as(stack, await createUser(stack))("GET", "/api/workspaces");
      assert.deepEqual(none.body, { workspaces: [] });
    });

    await t.step(
      "update: an editor changes the settable fields and gets the workspace",
      async () => {
        const wsId = await team();
        const res = await E("PUT", `/api/workspaces/${wsId}`, {
          name: " Renamed ",
          description: "About us",
          default_prompt_id: "prompt-1",
          publishing_slots: ["Mon 09:00", "Thu 14:00"],
          status: "deleted",
        });
        assert.equal(res.status, 200);
        assert.deepEqual(Object.keys(res.body).sort(), WORKSPACE_KEYS);
        assert.equal(res.body.name, "Renamed");
        assert.equal(res.body.description, "About us");
        assert.equal(res.body.default_prompt_id, "prompt-1");
        assert.deepEqual(res.body.publishing_slots, ["Mon 09:00", "Thu 14:00"]);
        assert.equal(res.body.status, "active", "status is not settable");
        const cleared = await O("PUT", `/api/workspaces/${wsId}`, { default_prompt_id: null });
        assert.equal(cleared.body.default_prompt_id, null);
        assert.equal(cleared.body.name, "Renamed");
      },
    );

    await t.step(
      "update: 403 viewer and non-member (even for an unknown id), 400 bad fields",
      async () => {
        const wsId = await team();
        assertError(
          await V("PUT", `/api/workspaces/${wsId}`, { name: "x" }),
          403,
          "Only the owner or an editor can update the workspace",
        );
        assertError(await X("PUT", `/api/workspaces/${wsId}`, { name: "x" }), 403);
        assertError(
          await O("PUT", "/api/workspaces/01HZZZZZZZZZZZZZZZZZZZZZZZ", { name: "x" }),
          403,
        );
        assertError(
          await O("PUT", `/api/workspaces/${wsId}`, { name: "" }),
          400,
          "name is required",
        );
        assertError(
          await O("PUT", `/api/workspaces/${wsId}`, { publishing_slots: "Mon" }),
          400,
        );
        const slots = await O("PUT", `/api/workspaces/${wsId}`, { publishing_slots: [1] });
        assertError(slots, 400);
        assert.match(slots.body.error, /^publishing_slots/);
      },
    );

    await t.step(
      "transfer: non-owner 403, non-member target 400, owner moves ownership",
      async () => {
        const wsId = await team();
        assertError(
          await E("PUT", `/api/workspaces/${wsId}`, { owner_id: editor.user_id }),
          403,
          "Only the workspace owner can transfer ownership",
        );
        assertError(
          await O("PUT", `/api/workspaces/${wsId}`, { owner_id: outsider.user_id }),
          400,
          "owner_id is not a member of the workspace",
        );
        const res = await O("PUT", `/api/workspaces/${wsId}`, { owner_id: editor.user_id });
        assert.equal(res.status, 200);
        assert.equal(res.body.owner_id, editor.user_id);
        assert.equal((await O("GET", `/api/workspaces/${wsId}`)).body.member_role, "editor");
        assert.equal((await E("GET", `/api/workspaces/${wsId}`)).body.member_role, "owner");
        // Sending the current owner back is not a transfer, so an editor may.
        const same = await O("PUT", `/api/workspaces/${wsId}`, { owner_id: editor.user_id });
        assert.equal(same.status, 200);
        const back = await E("PUT", `/api/workspaces/${wsId}`, { owner_id: owner.user_id });
        assert.equal(back.body.owner_id, owner.user_id);
        const members = (await O("GET", `/api/workspaces/${wsId}/members`)).body.members;
        assert.deepEqual(
          members.filter((m: { role: string }) => m.role === "owner").map((
            m: { user_id: string },
          ) => m.user_id),
          [owner.user_id],
        );
      },
    );

    await t.step("remove member: 400 owner leaving, 403s, 404 non-member target, 204", async () => {
      const wsId = await team();
      const path = (id: string) => `/api/workspaces/${wsId}/members/${id}`;
      assertError(await O("DELETE", path(owner.user_id)), 400);
      assertError(await X("DELETE", path(viewer.user_id)), 403, "Not a workspace member");
      assertError(
        await E("DELETE", path(viewer.user_id)),
        403,
        "Only the workspace owner can remove other members",
      );
      assertError(await V("DELETE", path(owner.user_id)), 403);
      assertError(
        await O("DELETE", path(outsider.user_id)),
        404,
        "User is not a member of the workspace",
      );
      assertError(
        await O("DELETE", `/api/workspaces/01HZZZZZZZZZZZZZZZZZZZZZZZ/members/${viewer.user_id}`),
        403,
      );
      const left = await V("DELETE", path(viewer.user_id));
      assert.equal(left.status, 204);
      assert.equal(left.body, null);
      assertError(await V("GET", `/api/workspaces/${wsId}`), 403);
      const added = await O("POST", `/api/workspaces/${wsId}/members`, { email: viewer.email });
      assert.equal(added.status, 201);
      const removed = await O("DELETE", path(viewer.user_id));
      assert.equal(removed.status, 204);
      assert.equal((await O("GET", `/api/workspaces/${wsId}`)).body.member_count, 2);
      await O("POST", `/api/workspaces/${wsId}/members`, { email: viewer.email });
    });

    await t.step(
      "internal membership API answers roles, statuses and nulls (always 200)",
      async () => {
        const wsId = await team("Renamed");
        const m = await internalJson(
          stack,
          "GET",
          `/internal/workspaces/${wsId}/members/${editor.user_id}`,
        );
        assert.equal(m.status, 200);
        assert.deepEqual(m.body, {
          workspace_id: wsId,
          user_id: editor.user_id,
          role: "editor",
          workspace_status: "active",
          owner_id: owner.user_id,
        });
        const non = await internalJson(
          stack,
          "GET",
          `/internal/workspaces/${wsId}/members/${outsider.user_id}`,
        );
        assert.equal(non.body.role, null);
        assert.equal(non.body.workspace_status, "active");
        const unknown = await internalJson(
          stack,
          "GET",
          `/internal/workspaces/nope/members/${owner.user_id}`,
        );
        assert.equal(unknown.status, 200);
        assert.deepEqual(
          [unknown.body.role, unknown.body.workspace_status, unknown.body.owner_id],
          [null, null, null],
        );
        const long = await internalJson(
          stack,
          "GET",
          `/internal/workspaces/${"x".repeat(3000)}/members/u`,
        );
        assert.equal(long.status, 200);
        assert.equal(long.body.role, null);
        const mine = await internalJson(
          stack,
          "GET",
          `/internal/users/${editor.user_id}/workspaces`,
        );
        assert.deepEqual(
          mine.body.workspaces.find((w: { workspace_id: string }) => w.workspace_id === wsId),
          { workspace_id: wsId, name: "Renamed", member_role: "editor" },
        );
      },
    );

    await t.step("internal invite acceptance is idempotent and validates its body", async () => {
      const wsId = await team();
      const email = uniqueEmail("direct");
      await O("POST", `/api/workspaces/${wsId}/members`, { email });
      const first = await stack.internal("workspaces", "POST", "/internal/invites/accept", {
        email: email.toUpperCase(),
        user_id: outsider.user_id,
      });
      assert.equal(first.status, 204);
      const again = await stack.internal("workspaces", "POST", "/internal/invites/accept", {
        email,
        user_id: outsider.user_id,
      });
      assert.equal(again.status, 204);
      const got = await X("GET", `/api/workspaces/${wsId}`);
      assert.equal(got.body.member_role, "viewer");
      assert.equal(got.body.member_count, 4);
      const bad = await internalJson(stack, "POST", "/internal/invites/accept", { email });
      assert.equal(bad.status, 400);
      assert.equal(
        (await O("DELETE", `/api/workspaces/${wsId}/members/${outsider.user_id}`)).status,
        204,
      );
    });

    await t.step(
      "delete: 403 editor and non-member, 204 owner, then 404 past the role checks",
      async () => {
        const wsId = await team();
        assertError(
          await E("DELETE", `/api/workspaces/${wsId}`),
          403,
          "Only the workspace owner can delete the workspace",
        );
        assertError(await X("DELETE", `/api/workspaces/${wsId}`), 403);
        const res = await O("DELETE", `/api/workspaces/${wsId}`);
        assert.equal(res.status, 204);
        assert.equal(res.body, null);
        assertError(await O("DELETE", `/api/workspaces/${wsId}`), 404, "Workspace not found");
        assertError(await O("GET", `/api/workspaces/${wsId}`), 404, "Workspace not found");
        assertError(await X("GET", `/api/workspaces/${wsId}`), 403, "Not a workspace member");
        assertError(await O("PUT", `/api/workspaces/${wsId}`, { name: "y" }), 404);
        assertError(await V("PUT", `/api/workspaces/${wsId}`, { name: "y" }), 403);
        assertError(
          await E("POST", `/api/workspaces/${wsId}/members`, { email: uniqueEmail() }),
          404,
        );
        assertError(await V("GET", `/api/workspaces/${wsId}/members`), 404);
        assertError(await V("DELETE", `/api/workspaces/${wsId}/members/${viewer.user_id}`), 404);
        // The role check precedes the 404, as for update, add member and delete.
        assertError(
          await V("DELETE", `/api/workspaces/${wsId}/members/${editor.user_id}`),
          403,
          "Only the workspace owner can remove other members",
        );
        assertError(await V("GET", `/api/audiences?workspaceId=${wsId}`), 404);
        assertError(await V("PUT", "/api/languages", { workspace_id: wsId, languages: [] }), 404);
        const list = await O("GET", "/api/workspaces");
        assert.ok(
          !list.body.workspaces.some((w: { workspace_id: string }) => w.workspace_id === wsId),
        );
        const m = await internalJson(
          stack,
          "GET",
          `/internal/workspaces/${wsId}/members/${viewer.user_id}`,
        );
        assert.equal(m.body.role, "viewer", "members are untouched by a soft delete");
        assert.equal(m.body.workspace_status, "deleted");
      },
    );

    await t.step("admin internal API: list all, soft-delete, recover, stats", async () => {
      const wsId = await team();
      assert.equal((await O("DELETE", `/api/workspaces/${wsId}`)).status, 204);
      const all = await internalJson(stack, "GET", "/internal/workspaces");
      const deleted = all.body.workspaces.find((w: { workspace_id: string }) =>
        w.workspace_id === wsId
      );
      assert.equal(deleted.status, "deleted");
      assert.match(deleted.deleted_at, TIMESTAMP);
      const before = await internalJson(stack, "GET", "/internal/stats");
      assert.equal(before.body.total_workspaces, all.body.workspaces.length);

      const again = await internalJson(stack, "POST", `/internal/workspaces/${wsId}/soft-delete`);
      assert.deepEqual(again, { status: 400, body: { error: "Workspace is already deleted" } });
      const recovered = await internalJson(stack, "POST", `/internal/workspaces/${wsId}/recover`);
      assert.deepEqual(recovered, { status: 200, body: { workspace_id: wsId, status: "active" } });
      const twice = await internalJson(stack, "POST", `/internal/workspaces/${wsId}/recover`);
      assert.deepEqual(twice, { status: 400, body: { error: "Workspace is not deleted" } });
      const got = await O("GET", `/api/workspaces/${wsId}`);
      assert.equal(got.status, 200);
      assert.ok(!("deleted_at" in got.body));
      const del = await internalJson(stack, "POST", `/internal/workspaces/${wsId}/soft-delete`);
      assert.deepEqual(del, { status: 200, body: { workspace_id: wsId, status: "deleted" } });
      assertError(await O("GET", `/api/workspaces/${wsId}`), 404);
      for (const action of ["soft-delete", "recover"]) {
        const missing = await internalJson(stack, "POST", `/internal/workspaces/nope/${action}`);
        assert.equal(missing.status, 404);
      }
      await O("POST", "/api/workspaces", { name: "Counted" });
      const after = await internalJson(stack, "GET", "/internal/stats");
      assert.equal(after.body.total_workspaces, before.body.total_workspaces + 1);
    });

    await t.step("WorkspacesClient speaks every internal route and keeps its errors", async () => {
      const service = stack.services.find((s) => s.name === "workspaces")!;
      const client = new WorkspacesClient(
        new ServiceDirectory().register("workspaces", service.fetch),
        TEST_INTERNAL_SECRET,
      );
      const ws = (await O("POST", "/api/workspaces", { name: "Client" })).body;
      const id = ws.workspace_id as string;
      await O("POST", `/api/workspaces/${id}/members`, { email: viewer.email });
      assert.equal((await client.requireMember(id, viewer.user_id)).role, "viewer");
      const rejects = (p: Promise<unknown>, status: number, message: string) =>
        assert.rejects(p, (e: unknown) => {
          assert.ok(e instanceof AppError);
          assert.deepEqual([e.status, e.message], [status, message]);
          return true;
        });
      await rejects(client.requireMember(id, outsider.user_id), 403, "Not a workspace member");
      await rejects(client.requireMember("unknown", owner.user_id), 403, "Not a workspace member");
      const listed = await client.listForUser(viewer.user_id);
      assert.ok(listed.workspaces.some((w) => w.workspace_id === id && w.member_role === "viewer"));
      const total = (await client.stats()).total_workspaces;
      assert.equal(total, (await client.listAll()).length);
      assert.deepEqual(await client.softDelete(id), { workspace_id: id, status: "deleted" });
      await rejects(client.requireMember(id, viewer.user_id), 404, "Workspace not found");
      await rejects(client.softDelete(id), 400, "Workspace is already deleted");
      assert.equal((await client.listAll()).find((w) => w.workspace_id === id)?.status, "deleted");
      assert.deepEqual(await client.recover(id), { workspace_id: id, status: "active" });
      await rejects(client.recover(id), 400, "Workspace is not deleted");
      await rejects(client.recover("unknown"), 404, "Workspace not found");
      const email = uniqueEmail("via-client");
      await O("POST", `/api/workspaces/${id}/members`, { email });
      await client.acceptInvites(email, outsider.user_id);
      assert.equal((await client.membership(id, outsider.user_id)).role, "viewer");
    });

    await t.step("the OpenAPI document lists every public route, no internal one", async () => {
      const doc = (await api(stack, "GET", "/api/openapi.json")).body;
      for (
        const path of [
          "/api/workspaces",
          "/api/workspaces/{id}",
          "/api/workspaces/{id}/members",
          "/api/workspaces/{id}/members/{userId}",
          "/api/audiences",
          "/api/languages",
        ]
      ) {
        assert.ok(doc.paths[path], `${path} missing`);
      }
      assert.ok(doc.paths["/api/workspaces/{id}"].put);
      assert.ok(doc.paths["/api/audiences"].put);
      assert.ok(!Object.keys(doc.paths).some((p) => p.startsWith("/internal")));
    });

    await t.step(
      "concurrent transfers, adds and removes leave one owner, no duplicate",
      async () => {
        const boss = owner;
        const ws = await O("POST", "/api/workspaces", { name: "Contended" });
        const id = ws.body.workspace_id;
        const extra = await Promise.all([0, 1, 2].map(() => createUser(stack)));
        const editors = [editor, viewer, outsider];
        for (const u of editors) {
          await O("POST", `/api/workspaces/${id}/members`, { email: u.email, role: "editor" });
        }
        const everyone = [boss, ...editors];
        // A member who never leaves: the owner's transfer to them goes through unless another
        // transfer already did, so the batch always moves ownership at least once (the others'
        // targets may be mid-way between leaving and being re-added).
        const anchor = await createUser(stack);
        await O("POST", `/api/workspaces/${id}/members`, { email: anchor.email, role: "editor" });
        const ops: Promise<{ status: number; body: unknown }>[] = [
          as(stack, boss)("PUT", `/api/workspaces/${id}`, { owner_id: anchor.user_id }),
        ];
        for (let i = 0; i < 20; i++) {
          const from = everyone[i % 4];
          const to = everyone[(i + 1) % 4];
          ops.push(as(stack, from)("PUT", `/api/workspaces/${id}`, { owner_id: to.user_id }));
          ops.push(
            as(stack, from)("POST", `/api/workspaces/${id}/members`, {
              email: extra[i % 3].email,
            }),
          );
          ops.push(
            as(stack, from)(
              "DELETE",
              `/api/workspaces/${id}/members/${extra[(i + 1) % 3].user_id}`,
            ),
          );
          ops.push(
            as(stack, editors[i % 3])(
              "DELETE",
              `/api/workspaces/${id}/members/${editors[i % 3].user_id}`,
            ),
          );
          ops.push(
            as(stack, from)("POST", `/api/workspaces/${id}/members`, {
              email: editors[i % 3].email,
              role: "editor",
            }),
          );
        }
        const results = await Promise.all(ops);
        for (const r of results) {
          assert.ok(r.status < 500, `server error: ${JSON.stringify(r.body)}`);
        }
        assert.ok(
          results.some((r) => r.status === 200),
          "at least one transfer went through",
        );
        const workspace = (await internalJson(stack, "GET", "/internal/workspaces")).body.workspaces
          .find((w: { workspace_id: string }) => w.workspace_id === id);
        const ownerMember = await internalJson(
          stack,
          "GET",
          `/internal/workspaces/${id}/members/${workspace.owner_id}`,
        );
        assert.equal(ownerMember.body.role, "owner");
        const ownerUser = [...everyone, anchor].find((u) => u.user_id === workspace.owner_id)!;
        const members = (await as(stack, ownerUser)("GET", `/api/workspaces/${id}/members`)).body
          .members as { user_id: string; role: string }[];
        assert.equal(members.filter((m) => m.role === "owner").length, 1);
        assert.equal(new Set(members.map((m) => m.user_id)).size, members.length);
        const got = await as(stack, ownerUser)("GET", `/api/workspaces/${id}`);
        assert.equal(got.body.member_count, members.length);
        assert.equal(got.body.owner_id, workspace.owner_id);
      },
    );
  } finally {
    await stack.close();
  }
});
