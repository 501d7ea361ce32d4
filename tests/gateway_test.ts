import assert from "node:assert/strict";
import { api, e2e, startTestStack, TEST_ADMIN } from "./helpers/stack.ts";
import { createUser, loginAdmin, signupConfirmed } from "./helpers/users.ts";

Deno.test("gateway", e2e, async (t) => {
  const stack = await startTestStack();
  try {
    await t.step("/healthz answers 200 once every service is ready", async () => {
      const res = await api(stack, "GET", "/healthz");
      assert.equal(res.status, 200);
      assert.deepEqual(res.body, { status: "ok" });
    });

    await t.step("the OpenAPI 3.1 document lists the routes of every service", async () => {
      const res = await api(stack, "GET", "/api/openapi.json");
      assert.equal(res.status, 200);
      assert.equal(res.body.openapi, "3.1.0");
      for (
        const path of [
          "/api/auth/signup",
          "/api/auth/login",
          "/api/workspaces",
          "/api/workspaces/{id}",
        ]
      ) {
        assert.ok(res.body.paths[path], `${path} missing from the OpenAPI document`);
      }
      for (const path of Object.keys(res.body.paths)) {
        assert.ok(!path.startsWith("/internal"), `${path} leaked into the public document`);
      }
      // Every operation that takes a bearer token documents the gateway's 401.
      let secured = 0;
      for (const [path, item] of Object.entries(res.body.paths as Record<string, object>)) {
        for (
          const [method, op] of Object.entries(item as Record<string, Record<string, unknown>>)
        ) {
          const security = op.security as Record<string, unknown>[] | undefined;
          if (!security?.some((s) => "bearer" in s)) continue;
          secured++;
          const responses = op.responses as Record<string, unknown>;
          assert.ok(responses["401"], `${method.toUpperCase()} ${path} does not document its 401`);
        }
      }
      assert.ok(secured > 40, `only ${secured} operations take a bearer token`);
      const docs = await fetch(`${stack.url}/api/docs`);
      assert.equal(docs.status, 200);
      assert.match(await docs.text(), /swagger/i);
    });

    await t.step("protected routes answer 401 without a valid token", async () => {
      assert.equal((await api(stack, "GET", "/api/workspaces")).status, 401);
      const bad = await api(stack, "GET", "/api/workspaces", { token: "not.a.jwt" });
      assert.equal(bad.status, 401);
      assert.deepEqual(bad.body, { error: "Unauthorized" });
    });

    await t.step(
      "a client-sent identity and internal secret are ignored: the token's user acts",
      async () => {
        // The forged identity is the real admin's, sent with the real internal secret: a gateway
        // or service that believed either would answer as the admin.
        const admin = await loginAdmin(stack);
        const adminSpace = await api(stack, "POST", "/api/workspaces", {
          token: admin.access_token,
          body: { name: "Admin only" },
        });
        assert.equal(adminSpace.status, 201);
        const user = await createUser(stack);
        const forged = {
          "x-cp-internal": stack.env.INTERNAL_SECRET,
          "x-cp-caller": encodeURIComponent(JSON.stringify({
            user_id: admin.user_id,
            email: TEST_ADMIN.email,
            name: TEST_ADMIN.name,
            role: "admin",
            approved: true,
          })),
        };
        const me = await api(stack, "GET", "/api/auth/me", {
          token: user.access_token,
          headers: forged,
        });
        assert.equal(me.status, 200);
        assert.equal(me.body.user_id, user.user_id);
        const adminRoute = await api(stack, "GET", "/api/admin/users", {
          token: user.access_token,
          headers: forged,
        });
        assert.deepEqual([adminRoute.status, adminRoute.body], [403, {
          error: "Admin access required",
        }]);
        const spaces = await api(stack, "GET", "/api/workspaces", {
          token: user.access_token,
          headers: forged,
        });
        assert.equal(spaces.status, 200);
        const ids = JSON.stringify(spaces.body);
        assert.ok(!ids.includes(adminSpace.body.workspace_id), "the admin's workspace leaked");
        // Without a token the same headers open nothing.
        const anonymous = await api(stack, "GET", "/api/workspaces", { headers: forged });
        assert.equal(anonymous.status, 401);
      },
    );

    await t.step("unknown routes and /internal answer 404 with an error body", async () => {
      const unknown = await api(stack, "GET", "/api/nothing-here");
      assert.equal(unknown.status, 404);
      assert.ok(unknown.body.error);
      const internal = await api(stack, "GET", "/internal/health");
      assert.equal(internal.status, 404);
    });

    await t.step("a token issued before approval stays 401 until a new one is issued", async () => {
      const account = await signupConfirmed(stack);
      const early = await api(stack, "POST", "/api/auth/login", {
        body: { email: account.email, password: account.password },
      });
      assert.equal(early.status, 200);
      const oldToken = early.body.access_token;
      assert.equal((await api(stack, "GET", "/api/workspaces", { token: oldToken })).status, 401);
      // /api/auth/* accepts an unapproved token.
      const me = await api(stack, "GET", "/api/auth/me", { token: oldToken });
      assert.equal(me.status, 200);
      assert.equal(me.body.status, "pending");
      const approved = await stack.internal(
        "auth",
        "POST",
        `/internal/users/${account.user_id}/approve`,
      );
      assert.equal(approved.status, 200);
      await approved.body?.cancel();
      assert.equal((await api(stack, "GET", "/api/workspaces", { token: oldToken })).status, 401);
      assert.equal(
        (await api(stack, "GET", "/api/auth/me", { token: oldToken })).body.status,
        "approved",
      );
      const refreshed = await api(stack, "POST", "/api/auth/refresh", {
        body: { refresh_token: early.body.refresh_token },
      });
      assert.equal(refreshed.status, 200);
      const list = await api(stack, "GET", "/api/workspaces", {
        token: refreshed.body.access_token,
      });
      assert.equal(list.status, 200);
    });

    await t.step("a body sent without a media type or as text/plain is refused 415", async () => {
      const user = await createUser(stack);
      const variants: Record<string, string>[] = [{}, {
        "content-type": "text/plain;charset=UTF-8",
      }];
      for (const headers of variants) {
        const res = await fetch(`${stack.url}/api/workspaces`, {
          method: "POST",
          headers: { authorization: `Bearer ${user.access_token}`, ...headers },
          body: new TextEncoder().encode(JSON.stringify({ name: "Untyped" })),
        });
        assert.equal(res.status, 415);
        assert.deepEqual(await res.json(), { error: "Content-Type must be application/json" });
      }
      const notObject = await api(stack, "POST", "/api/workspaces", {
        token: user.access_token,
        body: [1, 2],
      });
      assert.equal(notObject.status, 400);
      assert.match(notObject.body.error, /^Request body: /);
    });

    await t.step("bodies over 1 MiB answer 413 with an error body", async () => {
      const user = await createUser(stack);
      const res = await api(stack, "POST", "/api/workspaces", {
        token: user.access_token,
        body: { name: "big", description: "x".repeat(1024 * 1024 + 1) },
      });
      assert.equal(res.status, 413);
      assert.ok(res.body.error);
    });
  } finally {
    await stack.close();
  }
});

Deno.test("a malformed variable stops start-up with one line naming it", async () => {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", new URL("../main.ts", import.meta.url).pathname],
    env: { PORT: "eighty", DATA_DIR: await Deno.makeTempDir() },
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(out.code, 1);
  const lines = new TextDecoder().decode(out.stderr).trim().split("\n");
  assert.equal(lines.length, 1);
  assert.match(lines[0], /PORT/);
});
