/// <reference lib="deno.ns" />
import assert from "node:assert/strict";
import { Hono } from "hono";
import { serve } from "./test_server.ts";
import { changePassword, loadMe, updateProfile } from "./profile.ts";
import { accessToken, signedOut } from "./session.ts";

const me = { user_id: "u1", name: "Ann", timezone: null };

Deno.test("profile store: reads and changes the name and time zone", async () => {
  using server = serve(
    new Hono()
      .get("/api/auth/me", (c) => c.json(me))
      .patch("/api/auth/me", async (c) => c.json({ ...me, ...(await c.req.json()) })),
  );
  assert.equal((await loadMe()).name, "Ann");
  const next = await updateProfile({ timezone: "Europe/Berlin" });
  assert.equal(next.timezone, "Europe/Berlin");
  assert.deepEqual(server.seen.map((s) => [s.method, s.path, s.body]), [
    ["GET", "/api/auth/me", undefined],
    ["PATCH", "/api/auth/me", { timezone: "Europe/Berlin" }],
  ]);
});

Deno.test("profile store: a password change takes the new session's token; a refused one keeps the old", async () => {
  let refuse = true;
  using server = serve(
    new Hono().post(
      "/api/auth/password",
      (c) =>
        refuse ? c.json({ error: "Current password is incorrect" }, 403) : c.json({
          access_token: "new.token.here",
          id_token: "x",
          refresh_token: "r",
          expires_in: 900,
          token_type: "Bearer",
        }),
    ),
  );
  accessToken.value = "old.token.here";
  await assert.rejects(
    () => changePassword("wrong", "New-Passw0rd!"),
    (err: Error & { status?: number }) =>
      err.status === 403 && err.message === "Current password is incorrect",
  );
  assert.equal(accessToken.value, "old.token.here");
  refuse = false;
  await changePassword("right", "New-Passw0rd!");
  assert.equal(accessToken.value, "new.token.here");
  assert.deepEqual(server.seen[1].body, {
    current_password: "right",
    new_password: "New-Passw0rd!",
  });
  signedOut();
});
