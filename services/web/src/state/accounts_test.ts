/// <reference lib="deno.ns" />
import assert from "node:assert/strict";
import { Hono } from "hono";
import { serve } from "./test_server.ts";
import {
  confirmEmail,
  finishSetup,
  forgotPassword,
  loadSetup,
  resendConfirmation,
  resetPassword,
  signUp,
} from "./accounts.ts";

Deno.test("accounts store: each signed-out flow posts its body to its route", async () => {
  using server = serve(
    new Hono()
      .get("/api/setup", (c) => c.json({ needed: true }))
      .post("*", (c) => c.json({ message: "ok" })),
  );
  await signUp({ email: "a@x.test", name: "A", password: "pw-long-enough", recaptcha_token: "" });
  await confirmEmail("a@x.test", "123456");
  await resendConfirmation("a@x.test");
  await forgotPassword("a@x.test");
  await resetPassword("a@x.test", "654321", "new-password");
  await loadSetup();
  await finishSetup({ token: "t", email: "root@x.test", name: "Root", password: "pw-long-enough" });
  assert.deepEqual(server.seen.map((s) => [s.path, s.body]), [
    ["/api/auth/signup", {
      email: "a@x.test",
      name: "A",
      password: "pw-long-enough",
      recaptcha_token: "",
    }],
    ["/api/auth/confirm", { email: "a@x.test", code: "123456" }],
    ["/api/auth/resend-confirmation", { email: "a@x.test" }],
    ["/api/auth/forgot-password", { email: "a@x.test" }],
    ["/api/auth/reset-password", { email: "a@x.test", code: "654321", password: "new-password" }],
    ["/api/setup", undefined],
    ["/api/setup", { token: "t", email: "root@x.test", name: "Root", password: "pw-long-enough" }],
  ]);
});
