import assert from "node:assert/strict";
import { createLocalJWKSet, decodeProtectedHeader, jwtVerify } from "jose";
import { api, e2e, startTestStack, TEST_ADMIN, type TestStack } from "./helpers/stack.ts";
import {
  type OutboxLine,
  readOutbox,
  settledOutboxLength,
  waitForOutbox,
} from "./helpers/outbox.ts";
import {
  approve,
  createUser,
  GOOD_PASSWORD,
  login,
  loginAdmin,
  signupConfirmed,
  uniqueEmail,
} from "./helpers/users.ts";
import { startFakeRecaptcha } from "./fakes/recaptcha.ts";
import { startFakeOidcProvider } from "./fakes/oidc_provider.ts";
import { pageHeaders, redirectOrigins } from "../services/auth/pages.ts";
import { waitFor } from "./helpers/wait.ts";
import { assertRetryAfter } from "./helpers/retry_after.ts";
import { LOGIN_WINDOW_MS } from "../services/auth/store/common.ts";

const REDIRECT_URI = "http://app.example.test/callback";
const OTHER_REDIRECT_URI = "http://app.example.test/other";
const CLIENT_ID = "content-pipeline";

function b64url(bytes: Uint8Array): string {
  let s = "";
  for (const b of bytes) s += String.fromCharCode(b);
  return btoa(s).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

async function pkcePair() {
  const verifier = b64url(crypto.getRandomValues(new Uint8Array(32)));
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier));
  return { verifier, challenge: b64url(new Uint8Array(digest)) };
}

/** The PKCE pair the hosted-login steps use unless they bring their own (PKCE is required). */
const PKCE = await pkcePair();
const LOGIN_WINDOW_S = LOGIN_WINDOW_MS / 1000;
const PKCE_PARAMS = { code_challenge: PKCE.challenge, code_challenge_method: "S256" };

function authorizeQuery(extra: Record<string, string> = {}): string {
  return new URLSearchParams({
    response_type: "code",
    client_id: CLIENT_ID,
    redirect_uri: REDIRECT_URI,
    state: "st-123",
    ...PKCE_PARAMS,
    ...extra,
  }).toString();
}

/** Submits the hosted login form the way a browser does (from the page's own origin). */
async function postAuthorize(stack: TestStack, fields: Record<string, string>) {
  const res = await fetch(`${stack.url}/oauth/authorize`, {
    method: "POST",
    headers: {
      "content-type": "application/x-www-form-urlencoded",
      origin: stack.env.PUBLIC_URL,
    },
    body: new URLSearchParams({
      response_type: "code",
      client_id: CLIENT_ID,
      redirect_uri: REDIRECT_URI,
      state: "st-123",
      ...PKCE_PARAMS,
      ...fields,
    }),
    redirect: "manual",
  });
  return {
    status: res.status,
    location: res.headers.get("location"),
    csp: res.headers.get("content-security-policy"),
    headers: res.headers,
    text: await res.text(),
  };
}

/** Signs in through the hosted page and answers the authorization code. */
async function authorizationCode(
  stack: TestStack,
  email: string,
  password: string,
  extra: Record<string, string> = {},
): Promise<string> {
  const res = await postAuthorize(stack, { email, password, ...extra });
  assert.equal(res.status, 302, res.text);
  const location = new URL(res.location!);
  const code = location.searchParams.get("code");
  assert.ok(code);
  return code;
}

async function signup(stack: TestStack, body: Record<string, unknown>) {
  return await api(stack, "POST", "/api/auth/signup", { body });
}

/** A request straight to the auth service, as the gateway would forward it. */
async function authDirect(stack: TestStack, path: string, caller?: unknown, method = "GET") {
  const service = stack.services.find((s) => s.name === "auth")!;
  const headers = new Headers({ "x-cp-internal": stack.env.INTERNAL_SECRET });
  if (caller) headers.set("x-cp-caller", encodeURIComponent(JSON.stringify(caller)));
  const res = await service.fetch(
    new Request(`http://internal.invalid${path}`, { method, headers }),
  );
  return { status: res.status, body: await res.json() };
}

async function internalJson(stack: TestStack, method: string, path: string, body?: unknown) {
  const res = await stack.internal("auth", method, path, body);
  return { status: res.status, body: await res.json() };
}

Deno.test("auth service end to end", e2e, async (t) => {
  const recaptcha = startFakeRecaptcha();
  const google = await startFakeOidcProvider();
  const stack = await startTestStack({
    RECAPTCHA_SECRET: "recaptcha-test-secret",
    RECAPTCHA_VERIFY_URL: recaptcha.url,
    GOOGLE_CLIENT_ID: google.clientId,
    GOOGLE_CLIENT_SECRET: google.clientSecret,
    GOOGLE_ISSUER: google.issuer,
    OAUTH_REDIRECT_URIS: `${REDIRECT_URI}, ${OTHER_REDIRECT_URI}`,
  });
  try {
    await t.step("signup refuses missing fields with 400 naming the field", async () => {
      const full = {
        email: uniqueEmail("fields"),
        password: GOOD_PASSWORD,
        name: "N",
        recaptcha_token: "ok",
      };
      for (const field of ["email", "password", "name", "recaptcha_token"]) {
        const body: Record<string, unknown> = { ...full };
        delete body[field];
        const res = await signup(stack, body);
        assert.equal(res.status, 400, field);
        assert.match(res.body.error, new RegExp(`^${field}`));
      }
      // A blank value is a missing one.
      for (
        const [field, blank] of [["email", ""], ["email", "   "], ["password", ""], ["name", " "]]
      ) {
        const res = await signup(stack, { ...full, [field]: blank });
        assert.equal(res.status, 400, `${field} ${JSON.stringify(blank)}`);
        assert.equal(res.body.error, `${field} is required`);
      }
      const bad = await signup(stack, { ...full, email: "not-an-email" });
      assert.equal(bad.status, 400);
      assert.match(bad.body.error, /email/);
    });

    await t.step("signup enforces the password policy, naming the rule", async () => {
      const cases: [string, RegExp][] = [
        ["Sh0rt!", /at least 8/],
        ["NOLOWER-0!", /lowercase/],
        ["noupper-0!", /uppercase/],
        ["No-Digits!", /digit/],
        ["NoSymbol00", /symbol/],
      ];
      for (const [password, rule] of cases) {
        const res = await signup(stack, {
          email: uniqueEmail("policy"),
          password,
          name: "N",
          recaptcha_token: "ok",
        });
        assert.equal(res.status, 400, password);
        assert.match(res.body.error, rule);
      }
    });

    await t.step(
      "signup scores the reCAPTCHA token: success false or score < 0.5 is 400",
      async () => {
        const email = uniqueEmail("bot");
        const before = recaptcha.received.length;
        const invalid = await signup(stack, {
          email,
          password: GOOD_PASSWORD,
          name: "Bot",
          recaptcha_token: "invalid",
        });
        assert.equal(invalid.status, 400);
        assert.match(invalid.body.error, /recaptcha_token/);
        const low = await signup(stack, {
          email,
          password: GOOD_PASSWORD,
          name: "Bot",
          recaptcha_token: "score:0.3",
        });
        assert.equal(low.status, 400);
        assert.match(low.body.error, /recaptcha_token/);
        assert.deepEqual(recaptcha.received.slice(before), [
          { secret: "recaptcha-test-secret", response: "invalid" },
          { secret: "recaptcha-test-secret", response: "score:0.3" },
        ]);
        const ok = await signup(stack, {
          email,
          password: GOOD_PASSWORD,
          name: "Bot",
          recaptcha_token: "score:0.5",
        });
        assert.equal(ok.status, 200);
      },
    );

    await t.step(
      "signup queues a confirm_email with a 6-digit code; a second signup of a confirmed email is 409",
      async () => {
        const email = uniqueEmail("dup");
        const res = await signup(stack, {
          email,
          password: GOOD_PASSWORD,
          name: "Dup",
          recaptcha_token: "ok",
        });
        assert.equal(res.status, 200);
        assert.equal(typeof res.body.message, "string");
        const mail = await waitForOutbox(stack.outboxFile, (l) => l.to === email);
        assert.equal(mail.channel, "email");
        assert.equal(mail.template, "confirm_email");
        assert.match(String(mail.data.code), /^\d{6}$/);
        // An unconfirmed account does not own its email: confirm it first.
        const confirmed = await api(stack, "POST", "/api/auth/confirm", {
          body: { email, code: mail.data.code },
        });
        assert.equal(confirmed.status, 200);
        const again = await signup(stack, {
          email: `  ${email.toUpperCase()} `,
          password: GOOD_PASSWORD,
          name: "Dup",
          recaptcha_token: "ok",
        });
        assert.equal(again.status, 409);
        assert.ok(again.body.error);
      },
    );

    await t.step(
      "concurrent signups of one email leave exactly one account (the later replaces the unconfirmed one)",
      async () => {
        const email = uniqueEmail("race");
        const body = { email, password: GOOD_PASSWORD, name: "Race", recaptcha_token: "ok" };
        const results = await Promise.all([signup(stack, body), signup(stack, body)]);
        assert.deepEqual(results.map((r) => r.status), [200, 200]);
        const all = await internalJson(stack, "GET", "/internal/users");
        assert.equal(all.body.users.filter((u: { email: string }) => u.email === email).length, 1);
      },
    );

    await t.step("confirm: 404 unknown email, 400 wrong code, 200 right code", async () => {
      const email = uniqueEmail("confirm");
      await signup(stack, { email, password: GOOD_PASSWORD, name: "C", recaptcha_token: "ok" });
      const mail = await waitForOutbox(stack.outboxFile, (l) => l.to === email);
      const code = String(mail.data.code);
      const unknown = await api(stack, "POST", "/api/auth/confirm", {
        body: { email: uniqueEmail("nobody"), code },
      });
      assert.equal(unknown.status, 404);
      const wrong = await api(stack, "POST", "/api/auth/confirm", {
        body: { email, code: code === "000000" ? "111111" : "000000" },
      });
      assert.equal(wrong.status, 400);
      assert.ok(wrong.body.error);
      const missing = await api(stack, "POST", "/api/auth/confirm", { body: { email } });
      assert.equal(missing.status, 400);
      assert.equal(missing.body.error, "code is required");
      const notYet = await api(stack, "POST", "/api/auth/login", {
        body: { email, password: GOOD_PASSWORD },
      });
      assert.equal(notYet.status, 403);
      const ok = await api(stack, "POST", "/api/auth/confirm", {
        body: { email: email.toUpperCase(), code },
      });
      assert.equal(ok.status, 200);
      assert.equal(typeof ok.body.message, "string");
      assert.equal((await login(stack, email, GOOD_PASSWORD)).access_token.split(".").length, 3);
    });

    await t.step("five wrong confirmation codes invalidate the code", async () => {
      const email = uniqueEmail("attempts");
      await signup(stack, { email, password: GOOD_PASSWORD, name: "A", recaptcha_token: "ok" });
      const code = String((await waitForOutbox(stack.outboxFile, (l) => l.to === email)).data.code);
      const wrong = code === "000000" ? "111111" : "000000";
      for (let i = 0; i < 5; i++) {
        const res = await api(stack, "POST", "/api/auth/confirm", { body: { email, code: wrong } });
        assert.equal(res.status, 400);
      }
      const late = await api(stack, "POST", "/api/auth/confirm", { body: { email, code } });
      assert.equal(late.status, 400);
    });

    await t.step("resend answers 200 always and a new code replaces the old one", async () => {
      const unknown = await api(stack, "POST", "/api/auth/resend-confirmation", {
        body: { email: uniqueEmail("ghost") },
      });
      assert.equal(unknown.status, 200);
      assert.equal(typeof unknown.body.message, "string");
      const email = uniqueEmail("resend");
      await signup(stack, { email, password: GOOD_PASSWORD, name: "R", recaptcha_token: "ok" });
      const first = await waitForOutbox(stack.outboxFile, (l) => l.to === email);
      const res = await api(stack, "POST", "/api/auth/resend-confirmation", { body: { email } });
      assert.equal(res.status, 200);
      assert.deepEqual(res.body, unknown.body);
      let lines: OutboxLine[] = [];
      await waitFor(async () => {
        lines = (await readOutbox(stack.outboxFile)).filter((l) => l.to === email);
        return lines.length >= 2;
      }, "the second confirmation mail");
      assert.equal(lines.length, 2);
      const second = lines[1];
      if (second.data.code !== first.data.code) {
        const old = await api(stack, "POST", "/api/auth/confirm", {
          body: { email, code: first.data.code },
        });
        assert.equal(old.status, 400);
      }
      const ok = await api(stack, "POST", "/api/auth/confirm", {
        body: { email, code: second.data.code },
      });
      assert.equal(ok.status, 200);
    });

    await t.step(
      "login: 401 with the exact message for a wrong password or unknown email",
      async () => {
        const user = await signupConfirmed(stack);
        for (
          const body of [
            { email: user.email, password: "Wrong-Passw0rd!" },
            { email: uniqueEmail("unknown"), password: GOOD_PASSWORD },
          ]
        ) {
          const started = performance.now();
          const res = await api(stack, "POST", "/api/auth/login", { body });
          assert.equal(res.status, 401);
          assert.deepEqual(res.body, { error: "Invalid email or password" });
          // An unknown email still pays for one argon2id verification.
          assert.ok(performance.now() - started > 15);
        }
        const missing = await api(stack, "POST", "/api/auth/login", {
          body: { email: user.email },
        });
        assert.equal(missing.status, 400);
        assert.equal(missing.body.error, "password is required");
        const ok = await api(stack, "POST", "/api/auth/login", {
          body: { email: ` ${user.email.toUpperCase()} `, password: GOOD_PASSWORD },
        });
        assert.equal(ok.status, 200);
        assert.equal(ok.body.token_type, "Bearer");
        assert.equal(ok.body.expires_in, 3600);
        for (const k of ["access_token", "id_token", "refresh_token"]) {
          assert.equal(typeof ok.body[k], "string");
        }
      },
    );

    await t.step("10 failed logins for one email in 15 minutes lock it out with 429", async () => {
      const user = await signupConfirmed(stack);
      const other = await signupConfirmed(stack);
      for (let i = 0; i < 10; i++) {
        const res = await api(stack, "POST", "/api/auth/login", {
          body: { email: user.email, password: `Wrong-${i}-Pass!` },
        });
        assert.equal(res.status, 401);
      }
      const locked = await api(stack, "POST", "/api/auth/login", {
        body: { email: user.email, password: GOOD_PASSWORD },
      });
      assert.equal(locked.status, 429);
      assert.ok(locked.body.error);
      // The lock lasts until the 15-minute window the first wrong try opened is over.
      const wait = assertRetryAfter(locked.headers, LOGIN_WINDOW_S);
      assert.ok(wait > LOGIN_WINDOW_S - 60, `Retry-After ${wait} is not the window's rest`);
      const page = await postAuthorize(stack, { email: user.email, password: GOOD_PASSWORD });
      assert.equal(page.status, 429);
      assertRetryAfter(page.headers, LOGIN_WINDOW_S);
      assert.equal(
        (await api(stack, "POST", "/api/auth/login", {
          body: { email: other.email, password: GOOD_PASSWORD },
        })).status,
        200,
      );
    });

    await t.step(
      "tokens are EdDSA JWTs verifiable with the JWKS, with the documented claims",
      async () => {
        const jwks = await api(stack, "GET", "/.well-known/jwks.json");
        assert.equal(jwks.status, 200);
        assert.ok(jwks.body.keys.length >= 1);
        for (const key of jwks.body.keys) {
          assert.equal(key.kty, "OKP");
          assert.equal(key.crv, "Ed25519");
          assert.equal(key.alg, "EdDSA");
          assert.ok(key.kid);
          assert.equal(key.d, undefined);
        }
        const config = await api(stack, "GET", "/.well-known/openid-configuration");
        assert.equal(config.status, 200);
        assert.equal(config.body.issuer, stack.env.PUBLIC_URL);
        assert.equal(config.body.jwks_uri, `${stack.env.PUBLIC_URL}/.well-known/jwks.json`);
        assert.equal(config.body.authorization_endpoint, `${stack.env.PUBLIC_URL}/oauth/authorize`);
        assert.deepEqual(config.body.code_challenge_methods_supported, ["S256"]);

        const user = await signupConfirmed(stack, { name: "Claims Person" });
        const tokens = await login(stack, user.email, user.password);
        const keys = createLocalJWKSet(jwks.body);
        for (const token of [tokens.access_token, tokens.id_token]) {
          assert.equal(decodeProtectedHeader(token).alg, "EdDSA");
          const { payload } = await jwtVerify(token, keys, {
            issuer: stack.env.PUBLIC_URL,
            audience: CLIENT_ID,
            algorithms: ["EdDSA"],
          });
          assert.equal(payload.sub, user.user_id);
          assert.equal(payload.email, user.email);
          assert.equal(payload.name, "Claims Person");
          assert.equal(payload["custom:role"], "member");
          assert.equal(payload["custom:approved"], "false");
          assert.equal(payload.exp! - payload.iat!, 3600);
        }
      },
    );

    await t.step(
      "approval: an old token stays 401 until a new one is issued; /me reads live",
      async () => {
        const user = await signupConfirmed(stack);
        const before = await login(stack, user.email, user.password);
        assert.equal(
          (await api(stack, "GET", "/api/workspaces", { token: before.access_token })).status,
          401,
        );
        const meBefore = await api(stack, "GET", "/api/auth/me", { token: before.access_token });
        assert.equal(meBefore.status, 200);
        assert.equal(meBefore.body.status, "pending");
        const ticket = await api(stack, "POST", "/api/ws/ticket", { token: before.access_token });
        assert.equal(ticket.status, 401);

        await approve(stack, user.user_id);
        const dm = await waitForOutbox(
          stack.outboxFile,
          (l) => l.to === user.email && l.template === "user_approved",
        );
        assert.equal(dm.channel, "dm");
        assert.equal(
          (await api(stack, "GET", "/api/workspaces", { token: before.access_token })).status,
          401,
        );
        const meAfter = await api(stack, "GET", "/api/auth/me", { token: before.access_token });
        assert.equal(meAfter.body.status, "approved");
        assert.deepEqual(Object.keys(meAfter.body).sort(), [
          "created_at",
          "email",
          "name",
          "role",
          "status",
          "timezone",
          "updated_at",
          "user_id",
        ]);

        const refreshed = await api(stack, "POST", "/api/auth/refresh", {
          body: { refresh_token: before.refresh_token },
        });
        assert.equal(refreshed.status, 200);
        assert.equal(
          (await api(stack, "GET", "/api/workspaces", { token: refreshed.body.access_token }))
            .status,
          200,
        );
        const relogged = await login(stack, user.email, user.password);
        assert.equal(
          (await api(stack, "GET", "/api/workspaces", { token: relogged.access_token })).status,
          200,
        );

        // Approving twice is safe and sends no second DM.
        await approve(stack, user.user_id);
        await settledOutboxLength(stack.outboxFile);
        const dms = (await readOutbox(stack.outboxFile)).filter((l) =>
          l.to === user.email && l.template === "user_approved"
        );
        assert.equal(dms.length, 1);
      },
    );

    await t.step(
      "refresh rotates; reusing an old refresh token revokes the whole family",
      async () => {
        const user = await createUser(stack);
        const first = await api(stack, "POST", "/api/auth/refresh", {
          body: { refresh_token: user.refresh_token },
        });
        assert.equal(first.status, 200);
        assert.notEqual(first.body.refresh_token, user.refresh_token);
        assert.equal(first.body.token_type, "Bearer");
        assert.equal(first.body.expires_in, 3600);
        const reused = await api(stack, "POST", "/api/auth/refresh", {
          body: { refresh_token: user.refresh_token },
        });
        assert.equal(reused.status, 401);
        assert.ok(reused.body.error);
        const family = await api(stack, "POST", "/api/auth/refresh", {
          body: { refresh_token: first.body.refresh_token },
        });
        assert.equal(family.status, 401);
        const unknown = await api(stack, "POST", "/api/auth/refresh", {
          body: { refresh_token: "not-a-token" },
        });
        assert.equal(unknown.status, 401);
        const missing = await api(stack, "POST", "/api/auth/refresh", { body: {} });
        assert.equal(missing.status, 400);
        assert.equal(missing.body.error, "refresh_token is required");
        // A fresh login starts a new family that still works.
        const fresh = await login(stack, user.email, user.password);
        assert.equal(
          (await api(stack, "POST", "/api/auth/refresh", {
            body: { refresh_token: fresh.refresh_token },
          })).status,
          200,
        );
      },
    );

    await t.step("logout answers 204 and the refresh token stops working", async () => {
      const user = await createUser(stack);
      const out = await api(stack, "POST", "/api/auth/logout", {
        body: { refresh_token: user.refresh_token },
      });
      assert.equal(out.status, 204);
      assert.equal(out.body, null);
      const after = await api(stack, "POST", "/api/auth/refresh", {
        body: { refresh_token: user.refresh_token },
      });
      assert.equal(after.status, 401);
      assert.equal(
        (await api(stack, "POST", "/api/auth/logout", {
          body: { refresh_token: "unknown" },
        })).status,
        204,
      );
      assert.equal((await api(stack, "POST", "/api/auth/logout", { body: {} })).status, 400);
    });

    await t.step(
      "a disabled or rejected account cannot log in (403) nor refresh (401)",
      async () => {
        const user = await createUser(stack);
        const disabled = await internalJson(
          stack,
          "PUT",
          `/internal/users/${user.user_id}/enabled`,
          {
            enabled: false,
          },
        );
        assert.equal(disabled.status, 200);
        assert.equal(disabled.body.enabled, false);
        const loginRes = await api(stack, "POST", "/api/auth/login", {
          body: { email: user.email, password: user.password },
        });
        assert.equal(loginRes.status, 403);
        assert.ok(loginRes.body.error);
        const refresh = await api(stack, "POST", "/api/auth/refresh", {
          body: { refresh_token: user.refresh_token },
        });
        assert.equal(refresh.status, 401);
        assert.equal(refresh.body.error, "Account is disabled");
        await internalJson(stack, "PUT", `/internal/users/${user.user_id}/enabled`, {
          enabled: true,
        });
        const again = await login(stack, user.email, user.password);
        assert.ok(again.access_token);

        const rejected = await internalJson(
          stack,
          "POST",
          `/internal/users/${user.user_id}/reject`,
        );
        assert.equal(rejected.status, 200);
        assert.equal(rejected.body.status, "rejected");
        assert.equal(rejected.body.approved, false);
        assert.equal(rejected.body.enabled, false);
        const afterReject = await api(stack, "POST", "/api/auth/login", {
          body: { email: user.email, password: user.password },
        });
        assert.equal(afterReject.status, 403);
        const refreshRejected = await api(stack, "POST", "/api/auth/refresh", {
          body: { refresh_token: again.refresh_token },
        });
        assert.equal(refreshRejected.status, 401);
        assert.equal(refreshRejected.body.error, "Account has been rejected");
        const page = await postAuthorize(stack, { email: user.email, password: user.password });
        assert.equal(page.status, 403);
        assert.equal(page.location, null);
      },
    );

    await t.step(
      "GET /oauth/authorize shows a form; bad clients and redirect URIs get 400 without a redirect",
      async () => {
        const ok = await fetch(`${stack.url}/oauth/authorize?${authorizeQuery()}`);
        const html = await ok.text();
        assert.equal(ok.status, 200);
        assert.match(ok.headers.get("content-type") ?? "", /text\/html/);
        assert.match(html, /<form method="post" action="\/oauth\/authorize">/);
        assert.match(html, /name="email"/);
        assert.match(html, /name="password"/);
        assert.match(html, /Sign in with Google/);
        for (
          const query of [
            authorizeQuery({ client_id: "someone-else" }),
            authorizeQuery({ redirect_uri: "http://evil.example.test/cb" }),
            authorizeQuery({ response_type: "token" }),
            authorizeQuery({ code_challenge: "x".repeat(43), code_challenge_method: "plain" }),
          ]
        ) {
          const res = await fetch(`${stack.url}/oauth/authorize?${query}`, { redirect: "manual" });
          assert.equal(res.status, 400, query);
          assert.equal(res.headers.get("location"), null);
          await res.body?.cancel();
        }
      },
    );

    await t.step(
      "the hosted login page lets forms post only to itself and the client's redirect origin",
      async () => {
        const formAction = (header: string | null) =>
          (header ?? "").split(";").map((d) => d.trim()).find((d) => d.startsWith("form-action"));
        const ok = await fetch(`${stack.url}/oauth/authorize?${authorizeQuery()}`);
        await ok.body?.cancel();
        // A successful sign-in redirects the form's post to the client, so its origin is allowed.
        const allowed = "form-action 'self' http://app.example.test";
        assert.equal(formAction(ok.headers.get("content-security-policy")), allowed);
        const again = await postAuthorize(stack, { email: "", password: "" });
        assert.equal(again.status, 400);
        assert.match(again.text, /<form method="post"/);
        assert.equal(formAction(again.csp), allowed);
        const bad = await fetch(
          `${stack.url}/oauth/authorize?${authorizeQuery({ client_id: "x" })}`,
        );
        await bad.body?.cancel();
        assert.equal(bad.status, 400);
        assert.equal(formAction(bad.headers.get("content-security-policy")), "form-action 'self'");
        // With the default redirect URI (this origin) the login form may post to itself only.
        assert.deepEqual(redirectOrigins([`${stack.url}/`], stack.url), []);
        assert.deepEqual(
          redirectOrigins([`${stack.url}/`, REDIRECT_URI, OTHER_REDIRECT_URI], stack.url),
          ["http://app.example.test"],
        );
        assert.equal(
          pageHeaders()["content-security-policy"].split("; ").at(-1),
          "form-action 'self'",
        );
      },
    );

    await t.step("the hosted page escapes what it echoes (no HTML injection)", async () => {
      const evil = `"><script>alert(1)</script>`;
      const res = await fetch(`${stack.url}/oauth/authorize?${authorizeQuery({ state: evil })}`);
      const html = await res.text();
      assert.equal(res.status, 200);
      assert.ok(!html.includes("<script>"));
      assert.ok(html.includes("&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;"));
      const post = await postAuthorize(stack, {
        email: `${evil}@x.test`,
        password: "nope",
        state: evil,
      });
      assert.equal(post.status, 401);
      assert.ok(!post.text.includes("<script>"));
    });

    await t.step(
      "POST /oauth/authorize: 401 page on wrong credentials, 302 with code and state on success",
      async () => {
        const user = await signupConfirmed(stack);
        const wrong = await postAuthorize(stack, {
          email: user.email,
          password: "Wrong-Passw0rd!",
        });
        assert.equal(wrong.status, 401);
        assert.match(wrong.text, /Invalid email or password/);
        assert.match(wrong.text, /<form/);
        const res = await postAuthorize(stack, { email: user.email, password: user.password });
        assert.equal(res.status, 302);
        const location = new URL(res.location!);
        assert.equal(`${location.origin}${location.pathname}`, REDIRECT_URI);
        assert.equal(location.searchParams.get("state"), "st-123");
        assert.ok(location.searchParams.get("code"));

        const unconfirmedEmail = uniqueEmail("unconfirmed");
        await signup(stack, {
          email: unconfirmedEmail,
          password: GOOD_PASSWORD,
          name: "U",
          recaptcha_token: "ok",
        });
        const unconfirmed = await postAuthorize(stack, {
          email: unconfirmedEmail,
          password: GOOD_PASSWORD,
        });
        assert.equal(unconfirmed.status, 403);
        assert.equal(unconfirmed.location, null);
      },
    );

    await t.step(
      "callback exchanges a code once, checks redirect_uri and sets the svc_token cookie",
      async () => {
        const user = await signupConfirmed(stack);
        const noCode = await api(stack, "POST", "/api/auth/callback", {
          body: { redirect_uri: REDIRECT_URI },
        });
        assert.equal(noCode.status, 400);
        assert.equal(noCode.body.error, "code is required");
        const noRedirect = await api(stack, "POST", "/api/auth/callback", { body: { code: "x" } });
        assert.equal(noRedirect.status, 400);
        assert.equal(noRedirect.body.error, "redirect_uri is required");
        const unknown = await api(stack, "POST", "/api/auth/callback", {
          body: { code: "unknown", redirect_uri: REDIRECT_URI },
        });
        assert.equal(unknown.status, 400);

        const mismatched = await authorizationCode(stack, user.email, user.password);
        const mismatch = await api(stack, "POST", "/api/auth/callback", {
          body: {
            code: mismatched,
            redirect_uri: OTHER_REDIRECT_URI,
            code_verifier: PKCE.verifier,
          },
        });
        assert.equal(mismatch.status, 400);

        const code = await authorizationCode(stack, user.email, user.password);
        const ok = await api(stack, "POST", "/api/auth/callback", {
          body: { code, redirect_uri: REDIRECT_URI, code_verifier: PKCE.verifier },
        });
        assert.equal(ok.status, 200);
        assert.deepEqual(Object.keys(ok.body).sort(), [
          "access_token",
          "expires_in",
          "id_token",
          "token_type",
        ]);
        assert.equal(ok.body.expires_in, 3600);
        assert.equal(ok.body.token_type, "Bearer");
        assert.equal(
          ok.headers.getSetCookie().find((c: string) => c.startsWith("svc_token=")),
          `svc_token=${ok.body.id_token}; HttpOnly; SameSite=Strict; Path=/; Max-Age=3600`,
        );
        const me = await api(stack, "GET", "/api/auth/me", { token: ok.body.access_token });
        assert.equal(me.body.user_id, user.user_id);
        const used = await api(stack, "POST", "/api/auth/callback", {
          body: { code, redirect_uri: REDIRECT_URI, code_verifier: PKCE.verifier },
        });
        assert.equal(used.status, 400);
      },
    );

    await t.step(
      "PKCE: the callback needs the verifier that matches the S256 challenge",
      async () => {
        const user = await signupConfirmed(stack);
        const { verifier, challenge } = await pkcePair();
        const pkce = { code_challenge: challenge, code_challenge_method: "S256" };
        const page = await fetch(`${stack.url}/oauth/authorize?${authorizeQuery(pkce)}`);
        assert.ok((await page.text()).includes(`value="${challenge}"`));

        const noVerifier = await authorizationCode(stack, user.email, user.password, pkce);
        const res1 = await api(stack, "POST", "/api/auth/callback", {
          body: { code: noVerifier, redirect_uri: REDIRECT_URI },
        });
        assert.equal(res1.status, 400);
        const wrongVerifier = await authorizationCode(stack, user.email, user.password, pkce);
        const res2 = await api(stack, "POST", "/api/auth/callback", {
          body: {
            code: wrongVerifier,
            redirect_uri: REDIRECT_URI,
            code_verifier: (await pkcePair()).verifier,
          },
        });
        assert.equal(res2.status, 400);
        assert.equal(res2.body.error, "code_verifier does not match the code_challenge");
        // A refused exchange does not use the code up: the right one then gets it, once.
        const retried = await api(stack, "POST", "/api/auth/callback", {
          body: { code: wrongVerifier, redirect_uri: OTHER_REDIRECT_URI, code_verifier: verifier },
        });
        assert.equal(retried.status, 400);
        assert.equal(
          (await api(stack, "POST", "/api/auth/callback", {
            body: { code: wrongVerifier, redirect_uri: REDIRECT_URI, code_verifier: verifier },
          })).status,
          200,
        );
        assert.equal(
          (await api(stack, "POST", "/api/auth/callback", {
            body: { code: wrongVerifier, redirect_uri: REDIRECT_URI, code_verifier: verifier },
          })).status,
          400,
        );
        const good = await authorizationCode(stack, user.email, user.password, pkce);
        const res3 = await api(stack, "POST", "/api/auth/callback", {
          body: { code: good, redirect_uri: REDIRECT_URI, code_verifier: verifier },
        });
        assert.equal(res3.status, 200);
      },
    );

    await t.step(
      "Google sign-in end to end creates a confirmed account pending approval",
      async () => {
        const email = uniqueEmail("google");
        google.user = { sub: `sub-${email}`, email, email_verified: true, name: "Googler" };
        const { verifier, challenge } = await pkcePair();
        const query = authorizeQuery({ code_challenge: challenge, code_challenge_method: "S256" });
        const page = await (await fetch(`${stack.url}/oauth/authorize?${query}`)).text();
        const href = /href="([^"]*\/oauth\/google\/start[^"]*)"/.exec(page)![1].replaceAll(
          "&amp;",
          "&",
        );

        const start = await fetch(new URL(href, stack.url), { redirect: "manual" });
        assert.equal(start.status, 302);
        const toGoogle = new URL(start.headers.get("location")!);
        assert.equal(toGoogle.origin, google.issuer);
        assert.equal(toGoogle.searchParams.get("code_challenge_method"), "S256");

        const atGoogle = await fetch(toGoogle, { redirect: "manual" });
        assert.equal(atGoogle.status, 302);
        const back = new URL(atGoogle.headers.get("location")!);
        assert.equal(back.pathname, "/oauth/google/callback");
        const sent = google.authorizeRequests.at(-1)!;
        assert.equal(sent.redirect_uri, `${stack.env.PUBLIC_URL}/oauth/google/callback`);
        assert.ok(sent.nonce);

        const stateCookie = start.headers.get("set-cookie")!.split(";")[0];
        const done = await fetch(back, { redirect: "manual", headers: { cookie: stateCookie } });
        assert.equal(done.status, 302, await done.clone().text());
        const toClient = new URL(done.headers.get("location")!);
        assert.equal(`${toClient.origin}${toClient.pathname}`, REDIRECT_URI);
        assert.equal(toClient.searchParams.get("state"), "st-123");
        const tokenCall = google.tokenRequests.at(-1)!;
        assert.equal(tokenCall.client_secret, google.clientSecret);
        assert.ok(tokenCall.code_verifier);

        const exchanged = await api(stack, "POST", "/api/auth/callback", {
          body: {
            code: toClient.searchParams.get("code"),
            redirect_uri: REDIRECT_URI,
            code_verifier: verifier,
          },
        });
        assert.equal(exchanged.status, 200);
        const me = await api(stack, "GET", "/api/auth/me", { token: exchanged.body.access_token });
        assert.equal(me.body.email, email);
        assert.equal(me.body.name, "Googler");
        assert.equal(me.body.status, "pending");
        const profile = await internalJson(stack, "GET", `/internal/users/${me.body.user_id}`);
        assert.equal(profile.body.confirmed, true);
        assert.notEqual(profile.body.last_login, null);
        // A Google-only account has no password to sign in with.
        const pw = await api(stack, "POST", "/api/auth/login", {
          body: { email, password: GOOD_PASSWORD },
        });
        assert.equal(pw.status, 401);

        // The second Google sign-in finds the same account.
        const again = await fetch(new URL(href, stack.url), { redirect: "manual" });
        const g2 = await fetch(again.headers.get("location")!, { redirect: "manual" });
        const d2 = await fetch(g2.headers.get("location")!, {
          redirect: "manual",
          headers: { cookie: again.headers.get("set-cookie")!.split(";")[0] },
        });
        assert.equal(d2.status, 302);
        const code2 = new URL(d2.headers.get("location")!).searchParams.get("code");
        const ex2 = await api(stack, "POST", "/api/auth/callback", {
          body: { code: code2, redirect_uri: REDIRECT_URI, code_verifier: verifier },
        });
        const me2 = await api(stack, "GET", "/api/auth/me", { token: ex2.body.access_token });
        assert.equal(me2.body.user_id, me.body.user_id);
      },
    );

    await t.step("Google sign-in refuses an unverified email and an unknown state", async () => {
      google.user = {
        sub: "unverified-sub",
        email: uniqueEmail("unverified"),
        email_verified: false,
        name: "Nope",
      };
      const start = await fetch(`${stack.url}/oauth/google/start?${authorizeQuery()}`, {
        redirect: "manual",
      });
      const atGoogle = await fetch(start.headers.get("location")!, { redirect: "manual" });
      const done = await fetch(atGoogle.headers.get("location")!, {
        redirect: "manual",
        headers: { cookie: start.headers.get("set-cookie")!.split(";")[0] },
      });
      assert.equal(done.status, 400);
      assert.equal(done.headers.get("location"), null);
      assert.match(await done.text(), /verified email/);
      const forged = await fetch(`${stack.url}/oauth/google/callback?code=x&state=forged`, {
        redirect: "manual",
      });
      assert.equal(forged.status, 400);
      await forged.body?.cancel();
    });

    await t.step("confirming an email turns its pending invites into memberships", async () => {
      const owner = await createUser(stack);
      const ws = await api(stack, "POST", "/api/workspaces", {
        token: owner.access_token,
        body: { name: "Invites" },
      });
      assert.equal(ws.status, 201);
      const invitee = uniqueEmail("invitee");
      const invite = await api(stack, "POST", `/api/workspaces/${ws.body.workspace_id}/members`, {
        token: owner.access_token,
        body: { email: invitee, role: "editor" },
      });
      assert.equal(invite.status, 201);
      assert.equal(invite.body.status, "invited");
      const account = await signupConfirmed(stack, { email: invitee });
      const members = await api(stack, "GET", `/api/workspaces/${ws.body.workspace_id}/members`, {
        token: owner.access_token,
      });
      const member = members.body.members.find((m: { user_id: string }) =>
        m.user_id === account.user_id
      );
      assert.equal(member?.role, "editor");
    });

    await t.step(
      "GET /api/auth/me: 401 without a token, 401 `no sub`, 404 for no profile",
      async () => {
        assert.equal((await api(stack, "GET", "/api/auth/me")).status, 401);
        const noSub = await authDirect(stack, "/api/auth/me");
        assert.equal(noSub.status, 401);
        assert.deepEqual(noSub.body, { error: "no sub" });
        const ghost = await authDirect(stack, "/api/auth/me", {
          user_id: "01GHOSTGHOSTGHOSTGHOSTGHOST",
          email: "ghost@example.test",
          name: "Ghost",
          role: "member",
          approved: true,
        });
        assert.equal(ghost.status, 404);
        assert.ok(ghost.body.error);
      },
    );

    await t.step(
      "POST /api/ws/ticket mints a UUID v4 that a peer can redeem once within a minute",
      async () => {
        const user = await createUser(stack);
        const res = await api(stack, "POST", "/api/ws/ticket", { token: user.access_token });
        assert.equal(res.status, 200);
        assert.match(
          res.body.ticket,
          /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
        );
        const redeem = (ticket: string) =>
          internalJson(stack, "POST", `/internal/ws-tickets/${ticket}/redeem`);
        const checked = await redeem(res.body.ticket);
        assert.equal(checked.status, 200);
        assert.equal(checked.body.user_id, user.user_id);
        assert.equal(checked.body.role, "member");
        assert.equal(checked.body.approved, true);
        const seconds = (Date.parse(checked.body.expires_at) - Date.now()) / 1000;
        assert.ok(seconds > 50 && seconds <= 60, String(seconds));
        const again = await redeem(res.body.ticket);
        assert.equal(again.status, 404);
        const unknown = await redeem(crypto.randomUUID());
        assert.equal(unknown.status, 404);
        const noSub = await authDirect(stack, "/api/ws/ticket", undefined, "POST");
        assert.equal(noSub.status, 401);
        assert.deepEqual(noSub.body, { error: "no sub" });
        assert.equal((await api(stack, "POST", "/api/ws/ticket")).status, 401);
      },
    );

    await t.step("internal routes: profiles by id, email and lookup; role and stats", async () => {
      const user = await createUser(stack);
      const byId = await internalJson(stack, "GET", `/internal/users/${user.user_id}`);
      assert.equal(byId.status, 200);
      assert.equal(byId.body.email, user.email);
      assert.equal(byId.body.password_hash, undefined);
      assert.notEqual(byId.body.last_login, null);
      const byEmail = await internalJson(
        stack,
        "GET",
        `/internal/users/by-email/${encodeURIComponent(` ${user.email.toUpperCase()}`)}`,
      );
      assert.equal(byEmail.body.user_id, user.user_id);
      assert.equal((await internalJson(stack, "GET", "/internal/users/nobody")).status, 404);
      assert.equal(
        (await internalJson(stack, "GET", `/internal/users/by-email/nobody%40x.test`)).status,
        404,
      );
      const lookup = await internalJson(stack, "POST", "/internal/users/lookup", {
        user_ids: [user.user_id, "nobody"],
      });
      assert.deepEqual(lookup.body.users.map((u: { user_id: string }) => u.user_id), [
        user.user_id,
      ]);
      const all = await internalJson(stack, "GET", "/internal/users");
      assert.ok(all.body.users.some((u: { email: string }) => u.email === TEST_ADMIN.email));
      assert.equal(
        (await internalJson(stack, "POST", "/internal/users/nobody/approve")).status,
        404,
      );
      assert.equal(
        (await internalJson(stack, "PUT", `/internal/users/${user.user_id}/role`, { role: "boss" }))
          .status,
        400,
      );

      const promoted = await internalJson(stack, "PUT", `/internal/users/${user.user_id}/role`, {
        role: "admin",
      });
      assert.equal(promoted.body.role, "admin");
      const refreshed = await api(stack, "POST", "/api/auth/refresh", {
        body: { refresh_token: user.refresh_token },
      });
      const keys = createLocalJWKSet((await api(stack, "GET", "/.well-known/jwks.json")).body);
      const { payload } = await jwtVerify(refreshed.body.access_token, keys, {
        audience: CLIENT_ID,
      });
      assert.equal(payload["custom:role"], "admin");

      const stats = await internalJson(stack, "GET", "/internal/stats");
      assert.equal(stats.body.total_users, all.body.users.length);
      assert.equal(
        stats.body.pending_users,
        all.body.users.filter((u: { status: string }) => u.status === "pending").length,
      );
      assert.ok(stats.body.active_users_last_7_days >= 2);
      await signup(stack, {
        email: uniqueEmail("stats"),
        password: GOOD_PASSWORD,
        name: "S",
        recaptcha_token: "ok",
      });
      const after = await internalJson(stack, "GET", "/internal/stats");
      assert.equal(after.body.total_users, stats.body.total_users + 1);
      assert.equal(after.body.pending_users, stats.body.pending_users + 1);
    });

    await t.step("the ADMIN_EMAIL account is an approved admin", async () => {
      const admin = await loginAdmin(stack);
      const me = await api(stack, "GET", "/api/auth/me", { token: admin.access_token });
      assert.equal(me.body.role, "admin");
      assert.equal(me.body.status, "approved");
      assert.equal(
        (await api(stack, "GET", "/api/workspaces", { token: admin.access_token })).status,
        200,
      );
    });
  } finally {
    await stack.close();
    await recaptcha.close();
    await google.close();
  }
});
