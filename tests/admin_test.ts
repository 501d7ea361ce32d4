import assert from "node:assert/strict";
import { decodeJwt } from "jose";
import { readOutbox, settledOutboxLength, waitForOutbox } from "./helpers/outbox.ts";
import { api, e2e, startTestStack, TEST_ADMIN } from "./helpers/stack.ts";
import {
  createUser,
  GOOD_PASSWORD,
  login,
  loginAdmin,
  signupConfirmed,
  uniqueEmail,
} from "./helpers/users.ts";

const ADMIN_ROUTES: [string, string, unknown?][] = [
  ["GET", "/api/admin/users"],
  ["POST", "/api/admin/users/x/approve"],
  ["POST", "/api/admin/users/x/reject"],
  ["PUT", "/api/admin/users/x/role", { role: "admin" }],
  ["PUT", "/api/admin/users/x/status", {}],
  ["GET", "/api/admin/workspaces"],
  ["POST", "/api/admin/workspaces/x/recover"],
  ["DELETE", "/api/admin/workspaces/x"],
  ["GET", "/api/admin/metrics"],
  ["POST", "/api/admin/backups"],
  ["GET", "/api/admin/backups"],
  ["GET", "/api/admin/backups/download?key=_backups/a.zip"],
  ["POST", "/api/admin/backups/restore", { key: "nope" }],
  ["POST", "/api/admin/backups/upload-url"],
  ["GET", "/api/admin/restores/x"],
];

Deno.test("admin: users, workspaces, metrics and the backup routes' checks", e2e, async (t) => {
  const stack = await startTestStack();
  try {
    const admin = await loginAdmin(stack);
    const member = await createUser(stack, { name: "Mia Member" });
    const asAdmin = (method: string, path: string, body?: unknown) =>
      api(stack, method, path, { token: admin.access_token, body });
    // Each step makes the users and workspaces it changes: no step depends on an earlier one.
    const memberWorkspace = async (name: string): Promise<string> => {
      const created = await api(stack, "POST", "/api/workspaces", {
        token: member.access_token,
        body: { name },
      });
      assert.equal(created.status, 201);
      return created.body.workspace_id;
    };

    await t.step("every admin route answers 403 Admin access required to a member", async () => {
      for (const [method, path, body] of ADMIN_ROUTES) {
        const res = await api(stack, method, path, { token: member.access_token, body });
        assert.equal(res.status, 403, `${method} ${path}`);
        assert.deepEqual(res.body, { error: "Admin access required" }, `${method} ${path}`);
      }
      const anonymous = await api(stack, "GET", "/api/admin/users");
      assert.equal(anonymous.status, 401);
    });

    await t.step("the user list derives status and shows a real last_login", async () => {
      const pending = await signupConfirmed(stack, { name: "Pat Pending" });
      const res = await asAdmin("GET", "/api/admin/users");
      assert.equal(res.status, 200);
      const byId = new Map(res.body.users.map((u: { user_id: string }) => [u.user_id, u]));
      const m = byId.get(member.user_id) as Record<string, unknown>;
      assert.equal(m.status, "approved");
      assert.equal(m.email, member.email);
      assert.equal(m.role, "member");
      assert.match(String(m.last_login), /^\d{4}-\d{2}-\d{2}T.*\+00:00$/);
      const p = byId.get(pending.user_id) as Record<string, unknown>;
      assert.equal(p.status, "pending");
      assert.equal((byId.get(admin.user_id) as Record<string, unknown>).role, "admin");
      for (const u of res.body.users) {
        for (
          const f of ["user_id", "email", "name", "role", "status", "created_at", "updated_at"]
        ) {
          assert.ok(f in u, `${f} missing`);
        }
        assert.ok("last_login" in u);
      }
    });

    await t.step("the status filter keeps pending or approved users; others list all", async () => {
      await signupConfirmed(stack);
      const onlyPending = await asAdmin("GET", "/api/admin/users?status=pending");
      assert.ok(onlyPending.body.users.length >= 1);
      assert.ok(onlyPending.body.users.every((u: { status: string }) => u.status === "pending"));
      const approved = await asAdmin("GET", "/api/admin/users?status=approved");
      assert.ok(approved.body.users.every((u: { status: string }) => u.status === "approved"));
      const all = await asAdmin("GET", "/api/admin/users");
      const other = await asAdmin("GET", "/api/admin/users?status=whatever");
      assert.equal(other.body.users.length, all.body.users.length);
      assert.equal(
        onlyPending.body.users.length + approved.body.users.length,
        all.body.users.length,
      );
    });

    await t.step(
      "approve sets approved, sends one user_approved DM, and is safe twice",
      async () => {
        const pending = await signupConfirmed(stack);
        const res = await asAdmin("POST", `/api/admin/users/${pending.user_id}/approve`);
        assert.equal(res.status, 200);
        assert.deepEqual(res.body, { status: "approved", user_id: pending.user_id });
        const dm = await waitForOutbox(
          stack.outboxFile,
          (l) => l.template === "user_approved" && l.to === pending.email,
        );
        assert.equal(dm.channel, "dm");
        const again = await asAdmin("POST", `/api/admin/users/${pending.user_id}/approve`);
        assert.equal(again.status, 200);
        assert.deepEqual(again.body, { status: "approved", user_id: pending.user_id });
        await settledOutboxLength(stack.outboxFile);
        const dms = (await readOutbox(stack.outboxFile)).filter((l) =>
          l.template === "user_approved" && l.to === pending.email
        );
        assert.equal(dms.length, 1);
        const tokens = await login(stack, pending.email, pending.password);
        const ws = await api(stack, "GET", "/api/workspaces", { token: tokens.access_token });
        assert.equal(ws.status, 200, "a new token of an approved user passes the gateway");
      },
    );

    await t.step(
      "the approval flow end to end: signup, confirm, account_pending to every enabled admin, " +
        "only /api/auth/* before approval, user_approved, the rest with a new token",
      async () => {
        // A second admin gets the announcement too; a disabled and a demoted one do not.
        const promoted = async (name: string) => {
          const user = await createUser(stack, { name });
          const res = await asAdmin("PUT", `/api/admin/users/${user.user_id}/role`, {
            role: "admin",
          });
          assert.equal(res.status, 200, JSON.stringify(res.body));
          return user;
        };
        const second = await promoted("Second Admin");
        const disabled = await promoted("Disabled Admin");
        const demoted = await promoted("Demoted Admin");
        assert.equal(
          (await asAdmin("PUT", `/api/admin/users/${disabled.user_id}/status`, { enabled: false }))
            .status,
          200,
        );
        assert.equal(
          (await asAdmin("PUT", `/api/admin/users/${demoted.user_id}/role`, { role: "member" }))
            .status,
          200,
        );

        const email = uniqueEmail("flow");
        const signup = await api(stack, "POST", "/api/auth/signup", {
          body: { email, password: GOOD_PASSWORD, name: "Flo Flow", recaptcha_token: "t" },
        });
        assert.equal(signup.status, 200, JSON.stringify(signup.body));
        const mail = await waitForOutbox(
          stack.outboxFile,
          (l) => l.template === "confirm_email" && l.to === email,
        );
        const unconfirmed = await api(stack, "POST", "/api/auth/login", {
          body: { email, password: GOOD_PASSWORD },
        });
        assert.equal(unconfirmed.status, 403, "no sign-in before the email is confirmed");
        const before = await settledOutboxLength(stack.outboxFile);
        const confirm = await api(stack, "POST", "/api/auth/confirm", {
          body: { email, code: mail.data.code },
        });
        assert.equal(confirm.status, 200, JSON.stringify(confirm.body));
        await waitForOutbox(
          stack.outboxFile,
          (l) => l.template === "account_pending" && l.to === second.email,
        );
        await settledOutboxLength(stack.outboxFile);
        const announced = (await readOutbox(stack.outboxFile)).slice(before).filter((l) =>
          l.template === "account_pending"
        );
        assert.deepEqual(
          announced.map((l) => l.to).sort(),
          [TEST_ADMIN.email, second.email].sort(),
        );
        for (const line of announced) {
          assert.equal(line.channel, "dm");
          assert.equal(line.data.email, email);
          assert.equal(line.data.name, "Flo Flow");
        }

        // Before approval: tokens that say so, /api/auth/* only.
        const pending = await login(stack, email, GOOD_PASSWORD);
        assert.equal(decodeJwt(pending.access_token)["custom:approved"], "false");
        const me = await api(stack, "GET", "/api/auth/me", { token: pending.access_token });
        assert.equal(me.status, 200, JSON.stringify(me.body));
        assert.equal(me.body.status, "pending");
        const userId = me.body.user_id as string;
        const listed = await asAdmin("GET", "/api/admin/users?status=pending");
        assert.ok(listed.body.users.some((u: { user_id: string }) => u.user_id === userId));
        for (
          const [method, path] of [
            ["GET", "/api/workspaces"],
            ["POST", "/api/ws/ticket"],
            ["GET", "/api/notifications"],
            ["GET", "/api/admin/users"],
          ]
        ) {
          const res = await api(stack, method, path, { token: pending.access_token });
          assert.equal(res.status, 401, `${method} ${path} before approval`);
        }

        const approved = await asAdmin("POST", `/api/admin/users/${userId}/approve`);
        assert.deepEqual(approved.body, { status: "approved", user_id: userId });
        const dm = await waitForOutbox(
          stack.outboxFile,
          (l) => l.template === "user_approved" && l.to === email,
        );
        assert.equal(dm.channel, "dm");
        // Approval grants rights from the next token on (the spec's rule).
        const stale = await api(stack, "GET", "/api/workspaces", { token: pending.access_token });
        assert.equal(stale.status, 401, "a token issued before approval stays unapproved");
        const fresh = await api(stack, "POST", "/api/auth/refresh", {
          body: { refresh_token: pending.refresh_token },
        });
        assert.equal(fresh.status, 200, JSON.stringify(fresh.body));
        assert.equal(decodeJwt(fresh.body.access_token)["custom:approved"], "true");
        const works = await api(stack, "GET", "/api/workspaces", {
          token: fresh.body.access_token,
        });
        assert.equal(works.status, 200, JSON.stringify(works.body));
        assert.equal(
          (await api(stack, "GET", "/api/auth/me", { token: fresh.body.access_token })).body.status,
          "approved",
        );
      },
    );

    await t.step("approve, reject, role and status answer 404 for an unknown user", async () => {
      for (
        const [method, path, body] of [
          ["POST", "/api/admin/users/nobody/approve"],
          ["POST", "/api/admin/users/nobody/reject"],
          ["PUT", "/api/admin/users/nobody/role", { role: "member" }],
          ["PUT", "/api/admin/users/nobody/status", { enabled: true }],
          ["POST", `/api/admin/users/${"x".repeat(3000)}/approve`],
        ] as [string, string, unknown?][]
      ) {
        const res = await asAdmin(method, path, body);
        assert.equal(res.status, 404, path.slice(0, 60));
        assert.deepEqual(res.body, { error: "User not found" });
      }
    });

    await t.step(
      "reject marks the user rejected, disables the login and sends nothing",
      async () => {
        const target = await createUser(stack);
        const before = await settledOutboxLength(stack.outboxFile);
        const res = await asAdmin("POST", `/api/admin/users/${target.user_id}/reject`);
        assert.equal(res.status, 200);
        assert.deepEqual(res.body, { status: "rejected", user_id: target.user_id });
        const list = await asAdmin("GET", "/api/admin/users");
        const row = list.body.users.find((u: { user_id: string }) => u.user_id === target.user_id);
        assert.equal(row.status, "rejected");
        const loginRes = await api(stack, "POST", "/api/auth/login", {
          body: { email: target.email, password: target.password },
        });
        assert.equal(loginRes.status, 403);
        const refresh = await api(stack, "POST", "/api/auth/refresh", {
          body: { refresh_token: target.refresh_token },
        });
        assert.ok([401, 403].includes(refresh.status), "a rejected account cannot refresh");
        await settledOutboxLength(stack.outboxFile);
        const after = await readOutbox(stack.outboxFile);
        assert.equal(after.slice(before).filter((l) => l.to === target.email).length, 0);
      },
    );

    await t.step("set role validates the body and takes effect at the next token", async () => {
      const target = await createUser(stack);
      const path = `/api/admin/users/${target.user_id}/role`;
      const missing = await asAdmin("PUT", path, {});
      assert.equal(missing.status, 400);
      assert.deepEqual(missing.body, { error: "role is required" });
      const bad = await asAdmin("PUT", path, { role: "owner" });
      assert.equal(bad.status, 400);
      assert.deepEqual(bad.body, { error: "role must be admin or member" });
      const ok = await asAdmin("PUT", path, { role: "admin" });
      assert.equal(ok.status, 200);
      assert.deepEqual(ok.body, { status: "updated", user_id: target.user_id, role: "admin" });
      const old = await api(stack, "GET", "/api/admin/metrics", { token: target.access_token });
      assert.equal(old.status, 403, "the old token keeps the old role");
      const fresh = await api(stack, "POST", "/api/auth/refresh", {
        body: { refresh_token: target.refresh_token },
      });
      assert.equal(fresh.status, 200);
      const now = await api(stack, "GET", "/api/admin/metrics", {
        token: fresh.body.access_token,
      });
      assert.equal(now.status, 200);
      const back = await asAdmin("PUT", path, { role: "member" });
      assert.deepEqual(back.body, { status: "updated", user_id: target.user_id, role: "member" });
    });

    await t.step("set status disables and enables the login and the refresh", async () => {
      const target = await createUser(stack);
      const path = `/api/admin/users/${target.user_id}/status`;
      const rowOf = async () =>
        (await asAdmin("GET", "/api/admin/users")).body.users.find((u: { user_id: string }) =>
          u.user_id === target.user_id
        );
      const before = await rowOf();
      for (const body of [{}, { enabled: null }]) {
        const res = await asAdmin("PUT", path, body);
        assert.equal(res.status, 400);
        assert.deepEqual(res.body, { error: "enabled is required" });
      }
      const notBool = await asAdmin("PUT", path, { enabled: "no" });
      assert.equal(notBool.status, 400);
      const off = await asAdmin("PUT", path, { enabled: false });
      assert.equal(off.status, 200);
      assert.deepEqual(off.body, { status: "updated", user_id: target.user_id, enabled: false });
      const denied = await api(stack, "POST", "/api/auth/login", {
        body: { email: target.email, password: target.password },
      });
      assert.equal(denied.status, 403);
      assert.deepEqual(denied.body, { error: "Account is disabled" });
      const refresh = await api(stack, "POST", "/api/auth/refresh", {
        body: { refresh_token: target.refresh_token },
      });
      assert.equal(refresh.status, 401, "a disabled account cannot refresh");
      const row = await rowOf();
      assert.equal(row.enabled, false);
      assert.equal(row.status, "approved", "the stored profile status is not changed");
      assert.equal(row.updated_at, before.updated_at, "the stored profile is not updated");
      const on = await asAdmin("PUT", path, { enabled: true });
      assert.deepEqual(on.body, { status: "updated", user_id: target.user_id, enabled: true });
      assert.equal((await rowOf()).updated_at, before.updated_at);
      await login(stack, target.email, target.password);
    });

    await t.step(
      "the workspace list has every workspace with its owner's name and email",
      async () => {
        const workspaceId = await memberWorkspace("Member space");
        const res = await asAdmin("GET", "/api/admin/workspaces");
        assert.equal(res.status, 200);
        const row = res.body.workspaces.find((w: { workspace_id: string }) =>
          w.workspace_id === workspaceId
        );
        assert.equal(row.name, "Member space");
        assert.equal(row.owner_id, member.user_id);
        assert.equal(row.owner_name, "Mia Member");
        assert.equal(row.owner_email, member.email);
        assert.equal(row.status, "active");
      },
    );

    await t.step("delete answers 200 with a body, then 400; deleted ones stay listed", async () => {
      const workspaceId = await memberWorkspace("To delete");
      const res = await asAdmin("DELETE", `/api/admin/workspaces/${workspaceId}`);
      assert.equal(res.status, 200);
      assert.deepEqual(res.body, { workspace_id: workspaceId, status: "deleted" });
      const again = await asAdmin("DELETE", `/api/admin/workspaces/${workspaceId}`);
      assert.equal(again.status, 400);
      assert.deepEqual(again.body, { error: "Workspace is already deleted" });
      const list = await asAdmin("GET", "/api/admin/workspaces");
      const row = list.body.workspaces.find((w: { workspace_id: string }) =>
        w.workspace_id === workspaceId
      );
      assert.equal(row.status, "deleted");
      assert.ok(row.deleted_at);
      const gone = await api(stack, "GET", `/api/workspaces/${workspaceId}`, {
        token: member.access_token,
      });
      assert.equal(gone.status, 404);
    });

    await t.step("recover answers 200 active, then 400 not deleted; unknown ids 404", async () => {
      const workspaceId = await memberWorkspace("To recover");
      const deleted = await asAdmin("DELETE", `/api/admin/workspaces/${workspaceId}`);
      assert.equal(deleted.status, 200);
      const res = await asAdmin("POST", `/api/admin/workspaces/${workspaceId}/recover`);
      assert.equal(res.status, 200);
      assert.deepEqual(res.body, { workspace_id: workspaceId, status: "active" });
      const again = await asAdmin("POST", `/api/admin/workspaces/${workspaceId}/recover`);
      assert.equal(again.status, 400);
      assert.deepEqual(again.body, { error: "Workspace is not deleted" });
      const list = await asAdmin("GET", "/api/admin/workspaces");
      const row = list.body.workspaces.find((w: { workspace_id: string }) =>
        w.workspace_id === workspaceId
      );
      assert.equal(row.deleted_at, undefined);
      for (
        const [method, path] of [
          ["POST", "/api/admin/workspaces/nope/recover"],
          ["DELETE", "/api/admin/workspaces/nope"],
        ]
      ) {
        const unknown = await asAdmin(method, path);
        assert.equal(unknown.status, 404);
        assert.deepEqual(unknown.body, { error: "Workspace not found" });
      }
    });

    await t.step("metrics are the real counts and follow new posts and ideas", async () => {
      const workspaceId = await memberWorkspace("Counted");
      const users = (await asAdmin("GET", "/api/admin/users")).body.users;
      const workspaces = (await asAdmin("GET", "/api/admin/workspaces")).body.workspaces;
      const before = await asAdmin("GET", "/api/admin/metrics");
      assert.equal(before.status, 200);
      assert.equal(before.body.total_users, users.length);
      assert.equal(
        before.body.pending_users,
        users.filter((u: { status: string }) => u.status === "pending").length,
      );
      assert.equal(before.body.total_workspaces, workspaces.length);
      assert.equal(
        before.body.active_users_last_7_days,
        users.filter((u: { last_login: string | null }) => u.last_login).length,
      );
      const names = new Set(stack.services.map((s) => s.name));
      let posts = 0;
      let published = 0;
      let ideas = 0;
      if (names.has("posts")) {
        const post = await api(stack, "POST", "/api/posts", {
          token: member.access_token,
          body: { workspace_id: workspaceId, title: "T", content: "Hello" },
        });
        assert.equal(post.status, 201);
        const pub = await api(stack, "PUT", `/api/posts/${post.body.post_id}/status`, {
          token: member.access_token,
          body: { workspace_id: workspaceId, status: "published" },
        });
        assert.equal(pub.status, 200);
        posts = 1;
        // A `published` label set by hand is not a publication: only posts
        // published on LinkedIn count (tests/publishing_test.ts).
        published = 0;
      }
      if (names.has("ideas")) {
        const idea = await api(stack, "POST", "/api/ideas", {
          token: member.access_token,
          body: { workspace_id: workspaceId, title: "An idea about testing" },
        });
        assert.equal(idea.status, 201);
        ideas = 1;
      }
      await api(stack, "POST", "/api/workspaces", {
        token: member.access_token,
        body: { name: "Another" },
      });
      const after = await asAdmin("GET", "/api/admin/metrics");
      assert.equal(after.body.total_posts, before.body.total_posts + posts);
      assert.equal(
        after.body.posts_published_last_30_days,
        before.body.posts_published_last_30_days + published,
      );
      assert.equal(after.body.total_ideas, before.body.total_ideas + ideas);
      assert.equal(after.body.total_workspaces, before.body.total_workspaces + 1);
      for (const v of Object.values(after.body)) assert.ok(Number.isInteger(v));
      assert.equal(Object.keys(after.body).length, 7);
    });

    await t.step("backup keys are checked: missing 400, pattern 400, good 200", async () => {
      const missing = await asAdmin("GET", "/api/admin/backups/download");
      assert.equal(missing.status, 400);
      assert.deepEqual(missing.body, { error: "key is required" });
      for (
        const key of [
          "backups/a.zip",
          "_backups/a.tar",
          "_backups/../a.zip",
          "_backups/x/a.zip",
          "_backups/..zip",
          "_backups/.zip",
        ]
      ) {
        const res = await asAdmin(
          "GET",
          `/api/admin/backups/download?key=${encodeURIComponent(key)}`,
        );
        assert.equal(res.status, 400, key);
        assert.deepEqual(res.body, { error: "key must match _backups/*.zip" }, key);
        const restore = await asAdmin("POST", "/api/admin/backups/restore", { key });
        assert.equal(restore.status, 400, key);
        assert.deepEqual(restore.body, { error: "key must match _backups/*.zip" }, key);
      }
      for (const body of [{}, { key: "" }]) {
        const res = await asAdmin("POST", "/api/admin/backups/restore", body);
        assert.equal(res.status, 400);
        assert.deepEqual(res.body, { error: "key is required" });
      }
      const ok = await asAdmin("GET", "/api/admin/backups/download?key=_backups/any.zip");
      assert.equal(ok.status, 200);
      assert.match(ok.body.url, /^http:\/\/127\.0\.0\.1:\d+\/assets\/_backups\/any\.zip\?/);
    });

    await t.step(
      "upload-url answers a presigned PUT for _backups/upload-<timestamp>.zip",
      async () => {
        const res = await asAdmin("POST", "/api/admin/backups/upload-url");
        assert.equal(res.status, 200);
        assert.match(
          res.body.key,
          /^_backups\/upload-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}\.\d{3}Z\.zip$/,
        );
        const wrongType = await fetch(res.body.url, {
          method: "PUT",
          body: "x",
          headers: { "content-type": "text/plain" },
        });
        await wrongType.body?.cancel();
        assert.equal(wrongType.status, 403, "the content type is part of the signature");
      },
    );

    await t.step("an unknown restore job answers 404", async () => {
      const res = await asAdmin("GET", "/api/admin/restores/01UNKNOWN");
      assert.equal(res.status, 404);
      assert.deepEqual(res.body, { error: "Restore job not found" });
    });

    await t.step("the admin routes are in the public OpenAPI document", async () => {
      const doc = await api(stack, "GET", "/api/openapi.json");
      for (
        const path of [
          "/api/admin/users",
          "/api/admin/users/{id}/approve",
          "/api/admin/workspaces/{workspace_id}/recover",
          "/api/admin/metrics",
          "/api/admin/backups",
          "/api/admin/backups/restore",
          "/api/admin/restores/{job_id}",
        ]
      ) {
        assert.ok(doc.body.paths[path], path);
      }
      // Every admin operation answers 401 without a valid token and 403 to a non-admin.
      for (const [path, item] of Object.entries(doc.body.paths)) {
        if (!path.startsWith("/api/admin/")) continue;
        const ops = item as Record<string, { responses?: Record<string, unknown> }>;
        for (const [method, op] of Object.entries(ops)) {
          for (const code of ["401", "403"]) {
            assert.ok(op.responses?.[code], `${method} ${path} documents ${code}`);
          }
        }
      }
    });
  } finally {
    await stack.close();
  }
});

Deno.test("admin: backup routes answer 500 when asset storage is not configured", e2e, async () => {
  const stack = await startTestStack({ ASSETS_URL: "" });
  try {
    const admin = await loginAdmin(stack);
    assert.equal(admin.email, TEST_ADMIN.email);
    for (
      const [method, path, body] of [
        ["POST", "/api/admin/backups"],
        ["GET", "/api/admin/backups"],
        ["GET", "/api/admin/backups/download?key=_backups/a.zip"],
        ["POST", "/api/admin/backups/restore", { key: "_backups/a.zip" }],
        ["POST", "/api/admin/backups/upload-url"],
      ] as [string, string, unknown?][]
    ) {
      const res = await api(stack, method, path, { token: admin.access_token, body });
      assert.equal(res.status, 500, path);
      assert.deepEqual(res.body, { error: "Asset storage not configured" }, path);
    }
  } finally {
    await stack.close();
  }
});
