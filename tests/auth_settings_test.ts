import assert from "node:assert/strict";
import {
  createLocalJWKSet,
  decodeProtectedHeader,
  exportJWK,
  generateKeyPair,
  jwtVerify,
} from "jose";
import { startAllInOne } from "../infra/all_in_one.ts";
import { api, e2e, freePort, startTestStack, TEST_INTERNAL_SECRET } from "./helpers/stack.ts";
import { GOOD_PASSWORD, login, signupConfirmed, uniqueEmail } from "./helpers/users.ts";
import { waitFor } from "./helpers/wait.ts";

Deno.test(
  "without RECAPTCHA_SECRET, STAGE=prod and JWT_PRIVATE_JWK: unscored tokens, Secure cookie, the given key",
  e2e,
  async (t) => {
    const { privateKey } = await generateKeyPair("Ed25519", { extractable: true });
    const jwk = { ...await exportJWK(privateKey), kid: "env-key-1" };
    const stack = await startTestStack({ STAGE: "prod", JWT_PRIVATE_JWK: JSON.stringify(jwk) });
    try {
      await t.step("the reCAPTCHA token must be present but is not scored", async () => {
        const body = { email: uniqueEmail("nocaptcha"), password: GOOD_PASSWORD, name: "N" };
        const missing = await api(stack, "POST", "/api/auth/signup", { body });
        assert.equal(missing.status, 400);
        assert.equal(missing.body.error, "recaptcha_token is required");
        const empty = await api(stack, "POST", "/api/auth/signup", {
          body: { ...body, recaptcha_token: "" },
        });
        assert.equal(empty.status, 400);
        const unscored = await api(stack, "POST", "/api/auth/signup", {
          body: { ...body, recaptcha_token: "invalid" },
        });
        assert.equal(unscored.status, 200);
      });

      await t.step(
        "tokens are signed with JWT_PRIVATE_JWK and the JWKS serves its kid",
        async () => {
          const user = await signupConfirmed(stack);
          const tokens = await login(stack, user.email, user.password);
          assert.equal(decodeProtectedHeader(tokens.access_token).kid, "env-key-1");
          const jwks = (await api(stack, "GET", "/.well-known/jwks.json")).body;
          assert.deepEqual(jwks.keys.map((k: { kid: string }) => k.kid), ["env-key-1"]);
          assert.equal(jwks.keys[0].x, jwk.x);
          await jwtVerify(tokens.id_token, createLocalJWKSet(jwks), { algorithms: ["EdDSA"] });
          const me = await api(stack, "GET", "/api/auth/me", { token: tokens.access_token });
          assert.equal(me.status, 200);
        },
      );

      await t.step("with STAGE other than dev the svc_token cookie is Secure", async () => {
        const user = await signupConfirmed(stack);
        const redirectUri = `${stack.env.PUBLIC_URL}/`;
        // PKCE is required; the challenge is base64url(sha256(verifier)).
        const verifier = "v".repeat(43);
        const challenge = btoa(String.fromCharCode(
          ...new Uint8Array(
            await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier)),
          ),
        )).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
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
            code_challenge: challenge,
            code_challenge_method: "S256",
            email: user.email,
            password: user.password,
          }),
          redirect: "manual",
        });
        await form.body?.cancel();
        assert.equal(form.status, 302);
        const location = new URL(form.headers.get("location")!);
        assert.equal(location.searchParams.get("state"), null);
        const res = await api(stack, "POST", "/api/auth/callback", {
          body: {
            code: location.searchParams.get("code"),
            redirect_uri: redirectUri,
            code_verifier: verifier,
          },
        });
        assert.equal(res.status, 200);
        assert.equal(
          res.headers.getSetCookie().find((c: string) => c.startsWith("svc_token=")),
          `svc_token=${res.body.id_token}; HttpOnly; Secure; SameSite=Strict; Path=/; Max-Age=3600`,
        );
      });
    } finally {
      await stack.close();
    }
  },
);

Deno.test(
  "a restart keeps the signing key and accounts, and applies a changed ADMIN_PASSWORD",
  e2e,
  async () => {
    const dataDir = await Deno.makeTempDir({ prefix: "cps-auth-restart-" });
    const env = async (password: string) => {
      const port = await freePort();
      return {
        PORT: String(port),
        HOST: "127.0.0.1",
        DATA_DIR: dataDir,
        PUBLIC_URL: "http://127.0.0.1:1",
        STAGE: "dev",
        INTERNAL_SECRET: TEST_INTERNAL_SECRET,
        ADMIN_EMAIL: " Boss@Example.test ",
        ADMIN_PASSWORD: password,
        ADMIN_NAME: "Boss",
      };
    };
    const ready = async (url: string) => {
      await waitFor(async () => {
        const res = await fetch(`${url}/healthz`);
        await res.body?.cancel();
        return res.ok;
      }, "the stack to become ready");
    };
    try {
      const first = await startAllInOne(await env("First-Passw0rd!"), { quiet: true });
      let kid: string;
      try {
        await ready(first.url);
        const tokens = await login(first as never, "boss@example.test", "First-Passw0rd!");
        kid = decodeProtectedHeader(tokens.access_token).kid!;
      } finally {
        await first.close();
      }
      const second = await startAllInOne(await env("Second-Passw0rd!"), { quiet: true });
      try {
        await ready(second.url);
        const old = await api(second, "POST", "/api/auth/login", {
          body: { email: "boss@example.test", password: "First-Passw0rd!" },
        });
        assert.equal(old.status, 401);
        const tokens = await login(second as never, "boss@example.test", "Second-Passw0rd!");
        assert.equal(decodeProtectedHeader(tokens.access_token).kid, kid);
        const jwks = (await api(second, "GET", "/.well-known/jwks.json")).body;
        assert.deepEqual(jwks.keys.map((k: { kid: string }) => k.kid), [kid]);
        const me = await api(second, "GET", "/api/auth/me", { token: tokens.access_token });
        assert.equal(me.body.role, "admin");
        assert.equal(me.body.name, "Boss");
        const users = await api(second, "GET", "/api/admin/users", { token: tokens.access_token });
        if (users.status === 200) assert.equal(users.body.users.length, 1);
      } finally {
        await second.close();
      }
    } finally {
      await Deno.remove(dataDir, { recursive: true }).catch(() => {});
    }
  },
);

Deno.test(
  "signup answers 502 when the reCAPTCHA verification service cannot be reached, as documented",
  e2e,
  async () => {
    // A port nothing listens on: the siteverify call fails to connect.
    const verifyUrl = `http://127.0.0.1:${await freePort()}/recaptcha/api/siteverify`;
    const stack = await startTestStack({
      RECAPTCHA_SECRET: "secret",
      RECAPTCHA_VERIFY_URL: verifyUrl,
    });
    try {
      const res = await api(stack, "POST", "/api/auth/signup", {
        body: {
          email: uniqueEmail("captcha-down"),
          password: GOOD_PASSWORD,
          name: "Down",
          recaptcha_token: "token",
        },
      });
      assert.equal(res.status, 502);
      assert.deepEqual(res.body, { error: "Cannot verify the reCAPTCHA token" });
      const doc = (await api(stack, "GET", "/api/openapi.json")).body;
      assert.ok(
        "502" in doc.paths["/api/auth/signup"].post.responses,
        "the signup operation documents its 502",
      );
    } finally {
      await stack.close();
    }
  },
);
