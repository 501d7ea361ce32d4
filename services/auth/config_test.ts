import assert from "node:assert/strict";
import { ConfigError, parseBaseConfig } from "../../shared/config.ts";
import { parseAuthConfig } from "./config.ts";

const base = parseBaseConfig({ PUBLIC_URL: "http://localhost:9000" });

Deno.test("auth config defaults: client id, redirect URI from PUBLIC_URL, Google off", () => {
  const config = parseAuthConfig({}, base);
  assert.equal(config.clientId, "content-pipeline");
  assert.deepEqual(config.redirectUris, ["http://localhost:9000/"]);
  assert.equal(config.google, null);
  assert.equal(config.recaptchaSecret, null);
  assert.equal(config.recaptchaVerifyUrl, "https://www.google.com/recaptcha/api/siteverify");
  assert.equal(config.secureCookie, true);
});

Deno.test("a malformed auth variable throws a ConfigError naming it", () => {
  const cases: [Record<string, string>, string][] = [
    [{ OAUTH_REDIRECT_URIS: "http://ok/, not a url" }, "OAUTH_REDIRECT_URIS"],
    [{ RECAPTCHA_VERIFY_URL: "ftp://x" }, "RECAPTCHA_VERIFY_URL"],
    [{ GOOGLE_CLIENT_ID: "id" }, "GOOGLE_CLIENT_SECRET"],
    [{ GOOGLE_CLIENT_ID: "id", GOOGLE_CLIENT_SECRET: "s", GOOGLE_ISSUER: "nope" }, "GOOGLE_ISSUER"],
    [{ ADMIN_EMAIL: "not-an-email", ADMIN_PASSWORD: "x" }, "ADMIN_EMAIL"],
    [{ ADMIN_EMAIL: "a@b.test" }, "ADMIN_PASSWORD"],
    [{ JWT_PRIVATE_JWK: "{}" }, "JWT_PRIVATE_JWK"],
  ];
  for (const [env, name] of cases) {
    assert.throws(() => parseAuthConfig(env, base), (err: unknown) => {
      assert.ok(err instanceof ConfigError, name);
      assert.match(err.message, new RegExp(name));
      return true;
    });
  }
});
