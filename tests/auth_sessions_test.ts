/**
 * Accounts and sessions under attack and after sign-out: the login throttle does not lock the
 * owner out, confirmation codes are tried a bounded number of times per address, and a
 * password reset or a logout ends what the session handed out (access tokens, WebSocket
 * tickets). Each test drives the real stack over HTTP and WebSocket. The stack trusts
 * X-Forwarded-For from loopback (TRUSTED_PROXIES), which is how the tests play clients at
 * different addresses.
 */
import assert from "node:assert/strict";
import { api, e2e, startTestStack, type TestStack } from "./helpers/stack.ts";
import { GOOD_PASSWORD, signupConfirmed, uniqueEmail } from "./helpers/users.ts";
import { waitForOutbox } from "./helpers/outbox.ts";

/** A login from the client at `address` (through the trusted loopback proxy). */
function loginFrom(stack: TestStack, address: string, email: string, password: string) {
  return api(stack, "POST", "/api/auth/login", {
    body: { email, password },
    headers: { "x-forwarded-for": address },
  });
}

Deno.test(
  "ten attacking addresses cannot lock the owner out of an account",
  e2e,
  async (t) => {
    const stack = await startTestStack({ TRUSTED_PROXIES: "127.0.0.1" });
    try {
      const user = await signupConfirmed(stack);
      const attackers = Array.from({ length: 10 }, (_, i) => `127.0.0.${10 + i}`);

      await t.step("100 wrong passwords from 10 addresses are each verified", async () => {
        for (const [a, address] of attackers.entries()) {
          const answers = await Promise.all(
            Array.from(
              { length: 10 },
              (_, i) => loginFrom(stack, address, user.email, `Wrong-${a}-${i}-Passw0rd!`),
            ),
          );
          assert.deepEqual(answers.map((r) => r.status), Array(10).fill(401));
        }
      });

      await t.step("the owner's right password from another address signs in", async () => {
        const owner = await loginFrom(stack, "203.0.113.50", user.email, GOOD_PASSWORD);
        assert.equal(owner.status, 200, JSON.stringify(owner.body));
        const again = await loginFrom(stack, "203.0.113.50", user.email, GOOD_PASSWORD);
        assert.equal(again.status, 200, JSON.stringify(again.body));
      });

      await t.step("the attacking addresses stay refused", async () => {
        for (const address of attackers) {
          const res = await loginFrom(stack, address, user.email, GOOD_PASSWORD);
          assert.equal(res.status, 429, address);
          assert.equal(typeof res.body.error, "string");
        }
      });

      await t.step("a new address at the attacked account gets only 3 tries", async () => {
        const statuses = [];
        for (let i = 0; i < 5; i++) {
          statuses.push(
            (await loginFrom(stack, "198.51.100.77", user.email, `Wrong-x${i}-Passw0rd!`)).status,
          );
        }
        assert.deepEqual(statuses, [401, 401, 401, 429, 429]);
      });
    } finally {
      await stack.close();
    }
  },
);

Deno.test(
  "confirmation codes are tried at most 10 times per address in 15 minutes",
  e2e,
  async (t) => {
    const stack = await startTestStack({ TRUSTED_PROXIES: "127.0.0.1" });
    try {
      const email = uniqueEmail("confirm");
      const signup = await api(stack, "POST", "/api/auth/signup", {
        body: { email, password: GOOD_PASSWORD, name: "Pending", recaptcha_token: "t" },
      });
      assert.equal(signup.status, 200);
      const mail = await waitForOutbox(
        stack.outboxFile,
        (l) => l.template === "confirm_email" && l.to === email,
      );
      const confirmFrom = (address: string, body: { email: string; code: string }) =>
        api(stack, "POST", "/api/auth/confirm", {
          body,
          headers: { "x-forwarded-for": address },
        });
      const guesser = "198.51.100.30";

      await t.step("30 wrong tries from one address: 10 answered, then 429", async () => {
        const statuses = [];
        for (let i = 0; i < 30; i++) {
          // Wrong codes at other (unknown) emails, so the account's own code stays alive.
          const res = await confirmFrom(guesser, {
            email: uniqueEmail("nobody"),
            code: String(100000 + i),
          });
          statuses.push(res.status);
          if (res.status === 429) assert.equal(typeof res.body.error, "string");
        }
        assert.deepEqual(statuses, [...Array(10).fill(404), ...Array(20).fill(429)]);
        const right = await confirmFrom(guesser, { email, code: String(mail.data.code) });
        assert.equal(right.status, 429);
      });

      await t.step("another address confirms with the right code", async () => {
        const right = await confirmFrom("203.0.113.30", { email, code: String(mail.data.code) });
        assert.equal(right.status, 200, JSON.stringify(right.body));
      });

      await t.step("right codes do not use up an address's tries", async () => {
        for (let i = 0; i < 12; i++) {
          const res = await confirmFrom("203.0.113.31", { email, code: String(mail.data.code) });
          assert.equal(res.status, 200, JSON.stringify(res.body));
        }
      });
    } finally {
      await stack.close();
    }
  },
);
