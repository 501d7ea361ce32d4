import assert from "node:assert/strict";
import { ConfigError, parseBaseConfig } from "../../shared/config.ts";
import { DEFAULT_LINKEDIN_VERSION, parsePostsConfig } from "./config.ts";
import { TokenCipher } from "./token_crypto.ts";

const base = parseBaseConfig({ DATA_DIR: "/tmp/x" });

Deno.test("LinkedIn settings: defaults, and a malformed value names its variable", () => {
  const c = parsePostsConfig({}, base).linkedin;
  assert.equal(c.clientId, null);
  assert.equal(c.authUrl, "https://www.linkedin.com/oauth/v2");
  assert.equal(c.apiUrl, "https://api.linkedin.com");
  assert.equal(c.version, DEFAULT_LINKEDIN_VERSION);
  for (
    const [name, value] of [
      ["LINKEDIN_VERSION", "2026-10"],
      ["LINKEDIN_VERSION", "202613"],
      ["LINKEDIN_TOKEN_KEY", btoa("too short")],
      ["LINKEDIN_API_URL", "ftp://x"],
      ["LINKEDIN_TIMEOUT_MS", "soon"],
    ]
  ) {
    assert.throws(
      () => parsePostsConfig({ [name]: value }, base),
      (err: unknown) => err instanceof ConfigError && err.message.includes(name),
      `${name}=${value}`,
    );
  }
});

Deno.test("tokens are sealed with a key file made 0600 outside the KV, bound to the workspace", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const cipher = await TokenCipher.open({ keyBase64: null, dataDir: dir });
    const info = await Deno.stat(`${dir}/linkedin_token.key`);
    assert.equal(info.mode! & 0o777, 0o600);
    const sealed = await cipher.encrypt("secret-token", "ws1");
    assert.ok(!sealed.includes("secret-token"));
    const again = await TokenCipher.open({ keyBase64: null, dataDir: dir });
    assert.equal(await again.decrypt(sealed, "ws1"), "secret-token");
    await assert.rejects(() => again.decrypt(sealed, "ws2"));
    const other = await TokenCipher.open({
      keyBase64: btoa(String.fromCharCode(...new Uint8Array(32).fill(7))),
      dataDir: dir,
    });
    await assert.rejects(() => other.decrypt(sealed, "ws1"));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
