/**
 * Issue 11, items 2, 3, 5 and 6: the login throttle, hashing off the event loop, PKCE and
 * login CSRF, and what a bearer token and a refresh family may be. Each test drives the real
 * stack over HTTP. The stack trusts X-Forwarded-For from loopback (TRUSTED_PROXIES), which is
 * how the tests play clients at different addresses.
 */
import assert from "node:assert/strict";
import { api, e2e, startTestStack, type TestStack } from "./helpers/stack.ts";
import { GOOD_PASSWORD, signupConfirmed, uniqueEmail } from "./helpers/users.ts";
import { startFakeOidcProvider } from "./fakes/oidc_provider.ts";
import { peerAddress } from "../shared/http/client_address.ts";

const REDIRECT_URI = "http://app.example.test/callback";
const CLIENT_ID = "content-pipeline";
const DAY_MS = 24 * 60 * 60 * 1000;

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

const PKCE = await pkcePair();

function authorizeParams(extra: Record<string, string> = {}): Record<string, string> {
  return {
    response_type: "code",
    client_id: CLIENT_ID,
    redirect_uri: REDIRECT_URI,
    state: "st-1",
    code_challenge: PKCE.challenge,
    code_challenge_method: "S256",
    ...extra,
  };
}

/** A login from the client at `address` (through the trusted loopback proxy). */
function loginFrom(stack: TestStack, address: string, email: string, password: string) {
  return api(stack, "POST", "/api/auth/login", {
    body: { email, password },
    headers: { "x-forwarded-for": address },
  });
}

/** Posts the hosted login form; `headers` carry Origin, Cookie, X-Forwarded-For as needed. */
async function postForm(
  stack: TestStack,
  fields: Record<string, string>,
  headers: Record<string, string> = {},
) {
  const res = await fetch(`${stack.url}/oauth/authorize`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
    body: new URLSearchParams(fields),
    redirect: "manual",
  });
  return { status: res.status, location: res.headers.get("location"), text: await res.text() };
}

const cookieOf = (res: Response) => (res.headers.get("set-cookie") ?? "").split(";")[0];

Deno.test(
  "login tries are counted before verifying, per account and address",
  e2e,
  async (t) => {
    const stack = await startTestStack({
      TRUSTED_PROXIES: "127.0.0.1",
      OAUTH_REDIRECT_URIS: REDIRECT_URI,
    });
    try {
      const user = await signupConfirmed(stack);
      const attacker = "198.51.100.7";

      await t.step("a burst of 40 concurrent wrong passwords gets 10 verifications", async () => {
        const answers = await Promise.all(
          Array.from(
            { length: 40 },
            (_, i) => loginFrom(stack, attacker, user.email, `Wrong-${i}-Passw0rd!`),
          ),
        );
        const statuses = answers.map((a) => a.status);
        assert.equal(statuses.filter((s) => s === 401).length, 10, String(statuses));
        assert.equal(statuses.filter((s) => s === 429).length, 30, String(statuses));
        const throttled = answers.find((a) => a.status === 429)!;
        assert.equal(typeof throttled.body.error, "string");
        assert.equal(
          answers.find((a) => a.status === 401)!.body.error,
          "Invalid email or password",
        );
      });

      await t.step("the attacker's address stays throttled, on the hosted form too", async () => {
        const again = await loginFrom(stack, attacker, user.email, GOOD_PASSWORD);
        assert.equal(again.status, 429);
        const form = await postForm(
          stack,
          authorizeParams({ email: user.email, password: GOOD_PASSWORD }),
          { origin: stack.env.PUBLIC_URL, "x-forwarded-for": attacker },
        );
        assert.equal(form.status, 429);
        assert.equal(form.location, null);
      });

      await t.step("the owner signing in from another address is not locked out", async () => {
        const owner = await loginFrom(stack, "203.0.113.9", user.email, GOOD_PASSWORD);
        assert.equal(owner.status, 200, JSON.stringify(owner.body));
        const form = await postForm(
          stack,
          authorizeParams({ email: user.email, password: GOOD_PASSWORD }),
          { origin: stack.env.PUBLIC_URL, "x-forwarded-for": "203.0.113.10" },
        );
        assert.equal(form.status, 302, form.text);
      });

      await t.step("X-Forwarded-For is believed only from a trusted proxy", () => {
        const env = { remoteAddr: { hostname: "192.0.2.1" } };
        const headers = new Headers({ "x-forwarded-for": "10.1.1.1" });
        assert.equal(peerAddress(env, { headers, trustedProxies: [] }), "192.0.2.1");
        assert.equal(peerAddress(env, { headers, trustedProxies: ["192.0.2.1"] }), "10.1.1.1");
        const chain = new Headers({ "x-forwarded-for": "10.1.1.1, 10.2.2.2, 192.0.2.5" });
        assert.equal(
          peerAddress(env, { headers: chain, trustedProxies: ["192.0.2.1", "192.0.2.5"] }),
          "10.2.2.2",
        );
      });
    } finally {
      await stack.close();
    }
  },
);

Deno.test(
  "/healthz stays fast while 20 wrong logins are being hashed",
  e2e,
  async () => {
    const stack = await startTestStack({ TRUSTED_PROXIES: "127.0.0.1" });
    try {
      // Unknown emails from separate addresses: none is throttled, each costs one argon2id.
      let pending = 20;
      const logins = Array.from(
        { length: 20 },
        (_, i) =>
          loginFrom(stack, `198.51.100.${i + 1}`, `nobody-${i}@example.test`, "Wrong-Passw0rd!")
            .then((r) => {
              pending--;
              return r.status;
            }),
      );
      // Let the logins reach their hashing before probing.
      await new Promise((r) => setTimeout(r, 100));
      const samples: number[] = [];
      while (pending > 0 && samples.length < 20) {
        const started = performance.now();
        const res = await fetch(`${stack.url}/healthz`);
        await res.body?.cancel();
        samples.push(performance.now() - started);
        await new Promise((r) => setTimeout(r, 20));
      }
      const statuses = await Promise.all(logins);
      assert.deepEqual(new Set(statuses), new Set([401]));
      // With hashing on the event loop a probe waits behind several ~100 ms hashes (seconds
      // in all); off it, the probes keep answering while the logins are still in flight.
      const worst = Math.max(...samples);
      assert.ok(
        worst < 250,
        `/healthz took up to ${worst.toFixed(1)} ms (${samples.map(Math.round)})`,
      );
      assert.ok(samples.length >= 5, `only ${samples.length} probes answered while logins ran`);
    } finally {
      await stack.close();
    }
  },
);

Deno.test(
  "PKCE S256 is required, the login form refuses cross-site posts, Google state is bound to the browser",
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
      const user = await signupConfirmed(stack);
      const origin = { origin: stack.env.PUBLIC_URL };

      await t.step("/oauth/authorize without an S256 challenge answers 400", async () => {
        const noChallenge = new URLSearchParams(authorizeParams());
        noChallenge.delete("code_challenge");
        noChallenge.delete("code_challenge_method");
        const get = await fetch(`${stack.url}/oauth/authorize?${noChallenge}`);
        assert.equal(get.status, 400);
        assert.match(await get.text(), /code_challenge/);
        const plain = await fetch(
          `${stack.url}/oauth/authorize?${new URLSearchParams(authorizeParams({
            code_challenge_method: "plain",
          }))}`,
        );
        assert.equal(plain.status, 400);
        await plain.body?.cancel();
        const post = await postForm(stack, {
          ...Object.fromEntries(noChallenge),
          email: user.email,
          password: user.password,
        }, origin);
        assert.equal(post.status, 400);
        assert.equal(post.location, null);
        const start = await fetch(`${stack.url}/oauth/google/start?${noChallenge}`, {
          redirect: "manual",
        });
        assert.equal(start.status, 400);
        await start.body?.cancel();
      });

      await t.step(
        "a code is exchanged only with its own verifier, never without one",
        async () => {
          const form = await postForm(
            stack,
            authorizeParams({ email: user.email, password: user.password }),
            origin,
          );
          assert.equal(form.status, 302, form.text);
          const code = new URL(form.location!).searchParams.get("code");
          const without = await api(stack, "POST", "/api/auth/callback", {
            body: { code, redirect_uri: REDIRECT_URI },
          });
          assert.equal(without.status, 400);
          assert.deepEqual(without.body, { error: "code_verifier is required" });
          // Any other verifier is refused too (the code was issued for PKCE.challenge).
          const again = await postForm(
            stack,
            authorizeParams({ email: user.email, password: user.password }),
            origin,
          );
          assert.equal(again.status, 302, again.text);
          const wrong = await api(stack, "POST", "/api/auth/callback", {
            body: {
              code: new URL(again.location!).searchParams.get("code"),
              redirect_uri: REDIRECT_URI,
              code_verifier: (await pkcePair()).verifier,
            },
          });
          assert.equal(wrong.status, 400);
          assert.deepEqual(wrong.body, {
            error: "code_verifier does not match the code_challenge",
          });
          const third = await postForm(
            stack,
            authorizeParams({ email: user.email, password: user.password }),
            origin,
          );
          const right = await api(stack, "POST", "/api/auth/callback", {
            body: {
              code: new URL(third.location!).searchParams.get("code"),
              redirect_uri: REDIRECT_URI,
              code_verifier: PKCE.verifier,
            },
          });
          assert.equal(right.status, 200, JSON.stringify(right.body));
        },
      );

      await t.step("a form post from another origin is refused with 403", async () => {
        const res = await postForm(
          stack,
          authorizeParams({ email: user.email, password: user.password }),
          { origin: "http://evil.example.test" },
        );
        assert.equal(res.status, 403);
        assert.equal(res.location, null);
        assert.match(res.text, /Cross-site/);
      });

      await t.step("a form token, or Origin: null, must match the page's cookie", async () => {
        const fields = authorizeParams({ email: user.email, password: user.password });
        // A script posting the documented fields (no Origin, no form token) signs in: only a
        // browser can be made to post cross-site, and a browser's POST carries Origin.
        const script = await postForm(stack, fields);
        assert.equal(script.status, 302, script.text);
        const nullOrigin = await postForm(stack, fields, { origin: "null" });
        assert.equal(nullOrigin.status, 403);
        assert.equal(nullOrigin.location, null);

        const page = await fetch(
          `${stack.url}/oauth/authorize?${new URLSearchParams(authorizeParams())}`,
        );
        const html = await page.text();
        const cookie = cookieOf(page);
        assert.match(page.headers.get("set-cookie") ?? "", /HttpOnly/);
        const token = /name="csrf_token" value="([^"]+)"/.exec(html)?.[1];
        assert.ok(token, "the page carries a csrf_token field");
        const forged = await postForm(stack, { ...fields, csrf_token: "x".repeat(43) }, {
          cookie,
        });
        assert.equal(forged.status, 403);
        const noCookie = await postForm(stack, { ...fields, csrf_token: token });
        assert.equal(noCookie.status, 403);
        const ok = await postForm(stack, { ...fields, csrf_token: token }, { cookie });
        assert.equal(ok.status, 302, ok.text);
      });

      await t.step(
        "the Google callback needs the state cookie of the browser that began",
        async () => {
          const email = uniqueEmail("google");
          google.user = { sub: `sub-${email}`, email, email_verified: true, name: "G" };
          const begin = async () => {
            const start = await fetch(
              `${stack.url}/oauth/google/start?${new URLSearchParams(authorizeParams())}`,
              { redirect: "manual" },
            );
            assert.equal(start.status, 302);
            assert.match(start.headers.get("set-cookie") ?? "", /HttpOnly.*SameSite=Lax/);
            const atGoogle = await fetch(start.headers.get("location")!, { redirect: "manual" });
            return { cookie: cookieOf(start), back: atGoogle.headers.get("location")! };
          };
          // The attacker's round trip, finished in the victim's browser (no or another cookie).
          const attackers = await begin();
          const victims = await begin();
          const noCookie = await fetch(attackers.back, { redirect: "manual" });
          assert.equal(noCookie.status, 400);
          assert.equal(noCookie.headers.get("location"), null);
          await noCookie.body?.cancel();
          const otherCookie = await fetch(attackers.back, {
            redirect: "manual",
            headers: { cookie: victims.cookie },
          });
          assert.equal(otherCookie.status, 400);
          await otherCookie.body?.cancel();
          const own = await fetch(victims.back, {
            redirect: "manual",
            headers: { cookie: victims.cookie },
          });
          assert.equal(own.status, 302, await own.clone().text());
          await own.body?.cancel();
          const code = new URL(own.headers.get("location")!).searchParams.get("code");
          const tokens = await api(stack, "POST", "/api/auth/callback", {
            body: { code, redirect_uri: REDIRECT_URI, code_verifier: PKCE.verifier },
          });
          assert.equal(tokens.status, 200);
        },
      );
    } finally {
      await stack.close();
      await google.close();
    }
  },
);

Deno.test(
  "id tokens are not bearer tokens; a refresh family ends 30 days after sign-in",
  e2e,
  async (t) => {
    const stack = await startTestStack();
    try {
      const user = await signupConfirmed(stack);
      const login = await api(stack, "POST", "/api/auth/login", {
        body: { email: user.email, password: user.password },
      });
      assert.equal(login.status, 200);

      await t.step("the id token is refused as a bearer token (401)", async () => {
        const withId = await api(stack, "GET", "/api/auth/me", { token: login.body.id_token });
        assert.equal(withId.status, 401);
        const ticket = await api(stack, "POST", "/api/ws/ticket", { token: login.body.id_token });
        assert.equal(ticket.status, 401);
        const withAccess = await api(stack, "GET", "/api/auth/me", {
          token: login.body.access_token,
        });
        assert.equal(withAccess.status, 200);
      });

      await t.step("rotation does not extend a session past 30 days", async () => {
        const realNow = Date.now;
        const start = realNow();
        const at = (days: number) => () => start + days * DAY_MS + (realNow() - start);
        try {
          Date.now = at(20);
          const day20 = await api(stack, "POST", "/api/auth/refresh", {
            body: { refresh_token: login.body.refresh_token },
          });
          assert.equal(day20.status, 200, JSON.stringify(day20.body));
          Date.now = at(29);
          const day29 = await api(stack, "POST", "/api/auth/refresh", {
            body: { refresh_token: day20.body.refresh_token },
          });
          assert.equal(day29.status, 200, JSON.stringify(day29.body));
          Date.now = at(31);
          const day31 = await api(stack, "POST", "/api/auth/refresh", {
            body: { refresh_token: day29.body.refresh_token },
          });
          assert.equal(day31.status, 401);
        } finally {
          Date.now = realNow;
        }
        // A new sign-in starts a new 30-day session.
        const again = await api(stack, "POST", "/api/auth/login", {
          body: { email: user.email, password: user.password },
        });
        const refreshed = await api(stack, "POST", "/api/auth/refresh", {
          body: { refresh_token: again.body.refresh_token },
        });
        assert.equal(refreshed.status, 200);
      });
    } finally {
      await stack.close();
    }
  },
);
