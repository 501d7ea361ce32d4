import assert from "node:assert/strict";
import { api, e2e, startTestStack, type TestStack } from "./helpers/stack.ts";
import { createUser, GOOD_PASSWORD, type TestUser, uniqueEmail } from "./helpers/users.ts";

const TIMESTAMP = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+00:00$/;

function as(stack: TestStack, user: TestUser) {
  return (method: string, path: string, body?: unknown) =>
    api(stack, method, path, { token: user.access_token, body });
}

function assertError(res: { status: number; body: unknown }, status: number, message?: string) {
  assert.equal(res.status, status, JSON.stringify(res.body));
  const body = res.body as { error?: unknown };
  assert.equal(typeof body?.error, "string", `no error body: ${JSON.stringify(res.body)}`);
  if (message !== undefined) assert.equal(body.error, message);
}

interface InviteJson {
  workspace_id: string;
  email: string;
  role: string;
  invited_at?: string;
  invited_by?: string;
}

Deno.test("workspace invites: list and cancel", e2e, async (t) => {
  const stack = await startTestStack();
  try {
    const [owner, editor, viewer, outsider] = await Promise.all([
      createUser(stack, { name: "Olive Owner" }),
      createUser(stack, { name: "Eddie Editor" }),
      createUser(stack, { name: "Vera Viewer" }),
      createUser(stack, { name: "Otto Outsider" }),
    ]);
    const O = as(stack, owner);
    const E = as(stack, editor);
    const V = as(stack, viewer);
    const X = as(stack, outsider);
    const wsId = (await O("POST", "/api/workspaces", { name: "Invites" })).body.workspace_id;
    const other = (await O("POST", "/api/workspaces", { name: "Other" })).body.workspace_id;
    for (const [u, role] of [[editor, "editor"], [viewer, "viewer"]] as const) {
      const res = await O("POST", `/api/workspaces/${wsId}/members`, { email: u.email, role });
      assert.equal(res.status, 201, JSON.stringify(res.body));
    }
    const invites = async (user = O, id = wsId) => {
      const res = await user("GET", `/api/workspaces/${id}/invites`);
      assert.equal(res.status, 200, JSON.stringify(res.body));
      return res.body.invites as InviteJson[];
    };
    const first = uniqueEmail("first");
    const second = uniqueEmail("second");

    await t.step("both routes are in the OpenAPI document", async () => {
      const doc = await api(stack, "GET", "/api/openapi.json");
      assert.equal(doc.status, 200);
      assert.ok(doc.body.paths["/api/workspaces/{id}/invites"]?.get);
      const del = doc.body.paths["/api/workspaces/{id}/invites/{email}"]?.delete;
      assert.ok(del);
      assert.deepEqual(
        del.parameters.map((p: { name: string; in: string }) => [p.in, p.name]).sort(),
        [["path", "email"], ["path", "id"]],
      );
    });

    await t.step("an empty workspace lists no invites", async () => {
      assert.deepEqual(await invites(), []);
    });

    await t.step("invites are listed oldest first with role, inviter and time", async () => {
      const before = new Date().toISOString();
      const a = await O("POST", `/api/workspaces/${wsId}/members`, { email: first });
      assert.deepEqual(a.body, { status: "invited", email: first, role: "viewer" });
      const b = await E("POST", `/api/workspaces/${wsId}/members`, {
        email: `  ${second.toUpperCase()} `,
        role: "editor",
      });
      assert.equal(b.status, 201, JSON.stringify(b.body));
      const list = await invites();
      assert.deepEqual(
        list.map((i) => [i.workspace_id, i.email, i.role, i.invited_by]),
        [[wsId, first, "viewer", owner.user_id], [wsId, second, "editor", editor.user_id]],
      );
      for (const i of list) {
        assert.deepEqual(Object.keys(i).sort(), [
          "email",
          "invited_at",
          "invited_by",
          "role",
          "workspace_id",
        ]);
        assert.match(i.invited_at!, TIMESTAMP);
        assert.ok(i.invited_at! >= before.slice(0, 19), `${i.invited_at} before ${before}`);
      }
      // a registered, confirmed user becomes a member at once and is not an invite
      const members = await O("GET", `/api/workspaces/${wsId}/members`);
      assert.equal(members.body.members.length, 3);
      // another workspace's invites stay there
      await O("POST", `/api/workspaces/${other}/members`, { email: first, role: "editor" });
      assert.deepEqual((await invites(O, other)).map((i) => [i.email, i.role]), [[
        first,
        "editor",
      ]]);
      assert.equal((await invites()).length, 2);
    });

    await t.step("inviting again replaces the invite: one entry, the latest role", async () => {
      await E("POST", `/api/workspaces/${wsId}/members`, { email: first, role: "editor" });
      const list = await invites();
      assert.deepEqual(list.map((i) => [i.email, i.role, i.invited_by]), [
        [second, "editor", editor.user_id],
        [first, "editor", editor.user_id],
      ]);
    });

    await t.step("any member may list, a viewer included", async () => {
      assert.deepEqual(
        (await invites(V)).map((i) => i.email),
        (await invites(O)).map((i) => i.email),
      );
      assert.equal((await invites(E)).length, 2);
    });

    await t.step("a non-member gets 403 before anything else", async () => {
      assertError(await X("GET", `/api/workspaces/${wsId}/invites`), 403, "Not a workspace member");
      assertError(
        await O("GET", "/api/workspaces/01HZZZZZZZZZZZZZZZZZZZZZZZ/invites"),
        403,
        "Not a workspace member",
      );
      assertError(await O("GET", `/api/workspaces/${"a".repeat(300)}/invites`), 400);
      assertError(
        await X("DELETE", `/api/workspaces/${wsId}/invites/${encodeURIComponent(first)}`),
        403,
        "Not a workspace member",
      );
      assert.equal((await invites()).length, 2, "nothing was cancelled");
    });

    await t.step("a viewer cannot cancel an invite (403) and it stays", async () => {
      assertError(
        await V("DELETE", `/api/workspaces/${wsId}/invites/${encodeURIComponent(first)}`),
        403,
        "Only the owner or an editor can cancel invites",
      );
      assert.ok((await invites()).some((i) => i.email === first));
    });

    await t.step(
      "unknown and invalid emails: 404 Invite not found, 400 for bad input",
      async () => {
        const unknown = encodeURIComponent(uniqueEmail("nobody"));
        assertError(
          await E("DELETE", `/api/workspaces/${wsId}/invites/${unknown}`),
          404,
          "Invite not found",
        );
        // a member's email is a membership, not an invite
        assertError(
          await O("DELETE", `/api/workspaces/${wsId}/invites/${encodeURIComponent(viewer.email)}`),
          404,
          "Invite not found",
        );
        assertError(await O("DELETE", `/api/workspaces/${wsId}/invites/not-an-email`), 400);
        const long = encodeURIComponent(`${"a".repeat(300)}@example.test`);
        const tooLong = await O("DELETE", `/api/workspaces/${wsId}/invites/${long}`);
        assertError(tooLong, 400, "email must be at most 254 characters");
        assert.equal((await invites()).length, 2);
      },
    );

    await t.step(
      "an editor cancels (204, email matched trimmed and lower-cased); the email then joins only the other workspace",
      async () => {
        const path = `/api/workspaces/${wsId}/invites/${
          encodeURIComponent(` ${first.toUpperCase()} `)
        }`;
        const res = await E("DELETE", path);
        assert.equal(res.status, 204, JSON.stringify(res.body));
        assert.equal(res.body, null);
        assert.deepEqual((await invites()).map((i) => i.email), [second]);
        assertError(await E("DELETE", path), 404, "Invite not found");
        // the other workspace's invite for the same email is untouched
        assert.deepEqual((await invites(O, other)).map((i) => i.email), [first]);

        const joiner = await createUser(stack, { email: first, password: GOOD_PASSWORD });
        const mine = await as(stack, joiner)("GET", "/api/workspaces");
        assert.equal(mine.status, 200);
        assert.deepEqual(
          mine.body.workspaces.map((w: { workspace_id: string; member_role: string }) => [
            w.workspace_id,
            w.member_role,
          ]),
          [[other, "editor"]],
        );
        assertError(
          await as(stack, joiner)("GET", `/api/workspaces/${wsId}/invites`),
          403,
          "Not a workspace member",
        );
        const members = await O("GET", `/api/workspaces/${wsId}/members`);
        assert.ok(!members.body.members.some((m: { email: string }) => m.email === first));
        assert.deepEqual(await invites(O, other), [], "the accepted invite left the list");
      },
    );

    await t.step(
      "an invite that is not cancelled becomes a membership and leaves the list",
      async () => {
        const joiner = await createUser(stack, { email: second, name: "Sam Second" });
        assert.deepEqual(await invites(), []);
        const members = await O("GET", `/api/workspaces/${wsId}/members`);
        const sam = members.body.members.find((m: { user_id: string }) =>
          m.user_id === joiner.user_id
        );
        assert.equal(sam?.role, "editor");
      },
    );

    await t.step("a soft-deleted workspace answers 404 to its members", async () => {
      const email = uniqueEmail("late");
      await O("POST", `/api/workspaces/${other}/members`, { email });
      assert.equal((await O("DELETE", `/api/workspaces/${other}`)).status, 204);
      assertError(await O("GET", `/api/workspaces/${other}/invites`), 404, "Workspace not found");
      assertError(
        await O("DELETE", `/api/workspaces/${other}/invites/${encodeURIComponent(email)}`),
        404,
        "Workspace not found",
      );
      assertError(
        await X("GET", `/api/workspaces/${other}/invites`),
        403,
        "Not a workspace member",
      );
    });
  } finally {
    await stack.close();
  }
});
