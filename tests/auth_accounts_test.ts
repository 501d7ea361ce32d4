// Accounts: unconfirmed accounts do not own their email, limited code mails, password recovery,
// and first-run setup.
import assert from "node:assert/strict";
import { decodeJwt } from "jose";
import { api, e2e, startTestStack, TEST_ADMIN, type TestStack } from "./helpers/stack.ts";
import { type OutboxLine, readOutbox, settledOutboxLength } from "./helpers/outbox.ts";
import { approve, createUser, GOOD_PASSWORD, login, uniqueEmail } from "./helpers/users.ts";
import { startFakeOidcProvider } from "./fakes/oidc_provider.ts";
import { waitFor } from "./helpers/wait.ts";
import { assertRetryAfter } from "./helpers/retry_after.ts";
import { MAIL_WINDOW_MS } from "../services/auth/store/common.ts";

/** The code mails' window: every 429 of theirs says to come back within it. */
const MAIL_WINDOW_S = MAIL_WINDOW_MS / 1000;

const REDIRECT_URI = "http://app.example.test/callback";
const ATTACKER_PASSWORD = "Attacker-Pw1!";

/** The `n`th (1-based) mail of `template` to `email`, waiting for it to land. */
async function nthMail(
  stack: TestStack,
  email: string,
  template: string,
  n: number,
): Promise<OutboxLine> {
  return await waitFor(async () => {
    const lines = (await readOutbox(stack.outboxFile)).filter((l) =>
      l.to === email && l.template === template
    );
    return lines.length >= n && lines[n - 1];
  }, `${template} #${n} for ${email}`);
}

async function mailCount(stack: TestStack, email: string, template: string): Promise<number> {
  // Messages queued by earlier steps have landed before counting what arrived.
  await settledOutboxLength(stack.outboxFile);
  return (await readOutbox(stack.outboxFile)).filter((l) =>
    l.to === email && l.template === template
  ).length;
}

function signup(stack: TestStack, email: string, password: string, name: string) {
  return api(stack, "POST", "/api/auth/signup", {
    body: { email, password, name, recaptcha_token: "test-token" },
  });
}

function wrongCode(code: string, i = 0): string {
  return String((Number(code) + 1 + i) % 1_000_000).padStart(6, "0");
}

/** Signs in with the fake Google provider through the hosted login; answers the tokens. */
async function googleSignIn(stack: TestStack) {
  const digest = new Uint8Array(
    await crypto.subtle.digest("SHA-256", new TextEncoder().encode("v".repeat(50))),
  );
  const challenge = btoa(String.fromCharCode(...digest)).replaceAll("+", "-").replaceAll(
    "/",
    "_",
  ).replace(/=+$/, "");
  const query = new URLSearchParams({
    response_type: "code",
    client_id: "content-pipeline",
    redirect_uri: REDIRECT_URI,
    state: "s",
    code_challenge: challenge,
    code_challenge_method: "S256",
  });
  const start = await fetch(`${stack.url}/oauth/google/start?${query}`, { redirect: "manual" });
  assert.equal(start.status, 302, await start.text());
  const atGoogle = await fetch(start.headers.get("location")!, { redirect: "manual" });
  await atGoogle.body?.cancel();
  // The browser that started the round trip brings back the cookies it was given.
  const cookies = start.headers.getSetCookie().map((c) => c.split(";")[0]).join("; ");
  const done = await fetch(atGoogle.headers.get("location")!, {
    redirect: "manual",
    headers: cookies ? { cookie: cookies } : {},
  });
  assert.equal(done.status, 302, await done.text());
  const code = new URL(done.headers.get("location")!).searchParams.get("code");
  const exchanged = await api(stack, "POST", "/api/auth/callback", {
    body: { code, redirect_uri: REDIRECT_URI, code_verifier: "v".repeat(50) },
  });
  assert.equal(exchanged.status, 200, JSON.stringify(exchanged.body));
  return exchanged.body as { access_token: string };
}

Deno.test(
  "account recovery, unconfirmed emails and limits on code mails",
  e2e,
  async (t) => {
    const google = await startFakeOidcProvider();
    const stack = await startTestStack({
      GOOGLE_CLIENT_ID: google.clientId,
      GOOGLE_CLIENT_SECRET: google.clientSecret,
      GOOGLE_ISSUER: google.issuer,
      OAUTH_REDIRECT_URIS: REDIRECT_URI,
    });
    try {
      const owner = await createUser(stack, { name: "Olive Owner" });
      const ws = await api(stack, "POST", "/api/workspaces", {
        token: owner.access_token,
        body: { name: "Launch" },
      });
      assert.equal(ws.status, 201);
      const wsId = ws.body.workspace_id as string;

      await t.step(
        "an unconfirmed signup does not own its email: the invite stays pending, a new signup replaces it",
        async () => {
          const victim = uniqueEmail("victim");
          const attack = await signup(stack, victim, ATTACKER_PASSWORD, "Mallory");
          assert.equal(attack.status, 200);
          const attackerCode = String((await nthMail(stack, victim, "confirm_email", 1)).data.code);

          const added = await api(stack, "POST", `/api/workspaces/${wsId}/members`, {
            token: owner.access_token,
            body: { email: victim, role: "editor" },
          });
          assert.equal(added.status, 201, JSON.stringify(added.body));
          assert.deepEqual(added.body, { status: "invited", email: victim, role: "editor" });

          const again = await signup(stack, victim, GOOD_PASSWORD, "Victor Victim");
          assert.equal(again.status, 200, JSON.stringify(again.body));
          const code = String((await nthMail(stack, victim, "confirm_email", 2)).data.code);
          if (code !== attackerCode) {
            const old = await api(stack, "POST", "/api/auth/confirm", {
              body: { email: victim, code: attackerCode },
            });
            assert.equal(old.status, 400, "the replaced code stops working");
          }
          const confirmed = await api(stack, "POST", "/api/auth/confirm", {
            body: { email: victim, code },
          });
          assert.equal(confirmed.status, 200);

          const attacker = await api(stack, "POST", "/api/auth/login", {
            body: { email: victim, password: ATTACKER_PASSWORD },
          });
          assert.equal(attacker.status, 401);

          const tokens = await login(stack, victim, GOOD_PASSWORD);
          const me = await api(stack, "GET", "/api/auth/me", { token: tokens.access_token });
          assert.equal(me.body.name, "Victor Victim");
          await approve(stack, me.body.user_id);
          const fresh = await login(stack, victim, GOOD_PASSWORD);
          const mine = await api(stack, "GET", "/api/workspaces", { token: fresh.access_token });
          assert.equal(mine.status, 200);
          const joined = mine.body.workspaces.find((w: { workspace_id: string }) =>
            w.workspace_id === wsId
          );
          assert.equal(joined?.member_role, "editor");
          const members = await api(stack, "GET", `/api/workspaces/${wsId}/members`, {
            token: owner.access_token,
          });
          const member = members.body.members.find((m: { email: string }) => m.email === victim);
          assert.equal(member.user_id, me.body.user_id);
          assert.equal(member.name, "Victor Victim");

          // A confirmed account still owns its email.
          const third = await signup(stack, victim, ATTACKER_PASSWORD, "Mallory");
          assert.equal(third.status, 409);
        },
      );

      await t.step(
        "Google sign-in with the verified email claims an unconfirmed account: password cleared, invite becomes the claimer's",
        async () => {
          const victim = uniqueEmail("gvictim");
          assert.equal((await signup(stack, victim, ATTACKER_PASSWORD, "Mallory")).status, 200);
          const added = await api(stack, "POST", `/api/workspaces/${wsId}/members`, {
            token: owner.access_token,
            body: { email: victim },
          });
          assert.equal(added.status, 201);
          assert.equal(added.body.status, "invited");

          google.user = { sub: `sub-${victim}`, email: victim, email_verified: true, name: "Gina" };
          const tokens = await googleSignIn(stack);
          const me = await api(stack, "GET", "/api/auth/me", { token: tokens.access_token });
          assert.equal(me.body.email, victim);
          assert.equal(me.body.name, "Gina");

          const attacker = await api(stack, "POST", "/api/auth/login", {
            body: { email: victim, password: ATTACKER_PASSWORD },
          });
          assert.equal(attacker.status, 401, "the password the attacker chose is gone");

          const members = await api(stack, "GET", `/api/workspaces/${wsId}/members`, {
            token: owner.access_token,
          });
          const member = members.body.members.find((m: { email: string }) => m.email === victim);
          assert.equal(member?.user_id, me.body.user_id);
          assert.equal(member?.role, "viewer");
        },
      );

      await t.step(
        "an account whose email Google or a password reset confirms is announced to every admin",
        async () => {
          const announced = async (email: string) => {
            const line = await waitFor(
              async () =>
                (await readOutbox(stack.outboxFile)).find((l) =>
                  l.template === "account_pending" && l.data.email === email
                ),
              `account_pending for ${email}`,
            );
            assert.equal(line.to, TEST_ADMIN.email);
            return line;
          };
          const fresh = uniqueEmail("gnew");
          google.user = { sub: `sub-${fresh}`, email: fresh, email_verified: true, name: "Nora" };
          const tokens = await googleSignIn(stack);
          const me = await api(stack, "GET", "/api/auth/me", { token: tokens.access_token });
          const line = await announced(fresh);
          assert.deepEqual([line.data.name, line.data.user_id], ["Nora", me.body.user_id]);

          const claimed = uniqueEmail("gclaim");
          assert.equal((await signup(stack, claimed, GOOD_PASSWORD, "Cleo")).status, 200);
          google.user = {
            sub: `sub-${claimed}`,
            email: claimed,
            email_verified: true,
            name: "Cleo",
          };
          await googleSignIn(stack);
          await announced(claimed);

          const reset = uniqueEmail("resetconf");
          assert.equal((await signup(stack, reset, GOOD_PASSWORD, "Rory")).status, 200);
          await api(stack, "POST", "/api/auth/forgot-password", { body: { email: reset } });
          const mail = await nthMail(stack, reset, "password_reset", 1);
          const done = await api(stack, "POST", "/api/auth/reset-password", {
            body: { email: reset, code: mail.data.code, password: "New-Passw0rd!" },
          });
          assert.equal(done.status, 200);
          await announced(reset);

          // An account confirmed already is not announced again by signing in with Google.
          google.user = { sub: `sub-${fresh}`, email: fresh, email_verified: true, name: "Nora" };
          await googleSignIn(stack);
          await settledOutboxLength(stack.outboxFile);
          assert.equal(
            (await readOutbox(stack.outboxFile)).filter((l) =>
              l.template === "account_pending" && l.data.email === fresh
            ).length,
            1,
          );
        },
      );

      await t.step(
        "tries are per code and resend-confirmation is limited per email (429, nothing sent)",
        async () => {
          const email = uniqueEmail("tries");
          assert.equal((await signup(stack, email, GOOD_PASSWORD, "Tess")).status, 200);
          const first = String((await nthMail(stack, email, "confirm_email", 1)).data.code);
          for (let i = 0; i < 5; i++) {
            const wrong = await api(stack, "POST", "/api/auth/confirm", {
              body: { email, code: wrongCode(first, i) },
            });
            assert.equal(wrong.status, 400);
          }
          const dead = await api(stack, "POST", "/api/auth/confirm", {
            body: { email, code: first },
          });
          assert.equal(dead.status, 400, "five wrong tries killed the code");

          // Three resends in the window each issue a new code (the old one stops working).
          for (let n = 2; n <= 4; n++) {
            const resend = await api(stack, "POST", "/api/auth/resend-confirmation", {
              body: { email },
            });
            assert.equal(resend.status, 200);
            await nthMail(stack, email, "confirm_email", n);
          }
          const refused = await api(stack, "POST", "/api/auth/resend-confirmation", {
            body: { email },
          });
          assert.equal(refused.status, 429);
          assert.ok(refused.body.error);
          // The email's window opened with the first resend moments ago: most of it is left.
          const wait = assertRetryAfter(refused.headers, MAIL_WINDOW_S);
          assert.ok(wait > MAIL_WINDOW_S - 60, `Retry-After ${wait} is not the window's rest`);
          assert.equal(await mailCount(stack, email, "confirm_email"), 4, "nothing more was sent");
          // An email without an account is counted alike: the status says nothing of existence.
          const ghost = uniqueEmail("ghost");
          const statuses = [];
          for (let i = 0; i < 4; i++) {
            statuses.push(
              (await api(stack, "POST", "/api/auth/resend-confirmation", {
                body: { email: ghost },
              }))
                .status,
            );
          }
          assert.deepEqual(statuses, [200, 200, 200, 429]);

          const last = String((await nthMail(stack, email, "confirm_email", 4)).data.code);
          if (last !== first) {
            // A resend gives a new code with its own tries; the killed code stays dead.
            const revived = await api(stack, "POST", "/api/auth/confirm", {
              body: { email, code: first },
            });
            assert.equal(revived.status, 400, "the killed code does not come back");
          }
          const ok = await api(stack, "POST", "/api/auth/confirm", { body: { email, code: last } });
          assert.equal(ok.status, 200, "the newest code still works");
        },
      );

      await t.step("resend-confirmation is limited per client address", async () => {
        // Every request of this test comes from 127.0.0.1: fresh emails exhaust the address.
        let refusedAt = -1;
        for (let i = 0; i < 12 && refusedAt < 0; i++) {
          const res = await api(stack, "POST", "/api/auth/resend-confirmation", {
            body: { email: uniqueEmail("addr") },
          });
          if (res.status === 429) refusedAt = i;
          else assert.equal(res.status, 200);
        }
        assert.ok(refusedAt >= 0 && refusedAt <= 10, `refused at ${refusedAt}`);
        const another = await api(stack, "POST", "/api/auth/resend-confirmation", {
          body: { email: uniqueEmail("addr") },
        });
        assert.equal(another.status, 429);
        assertRetryAfter(another.headers, MAIL_WINDOW_S);
        // The address limit is per kind of mail: password resets still go out.
        const forgot = await api(stack, "POST", "/api/auth/forgot-password", {
          body: { email: uniqueEmail("addr") },
        });
        assert.equal(forgot.status, 200);
      });

      await t.step(
        "forgot/reset: the emailed code sets the password, confirms, and revokes every refresh token",
        async () => {
          const user = await createUser(stack, { name: "Rita Reset" });
          const other = await login(stack, user.email, user.password);
          const unknown = await api(stack, "POST", "/api/auth/forgot-password", {
            body: { email: uniqueEmail("nobody") },
          });
          const known = await api(stack, "POST", "/api/auth/forgot-password", {
            body: { email: user.email.toUpperCase() },
          });
          assert.equal(unknown.status, 200);
          assert.equal(known.status, 200);
          assert.equal(known.body.message, unknown.body.message);
          const mail = await nthMail(stack, user.email, "password_reset", 1);
          assert.match(String(mail.data.code), /^\d{6}$/);
          assert.match(mail.text, new RegExp(String(mail.data.code)));

          const weak = await api(stack, "POST", "/api/auth/reset-password", {
            body: { email: user.email, code: mail.data.code, password: "weak" },
          });
          assert.equal(weak.status, 400);
          assert.match(weak.body.error, /Password/);
          const missing = await api(stack, "POST", "/api/auth/reset-password", {
            body: { email: user.email, password: "New-Passw0rd!" },
          });
          assert.equal(missing.status, 400);
          assert.match(missing.body.error, /code/);

          const reset = await api(stack, "POST", "/api/auth/reset-password", {
            body: { email: user.email, code: mail.data.code, password: "New-Passw0rd!" },
          });
          assert.equal(reset.status, 200, JSON.stringify(reset.body));
          assert.ok(reset.body.message);
          for (const token of [user.refresh_token, other.refresh_token]) {
            const refreshed = await api(stack, "POST", "/api/auth/refresh", {
              body: { refresh_token: token },
            });
            assert.equal(refreshed.status, 401, "every session was revoked");
          }
          const oldPw = await api(stack, "POST", "/api/auth/login", {
            body: { email: user.email, password: user.password },
          });
          assert.equal(oldPw.status, 401);
          const fresh = await login(stack, user.email, "New-Passw0rd!");
          const refreshed = await api(stack, "POST", "/api/auth/refresh", {
            body: { refresh_token: fresh.refresh_token },
          });
          assert.equal(refreshed.status, 200, "a session started after the reset works");
          const used = await api(stack, "POST", "/api/auth/reset-password", {
            body: { email: user.email, code: mail.data.code, password: "Other-Passw0rd!" },
          });
          assert.equal(used.status, 400, "a used code is refused");
        },
      );

      await t.step(
        "forgot/reset: resetting an unconfirmed account confirms it",
        async () => {
          const email = uniqueEmail("unconf");
          assert.equal((await signup(stack, email, ATTACKER_PASSWORD, "Mallory")).status, 200);
          const added = await api(stack, "POST", `/api/workspaces/${wsId}/members`, {
            token: owner.access_token,
            body: { email },
          });
          assert.equal(added.body.status, "invited");
          await api(stack, "POST", "/api/auth/forgot-password", { body: { email } });
          const mail = await nthMail(stack, email, "password_reset", 1);
          const reset = await api(stack, "POST", "/api/auth/reset-password", {
            body: { email, code: mail.data.code, password: "New-Passw0rd!" },
          });
          assert.equal(reset.status, 200);
          const tokens = await login(stack, email, "New-Passw0rd!");
          const me = await api(stack, "GET", "/api/auth/me", { token: tokens.access_token });
          const members = await api(stack, "GET", `/api/workspaces/${wsId}/members`, {
            token: owner.access_token,
          });
          assert.ok(
            members.body.members.some((m: { user_id: string }) => m.user_id === me.body.user_id),
            "the pending invite became a membership",
          );
        },
      );

      await t.step("forgot/reset: five wrong tries kill a code", async () => {
        const user = await createUser(stack);
        await api(stack, "POST", "/api/auth/forgot-password", { body: { email: user.email } });
        const code = String((await nthMail(stack, user.email, "password_reset", 1)).data.code);
        for (let i = 0; i < 5; i++) {
          const wrong = await api(stack, "POST", "/api/auth/reset-password", {
            body: { email: user.email, code: wrongCode(code, i), password: "New-Passw0rd!" },
          });
          assert.equal(wrong.status, 400);
        }
        const dead = await api(stack, "POST", "/api/auth/reset-password", {
          body: { email: user.email, code, password: "New-Passw0rd!" },
        });
        assert.equal(dead.status, 400);
        await login(stack, user.email, user.password);
      });

      await t.step(
        "forgot/reset: a new request replaces the old code; over the limit is 429",
        async () => {
          const user = await createUser(stack);
          await api(stack, "POST", "/api/auth/forgot-password", { body: { email: user.email } });
          const first = String((await nthMail(stack, user.email, "password_reset", 1)).data.code);
          await api(stack, "POST", "/api/auth/forgot-password", { body: { email: user.email } });
          const second = String((await nthMail(stack, user.email, "password_reset", 2)).data.code);
          if (first !== second) {
            const old = await api(stack, "POST", "/api/auth/reset-password", {
              body: { email: user.email, code: first, password: "New-Passw0rd!" },
            });
            assert.equal(old.status, 400);
          }
          await api(stack, "POST", "/api/auth/forgot-password", { body: { email: user.email } });
          const over = await api(stack, "POST", "/api/auth/forgot-password", {
            body: { email: user.email },
          });
          assert.equal(over.status, 429);
          assertRetryAfter(over.headers, MAIL_WINDOW_S);
          const third = String((await nthMail(stack, user.email, "password_reset", 3)).data.code);
          const ok = await api(stack, "POST", "/api/auth/reset-password", {
            body: { email: user.email, code: third, password: "New-Passw0rd!" },
          });
          assert.equal(ok.status, 200);
        },
      );

      await t.step("forgot/reset: an expired code is refused with 400", async () => {
        const user = await createUser(stack);
        await api(stack, "POST", "/api/auth/forgot-password", { body: { email: user.email } });
        const code = String((await nthMail(stack, user.email, "password_reset", 1)).data.code);
        // Age the stored code past its 30 minutes (the service's own KV file, opened beside it).
        const kv = await Deno.openKv(`${stack.dataDir}/auth.kv`);
        try {
          const key = ["reset_codes", user.user_id];
          const entry = await kv.get<{ expires_at: number }>(key);
          assert.ok(entry.value, "the code is stored under the account");
          assert.ok(!JSON.stringify(entry.value).includes(code), "only a hash is stored");
          await kv.set(key, { ...entry.value, expires_at: Date.now() - 1 });
        } finally {
          kv.close();
        }
        const expired = await api(stack, "POST", "/api/auth/reset-password", {
          body: { email: user.email, code, password: "New-Passw0rd!" },
        });
        assert.equal(expired.status, 400);
        await login(stack, user.email, user.password);
      });
    } finally {
      await stack.close();
      await google.close();
    }
  },
);

Deno.test("first run: the logged setup URL creates the first admin once", e2e, async () => {
  const lines: string[] = [];
  const log = console.log;
  console.log = (...args: unknown[]) => {
    lines.push(args.map(String).join(" "));
  };
  let stack: TestStack;
  try {
    stack = await startTestStack({ ADMIN_EMAIL: "", ADMIN_PASSWORD: "", ADMIN_NAME: "" });
  } finally {
    console.log = log;
  }
  try {
    const setupLines = lines.filter((l) => l.includes("/setup?token="));
    assert.equal(setupLines.length, 1, "one line holds the setup URL");
    const url = new URL(/(http[^\s"]+?\/setup\?token=[A-Za-z0-9_-]+)/.exec(setupLines[0])![1]);
    assert.equal(url.origin, stack.env.PUBLIC_URL);
    const token = url.searchParams.get("token")!;

    const kv = await Deno.openKv(`${stack.dataDir}/auth.kv`);
    try {
      for await (const e of kv.list({ prefix: [] })) {
        assert.ok(!JSON.stringify(e.value ?? null).includes(token), "the token is stored hashed");
      }
    } finally {
      kv.close();
    }

    const status = await api(stack, "GET", "/api/setup");
    assert.equal(status.status, 200);
    assert.deepEqual(status.body, { needed: true });

    const admin = { email: "first@example.test", name: "First Admin", password: "Adm1n-Passw0rd!" };
    const wrong = await api(stack, "POST", "/api/setup", { body: { ...admin, token: "nope" } });
    assert.equal(wrong.status, 401);
    const weak = await api(stack, "POST", "/api/setup", {
      body: { ...admin, token, password: "short" },
    });
    assert.equal(weak.status, 400);
    assert.match(weak.body.error, /Password/);
    const noEmail = await api(stack, "POST", "/api/setup", {
      body: { token, name: admin.name, password: admin.password },
    });
    assert.equal(noEmail.status, 400);
    assert.match(noEmail.body.error, /email/);

    const created = await api(stack, "POST", "/api/setup", { body: { ...admin, token } });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    assert.ok(created.body.message);

    const tokens = await login(stack, admin.email, admin.password);
    const claims = decodeJwt(tokens.access_token);
    assert.equal(claims["custom:role"], "admin");
    assert.equal(claims["custom:approved"], "true");
    const users = await api(stack, "GET", "/api/admin/users", { token: tokens.access_token });
    assert.equal(users.status, 200);

    const again = await api(stack, "POST", "/api/setup", { body: { ...admin, token } });
    assert.equal(again.status, 410);
    const other = await api(stack, "POST", "/api/setup", { body: { ...admin, token: "x" } });
    assert.equal(other.status, 410);
    // Once an admin exists setup is over, whatever the body holds.
    for (const body of [{ token }, { ...admin, token, password: "short" }, {}]) {
      const over = await api(stack, "POST", "/api/setup", { body });
      assert.equal(over.status, 410, JSON.stringify(body));
      assert.match(over.body.error, /admin account exists/);
    }
    assert.deepEqual((await api(stack, "GET", "/api/setup")).body, { needed: false });
  } finally {
    await stack.close();
  }
});

Deno.test(
  "first run: setup over an unconfirmed signup of that email makes the admin of the setup's name and password",
  e2e,
  async () => {
    const lines: string[] = [];
    const log = console.log;
    console.log = (...args: unknown[]) => {
      lines.push(args.map(String).join(" "));
    };
    let stack: TestStack;
    try {
      stack = await startTestStack({ ADMIN_EMAIL: "", ADMIN_PASSWORD: "", ADMIN_NAME: "" });
    } finally {
      console.log = log;
    }
    try {
      const token = /\/setup\?token=([A-Za-z0-9_-]+)/.exec(
        lines.find((l) => l.includes("/setup?token="))!,
      )![1];
      const email = uniqueEmail("first");
      // Someone signed up with the address first and never confirmed it: the account does not
      // own the email (CONTRACT 11), so setup makes the admin it is asked for.
      const early = await api(stack, "POST", "/api/auth/signup", {
        body: { email, password: GOOD_PASSWORD, name: "Mallory", recaptcha_token: "t" },
      });
      assert.equal(early.status, 200, JSON.stringify(early.body));
      const admin = { email, name: "First Admin", password: "Adm1n-Passw0rd!" };
      const created = await api(stack, "POST", "/api/setup", { body: { ...admin, token } });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      const old = await api(stack, "POST", "/api/auth/login", {
        body: { email, password: GOOD_PASSWORD },
      });
      assert.equal(old.status, 401, "the unconfirmed signup's password is gone");
      const tokens = await login(stack, email, admin.password);
      const me = await api(stack, "GET", "/api/auth/me", { token: tokens.access_token });
      assert.equal(me.status, 200, JSON.stringify(me.body));
      assert.deepEqual([me.body.name, me.body.role, me.body.status], [
        "First Admin",
        "admin",
        "approved",
      ]);
    } finally {
      await stack.close();
    }
  },
);

Deno.test("first run: no setup URL when ADMIN_EMAIL makes the admin", e2e, async () => {
  const lines: string[] = [];
  const log = console.log;
  console.log = (...args: unknown[]) => {
    lines.push(args.map(String).join(" "));
  };
  let stack: TestStack;
  try {
    stack = await startTestStack();
  } finally {
    console.log = log;
  }
  try {
    assert.ok(!lines.some((l) => l.includes("/setup?token=")));
    assert.deepEqual((await api(stack, "GET", "/api/setup")).body, { needed: false });
    const res = await api(stack, "POST", "/api/setup", {
      body: { token: "x", email: "a@example.test", name: "A", password: "Adm1n-Passw0rd!" },
    });
    assert.equal(res.status, 410);
  } finally {
    await stack.close();
  }
});
