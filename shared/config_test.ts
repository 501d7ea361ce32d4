import assert from "node:assert/strict";
import { ConfigError, parseBaseConfig } from "./config.ts";

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
