import assert from "node:assert/strict";
import { api, e2e, startTestStack, type TestStack } from "./helpers/stack.ts";
import { approve, signupConfirmed } from "./helpers/users.ts";

function b64url(bytes: Uint8Array): string {
  return btoa(String.fromCharCode(...bytes)).replace(/\+/g, "-").replace(/\//g, "_")
    .replace(/=+$/, "");
}

/** Hosted login with PKCE, then the callback; answers the callback response. */
async function signInThroughCallback(stack: TestStack, email: string, password: string) {
  const verifier = b64url(crypto.getRandomValues(new Uint8Array(32)));
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier));
  const redirectUri = `${stack.env.PUBLIC_URL}/`;
  const form = await fetch(`${stack.url}/oauth/authorize`, {
    method: "POST",
    headers: {
      "content-type": "application/x-www-form-urlencoded",
      origin: stack.env.PUBLIC_URL,
    },
    body: new URLSearchParams({
      response_type: "code",
      client_id: "content-pipeline",
      redirect_uri: redirectUri,
      state: "s1",
      code_challenge: b64url(new Uint8Array(digest)),
      code_challenge_method: "S256",
      email,
      password,
    }),
    redirect: "manual",
  });
  await form.body?.cancel();
  assert.equal(form.status, 302);
  const code = new URL(form.headers.get("location")!).searchParams.get("code")!;
  return await api(stack, "POST", "/api/auth/callback", {
    body: { code, redirect_uri: redirectUri, code_verifier: verifier },
  });
}

/** The `cp_refresh` cookie's Set-Cookie line among the answer's cookies. */
function refreshSetCookie(headers: Headers): string | undefined {
  return headers.getSetCookie().find((line) => line.startsWith("cp_refresh="));
}

function cookieValue(line: string): string {
  return line.slice("cp_refresh=".length, line.indexOf(";"));
}

function withCookie(value: string) {
  return { cookie: `cp_refresh=${value}` };
}

Deno.test("web session: the refresh token lives in an HttpOnly cookie", e2e, async (t) => {
  const stack = await startTestStack();
  try {
    const user = await signupConfirmed(stack);
    await approve(stack, user.user_id);

    let cookie = "";
    await t.step("the callback sets cp_refresh and keeps it out of the JSON", async () => {
      const res = await signInThroughCallback(stack, user.email, user.password);
      assert.equal(res.status, 200);
      assert.equal(res.body.refresh_token, undefined);
      assert.ok(res.body.access_token);
      const line = refreshSetCookie(res.headers);
      assert.ok(line, "no cp_refresh cookie");
      assert.match(line, /; HttpOnly;/);
      assert.match(line, /SameSite=Strict/);
      assert.match(line, /Path=\/api\/auth;/);
      assert.match(line, /; Max-Age=2592000(;|$)/);
      assert.doesNotMatch(line, /Secure/, "STAGE=dev omits Secure");
      cookie = cookieValue(line);
      assert.ok(cookie.length > 20);
    });

    await t.step("refresh with only the cookie rotates it and answers new tokens", async () => {
      const res = await api(stack, "POST", "/api/auth/refresh", {
        body: {},
        headers: withCookie(cookie),
      });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.ok(res.body.access_token);
      assert.equal(res.body.refresh_token, undefined, "the new token stays in the cookie");
      const me = await api(stack, "GET", "/api/auth/me", { token: res.body.access_token });
      assert.equal(me.body.email, user.email);
      const line = refreshSetCookie(res.headers)!;
      const next = cookieValue(line);
      assert.ok(next && next !== cookie);

      const reused = await api(stack, "POST", "/api/auth/refresh", {
        body: {},
        headers: withCookie(cookie),
      });
      assert.equal(reused.status, 401);
      assert.equal(reused.body.error, "Invalid or expired refresh token");
      assert.match(refreshSetCookie(reused.headers) ?? "", /^cp_refresh=;.*Max-Age=0/);
    });

    await t.step("a reused cookie revoked the family; a new sign-in works again", async () => {
      const res = await signInThroughCallback(stack, user.email, user.password);
      cookie = cookieValue(refreshSetCookie(res.headers)!);
      const ok = await api(stack, "POST", "/api/auth/refresh", {
        body: {},
        headers: withCookie(cookie),
      });
      assert.equal(ok.status, 200);
      cookie = cookieValue(refreshSetCookie(ok.headers)!);
    });

    await t.step("logout with the cookie revokes it on the server and clears it", async () => {
      const res = await api(stack, "POST", "/api/auth/logout", {
        body: {},
        headers: withCookie(cookie),
      });
      assert.equal(res.status, 204);
      assert.match(refreshSetCookie(res.headers) ?? "", /^cp_refresh=;.*Max-Age=0/);
      const after = await api(stack, "POST", "/api/auth/refresh", {
        body: {},
        headers: withCookie(cookie),
      });
      assert.equal(after.status, 401);
    });

    await t.step("without a body token or a cookie refresh and logout answer 400", async () => {
      for (const path of ["/api/auth/refresh", "/api/auth/logout"]) {
        const res = await api(stack, "POST", path, { body: {} });
        assert.equal(res.status, 400, path);
        assert.equal(res.body.error, "refresh_token is required");
      }
    });

    await t.step("the cookie path still needs a JSON body", async () => {
      const res = await fetch(`${stack.url}/api/auth/refresh`, {
        method: "POST",
        headers: {
          ...withCookie("x".repeat(40)),
          "content-type": "application/x-www-form-urlencoded",
        },
        body: "a=b",
      });
      await res.body?.cancel();
      assert.ok(res.status === 400 || res.status === 415, String(res.status));
    });
  } finally {
    await stack.close();
  }
});
