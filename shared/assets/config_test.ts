import assert from "node:assert/strict";
import { ConfigError, parseBaseConfig } from "../config.ts";
import { assetsDownloadOrigin, parseAssetsUrl } from "./config.ts";
import { keyProblem } from "./store.ts";

const base = parseBaseConfig({ DATA_DIR: "/srv/data", INTERNAL_SECRET: "s".repeat(32) });

Deno.test("an unset ASSETS_URL means a file store under DATA_DIR/assets", () => {
  const config = parseAssetsUrl({}, base);
  assert.equal(config?.kind, "file");
  assert.equal(config?.kind === "file" && config.dir, "/srv/data/assets");
});

Deno.test("an empty ASSETS_URL means asset storage is not configured", () => {
  assert.equal(parseAssetsUrl({ ASSETS_URL: "" }, base), null);
});

Deno.test("file: takes a plain path or a file:// URL", () => {
  const plain = parseAssetsUrl({ ASSETS_URL: "file:./x/assets" }, base);
  assert.equal(plain?.kind === "file" && plain.dir, "./x/assets");
  const url = parseAssetsUrl({ ASSETS_URL: "file:///tmp/a%20b" }, base);
  assert.equal(url?.kind === "file" && url.dir, "/tmp/a b");
});

Deno.test("s3: reads the bucket, endpoint, region and the AWS credentials", () => {
  const config = parseAssetsUrl({
    ASSETS_URL: "s3://my-bucket?endpoint=http://127.0.0.1:9000/&region=eu-west-1",
    AWS_ACCESS_KEY_ID: "AK",
    AWS_SECRET_ACCESS_KEY: "SK",
  }, base);
  assert.deepEqual(config, {
    kind: "s3",
    signingSecret: "s".repeat(32),
    publicUrl: base.publicUrl,
    bucket: "my-bucket",
    endpoint: "http://127.0.0.1:9000",
    region: "eu-west-1",
    accessKeyId: "AK",
    secretAccessKey: "SK",
    sessionToken: undefined,
  });
});

Deno.test("a malformed ASSETS_URL is a ConfigError naming the variable", () => {
  for (const value of ["ftp://x", "s3://", "s3://b?endpoint=notaurl", "file:", "s3://B_ad"]) {
    assert.throws(
      () =>
        parseAssetsUrl(
          { ASSETS_URL: value, AWS_ACCESS_KEY_ID: "a", AWS_SECRET_ACCESS_KEY: "b" },
          base,
        ),
      (err: unknown) => err instanceof ConfigError && /ASSETS_URL/.test(err.message),
      value,
    );
  }
  assert.throws(
    () => parseAssetsUrl({ ASSETS_URL: "s3://bucket" }, base),
    (err: unknown) => err instanceof ConfigError && /AWS_ACCESS_KEY_ID/.test(err.message),
  );
});

Deno.test("keys that could leave the store's directory are refused", () => {
  for (const key of ["", "../x", "a/../../x", "a//b", "/abs", "a/./b", "a\\b", ".meta/x", "a\0b"]) {
    assert.notEqual(keyProblem(key), null, key);
  }
  for (const key of ["workspaces/w/actions/a/x y.png", "_backups/2026-01-01T00-00-00.zip"]) {
    assert.equal(keyProblem(key), null, key);
  }
});

Deno.test("the download origin is the bucket's for s3: and none for file: or unset", () => {
  assert.equal(
    assetsDownloadOrigin({ ASSETS_URL: "s3://my-bucket?endpoint=http://127.0.0.1:9000/&region=x" }),
    "http://127.0.0.1:9000",
  );
  assert.equal(
    assetsDownloadOrigin({ ASSETS_URL: "s3://my-bucket" }),
    "https://my-bucket.s3.amazonaws.com",
  );
  assert.equal(
    assetsDownloadOrigin({ ASSETS_URL: "s3://my-bucket?region=eu-west-1" }),
    "https://my-bucket.s3.eu-west-1.amazonaws.com",
  );
  // No credentials needed: an app that only shows the pictures never signs a request.
  assert.equal(assetsDownloadOrigin({ ASSETS_URL: "file:/srv/assets" }), null);
  assert.equal(assetsDownloadOrigin({ ASSETS_URL: "" }), null);
  assert.equal(assetsDownloadOrigin({}), null);
  assert.throws(
    () => assetsDownloadOrigin({ ASSETS_URL: "s3://my-bucket?endpoint=ftp://x" }),
    (err: unknown) => err instanceof ConfigError && /endpoint must be an http/.test(err.message),
  );
});
