import assert from "node:assert/strict";
import { ConfigError, parseBaseConfig, SERVICE_NAMES } from "./config.ts";

Deno.test("base config derives PUBLIC_URL and OUTBOX_FILE from PORT and DATA_DIR", () => {
  const c = parseBaseConfig({ PORT: "8123", DATA_DIR: "/tmp/x" });
  assert.equal(c.port, 8123);
  assert.equal(c.publicUrl, "http://localhost:8123");
  assert.equal(c.outboxFile, "/tmp/x/outbox.jsonl");
  assert.equal(c.stage, "prod");
  assert.ok(c.internalSecret.length >= 32);
});

Deno.test("a malformed variable stops start-up with a message naming it", () => {
  assert.throws(
    () => parseBaseConfig({ PORT: "eighty" }),
    (e: unknown) =>
      e instanceof ConfigError && e.message.startsWith("Invalid environment variable PORT"),
  );
  assert.throws(
    () => parseBaseConfig({ PUBLIC_URL: "not a url" }),
    (e: unknown) => e instanceof ConfigError && e.message.includes("PUBLIC_URL"),
  );
  assert.throws(
    () => parseBaseConfig({ AUTH_URL: "ftp://x" }),
    (e: unknown) => e instanceof ConfigError && e.message.includes("AUTH_URL"),
  );
});

Deno.test("a service running alone needs the shared INTERNAL_SECRET", () => {
  assert.throws(
    () => parseBaseConfig({}, { requireSecret: true }),
    (e: unknown) => e instanceof ConfigError && e.message.includes("INTERNAL_SECRET"),
  );
  const c = parseBaseConfig({ INTERNAL_SECRET: "0123456789abcdef", AUTH_URL: "http://a:1/" }, {
    requireSecret: true,
  });
  assert.equal(c.internalSecret, "0123456789abcdef");
  assert.deepEqual(c.serviceUrls, { auth: "http://a:1" });
});

Deno.test("HOST, LOG_LEVEL and OAUTH_CLIENT_ID are read once, into the base config", () => {
  const defaults = parseBaseConfig({ OAUTH_CLIENT_ID: "", LOG_LEVEL: "" });
  assert.equal(defaults.host, "0.0.0.0");
  assert.equal(defaults.logLevel, "info");
  assert.equal(defaults.oauthClientId, "content-pipeline");
  assert.equal(defaults.internalSecretGiven, false);
  const set = parseBaseConfig({
    HOST: "127.0.0.1",
    LOG_LEVEL: "warn",
    OAUTH_CLIENT_ID: "my-app",
    INTERNAL_SECRET: "0123456789abcdef",
  });
  assert.deepEqual([set.host, set.logLevel, set.oauthClientId], ["127.0.0.1", "warn", "my-app"]);
  assert.equal(set.internalSecretGiven, true);
  for (const [name, value] of [["LOG_LEVEL", "loud"], ["OAUTH_CLIENT_ID", "x".repeat(201)]]) {
    assert.throws(
      () => parseBaseConfig({ [name]: value }),
      (e: unknown) =>
        e instanceof ConfigError && e.message.startsWith(`Invalid environment variable ${name}`),
    );
  }
});

const root = new URL("../", import.meta.url);

/** Every product source file (not tests, benches or the browser app), relative to the root. */
async function productFiles(dir = ""): Promise<string[]> {
  const out: string[] = [];
  for await (const entry of Deno.readDir(new URL(dir || ".", root))) {
    const path = dir + entry.name;
    if (entry.isDirectory) {
      if (
        ["node_modules", "tests", "bench", "deploy", "src", "dist", "data", "test-results"]
          .includes(
            entry.name,
          ) || entry.name.startsWith(".")
      ) continue;
      out.push(...await productFiles(path + "/"));
    } else if (path.endsWith(".ts") && !path.endsWith("_test.ts")) {
      out.push(path);
    }
  }
  return out;
}

const isConfigFile = (path: string) => path.endsWith("config.ts");

Deno.test("only config.ts files read environment variables; entry points hand them the whole env", async () => {
  const offenders: string[] = [];
  for (const path of await productFiles()) {
    if (isConfigFile(path)) continue;
    const text = await Deno.readTextFile(new URL(path, root));
    for (
      const match of text.matchAll(/Deno\.env\.(?!toObject\(\))\w+|\benv\.[A-Z][A-Z0-9_]*|\benv\[/g)
    ) {
      offenders.push(`${path}: ${match[0]}`);
    }
  }
  assert.deepEqual(offenders, []);
});

Deno.test("every variable a config reads is in the README's configuration table", async () => {
  const readme = await Deno.readTextFile(new URL("README.md", root));
  const table = readme.slice(
    readme.indexOf("### Configuration"),
    readme.indexOf("### Distributed mode"),
  );
  const names = new Set<string>();
  for (const path of (await productFiles()).filter(isConfigFile)) {
    const text = await Deno.readTextFile(new URL(path, root));
    for (const [, name] of text.matchAll(/^\s+([A-Z][A-Z0-9_]+):/gm)) names.add(name);
    for (const [, name] of text.matchAll(/\benv\.([A-Z][A-Z0-9_]*)/g)) names.add(name);
  }
  assert.ok(names.has("PORT") && names.has("ASSETS_URL") && names.has("LINKEDIN_VERSION"));
  // The peers' addresses are one row, `<SERVICE>_URL`.
  const serviceUrls = new Set(SERVICE_NAMES.map((name) => `${name.toUpperCase()}_URL`));
  const missing = [...names].filter((name) =>
    !table.includes(`\`${name}\``) && !(serviceUrls.has(name) && table.includes("`<SERVICE>_URL`"))
  );
  assert.deepEqual(missing, []);
});
