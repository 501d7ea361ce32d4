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
import { createUser, GOOD_PASSWORD, login, signupConfirmed, uniqueEmail } from "./helpers/users.ts";
import { waitForOutbox } from "./helpers/outbox.ts";
import { createWorkspace } from "./helpers/workspaces.ts";
import { ticketFor, upgradeStatus } from "./helpers/ws.ts";
import { waitFor } from "./helpers/wait.ts";
import { assertRetryAfter } from "./helpers/retry_after.ts";
import { LOGIN_WINDOW_MS, MAIL_WINDOW_MS } from "../services/auth/store/common.ts";

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
          assertRetryAfter(res.headers, LOGIN_WINDOW_MS / 1000);
        }
      });

      await t.step("a new address at the attacked account gets only 3 tries", async () => {
        const statuses = [];
        let refused: Headers | null = null;
        for (let i = 0; i < 5; i++) {
          const res = await loginFrom(stack, "198.51.100.77", user.email, `Wrong-x${i}-Passw0rd!`);
          statuses.push(res.status);
          if (res.status === 429) refused = res.headers;
        }
        assert.deepEqual(statuses, [401, 401, 401, 429, 429]);
        assertRetryAfter(refused!, LOGIN_WINDOW_MS / 1000);
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
          if (res.status === 429) {
            assert.equal(typeof res.body.error, "string");
            assertRetryAfter(res.headers, MAIL_WINDOW_MS / 1000);
          }
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

/** Polls `probe` until it answers `status`, failing when that takes longer than 5 s from `since`. */
async function refusedWithin(
  since: number,
  what: string,
  status: number,
  probe: () => Promise<number>,
) {
  let last = 0;
  await waitFor(async () => (last = await probe()) === status, what, since + 5_000 - Date.now())
    .catch(() => {
      throw new Error(`${what}: still ${last} 5 s after the change, expected ${status}`);
    });
}

Deno.test(
  "tickets open one socket within a minute; a reset or a logout ends what the session issued",
  e2e,
  async (t) => {
    const stack = await startTestStack();
    try {
      const owner = await createUser(stack, { name: "Session owner" });
      const workspaceId = await createWorkspace(stack, owner, "Sessions");
      const post = await api(stack, "POST", "/api/posts", {
        token: owner.access_token,
        body: { workspace_id: workspaceId, title: "Live post", content: "Text" },
      });
      assert.equal(post.status, 201, JSON.stringify(post.body));
      const query = (ticket: string) =>
        new URLSearchParams({ ticket, docId: post.body.post_id, workspaceId }).toString();
      const opens = async (ticket: string) => await upgradeStatus(stack.url, query(ticket));
      const me = async (token: string) =>
        (await api(stack, "GET", "/api/auth/me", { token })).status;

      await t.step("a ticket opens one socket: the second connection is refused", async () => {
        const ticket = await ticketFor(stack, owner);
        assert.equal(await opens(ticket), 101);
        assert.equal(await opens(ticket), 401);
      });

      await t.step("a ticket lives at most a minute", async () => {
        const ticket = await ticketFor(stack, owner);
        const realNow = Date.now;
        const start = realNow();
        try {
          Date.now = () => start + 61_000 + (realNow() - start);
          assert.equal(await opens(ticket), 401);
        } finally {
          Date.now = realNow;
        }
      });

      await t.step(
        "a password reset refuses older access tokens and tickets within 5 s",
        async () => {
          const old = await login(stack, owner.email, owner.password);
          const oldTicket = await ticketFor(stack, old);
          assert.equal(await me(old.access_token), 200);
          const forgot = await api(stack, "POST", "/api/auth/forgot-password", {
            body: { email: owner.email },
          });
          assert.equal(forgot.status, 200);
          const mail = await waitForOutbox(
            stack.outboxFile,
            (l) => l.template === "password_reset" && l.to === owner.email,
          );
          const newPassword = "Another-G00d-Pass!";
          const reset = await api(stack, "POST", "/api/auth/reset-password", {
            body: { email: owner.email, code: String(mail.data.code), password: newPassword },
          });
          assert.equal(reset.status, 200, JSON.stringify(reset.body));
          const since = Date.now();
          await refusedWithin(since, "GET /api/auth/me", 401, () => me(old.access_token));
          await refusedWithin(
            since,
            "GET /api/workspaces",
            401,
            async () =>
              (await api(stack, "GET", "/api/workspaces", { token: old.access_token })).status,
          );
          await refusedWithin(
            since,
            "POST /api/ws/ticket",
            401,
            async () =>
              (await api(stack, "POST", "/api/ws/ticket", { token: old.access_token })).status,
          );
          await refusedWithin(since, "a ticket minted before", 401, () => opens(oldTicket));
          // A new sign-in is a new session: its token and tickets work.
          const fresh = await login(stack, owner.email, newPassword);
          assert.equal(await me(fresh.access_token), 200);
          assert.equal(await opens(await ticketFor(stack, fresh)), 101);
          owner.password = newPassword;
        },
      );

      await t.step(
        "logout refuses that session's access token and tickets within 5 s, not the others'",
        async () => {
          const leaving = await login(stack, owner.email, owner.password);
          const staying = await login(stack, owner.email, owner.password);
          const leavingTicket = await ticketFor(stack, leaving);
          const stayingTicket = await ticketFor(stack, staying);
          assert.equal(await me(leaving.access_token), 200);
          const out = await api(stack, "POST", "/api/auth/logout", {
            body: { refresh_token: leaving.refresh_token },
          });
          assert.equal(out.status, 204);
          const since = Date.now();
          await refusedWithin(since, "GET /api/auth/me", 401, () => me(leaving.access_token));
          await refusedWithin(
            since,
            "GET /api/workspaces",
            401,
            async () =>
              (await api(stack, "GET", "/api/workspaces", { token: leaving.access_token })).status,
          );
          await refusedWithin(
            since,
            "POST /api/ws/ticket",
            401,
            async () =>
              (await api(stack, "POST", "/api/ws/ticket", { token: leaving.access_token })).status,
          );
          await refusedWithin(since, "a ticket minted before", 401, () => opens(leavingTicket));
          // The other device's session goes on.
          assert.equal(await me(staying.access_token), 200);
          assert.equal(await opens(stayingTicket), 101);
          const refreshed = await api(stack, "POST", "/api/auth/refresh", {
            body: { refresh_token: staying.refresh_token },
          });
          assert.equal(refreshed.status, 200, JSON.stringify(refreshed.body));
          assert.equal(await me(refreshed.body.access_token), 200);
        },
      );
    } finally {
      await stack.close();
    }
  },
);
