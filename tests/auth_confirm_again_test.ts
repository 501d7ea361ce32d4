/**
 * Confirming an email that is already confirmed: the code that confirmed it answers 200 again
 * (a second click, a retried request), while any other code is wrong (400), as for an account
 * not yet confirmed.
 */
import assert from "node:assert/strict";
import { api, e2e, startTestStack } from "./helpers/stack.ts";
import { waitForOutbox } from "./helpers/outbox.ts";
import { GOOD_PASSWORD, uniqueEmail } from "./helpers/users.ts";

Deno.test(
  "a confirmed email: its own code confirms again (200), any other code is wrong (400)",
  e2e,
  async () => {
    const stack = await startTestStack();
    try {
      const email = uniqueEmail("again");
      const signup = await api(stack, "POST", "/api/auth/signup", {
        body: { email, password: GOOD_PASSWORD, name: "Agnes", recaptcha_token: "test-token" },
      });
      assert.equal(signup.status, 200);
      const mail = await waitForOutbox(
        stack.outboxFile,
        (l) => l.template === "confirm_email" && l.to === email,
      );
      const code = String(mail.data.code);
      const other = code === "000000" ? "111111" : "000000";

      const first = await api(stack, "POST", "/api/auth/confirm", { body: { email, code } });
      assert.equal(first.status, 200);
      const again = await api(stack, "POST", "/api/auth/confirm", { body: { email, code } });
      assert.equal(again.status, 200);
      assert.equal(again.body.message, "Email already confirmed");
      const wrong = await api(stack, "POST", "/api/auth/confirm", {
        body: { email: email.toUpperCase(), code: other },
      });
      assert.equal(wrong.status, 400);
      assert.equal(wrong.body.error, "Invalid or expired confirmation code");
      // The wrong try changed nothing: the account signs in, its own code still answers 200.
      const login = await api(stack, "POST", "/api/auth/login", {
        body: { email, password: GOOD_PASSWORD },
      });
      assert.equal(login.status, 200);
      const still = await api(stack, "POST", "/api/auth/confirm", { body: { email, code } });
      assert.equal(still.status, 200);
    } finally {
      await stack.close();
    }
  },
);
