import assert from "node:assert/strict";
import { api, e2e, startTestStack } from "./helpers/stack.ts";
import { createUser, login } from "./helpers/users.ts";

Deno.test(
  "personal settings: name, time zone, and a password change that signs out the rest",
  e2e,
  async (t) => {
    const stack = await startTestStack();
    try {
      const user = await createUser(stack, { name: "Old Name" });
      const other = await login(stack, user.email, user.password);

      await t.step("name and time zone", async () => {
        const bad = await api(stack, "PATCH", "/api/auth/me", {
          token: user.access_token,
          body: { timezone: "Mars/Olympus" },
        });
        assert.equal(bad.status, 400);
        assert.equal(bad.body.error, "timezone is not a known IANA time zone");
        // Intl takes a UTC offset, but it names no zone.
        for (const offset of ["+02:00", "-0500"]) {
          const res = await api(stack, "PATCH", "/api/auth/me", {
            token: user.access_token,
            body: { timezone: offset },
          });
          assert.equal(res.status, 400, offset);
          assert.equal(res.body.error, "timezone is not a known IANA time zone");
        }
        const blank = await api(stack, "PATCH", "/api/auth/me", {
          token: user.access_token,
          body: { name: "   " },
        });
        assert.equal(blank.status, 400);
        const ok = await api(stack, "PATCH", "/api/auth/me", {
          token: user.access_token,
          body: { name: "New Name", timezone: "Europe/Zurich" },
        });
        assert.equal(ok.status, 200);
        assert.equal(ok.body.name, "New Name");
        assert.equal(ok.body.timezone, "Europe/Zurich");
        const me = await api(stack, "GET", "/api/auth/me", { token: user.access_token });
        assert.deepEqual([me.body.name, me.body.timezone], ["New Name", "Europe/Zurich"]);
      });

      await t.step(
        "a password change needs the current one and revokes other sessions",
        async () => {
          const wrong = await api(stack, "POST", "/api/auth/password", {
            token: user.access_token,
            body: { current_password: "not it", new_password: "Another-Passw0rd!" },
          });
          assert.equal(wrong.status, 403);
          assert.equal(wrong.body.error, "Current password is incorrect");
          const weak = await api(stack, "POST", "/api/auth/password", {
            token: user.access_token,
            body: { current_password: user.password, new_password: "short" },
          });
          assert.equal(weak.status, 400);
          const changed = await api(stack, "POST", "/api/auth/password", {
            token: user.access_token,
            body: { current_password: user.password, new_password: "Another-Passw0rd!" },
          });
          assert.equal(changed.status, 200, JSON.stringify(changed.body));
          const mine = await api(stack, "POST", "/api/auth/refresh", {
            body: { refresh_token: changed.body.refresh_token },
          });
          assert.equal(mine.status, 200);
          const theirs = await api(stack, "POST", "/api/auth/refresh", {
            body: { refresh_token: other.refresh_token },
          });
          assert.equal(theirs.status, 401);
          assert.equal(
            (await api(stack, "POST", "/api/auth/login", {
              body: { email: user.email, password: user.password },
            })).status,
            401,
          );
          const fresh = await login(stack, user.email, "Another-Passw0rd!");
          assert.ok(fresh.access_token);
        },
      );
    } finally {
      await stack.close();
    }
  },
);
