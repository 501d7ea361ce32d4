/**
 * The `s3:` driver's presigned URLs (its object URL, query and signing clock), checked against
 * the example AWS publishes for Signature Version 4 on S3 (access key AKIAIOSFODNN7EXAMPLE,
 * 24 May 2013, us-east-1). The test S3 server (s3rver) does not check signatures, so this is
 * where they are checked.
 */
import assert from "node:assert/strict";
import { S3AssetStore } from "./s3_store.ts";

const AWS_EXAMPLE = {
  bucket: "examplebucket",
  region: "us-east-1",
  accessKeyId: "AKIAIOSFODNN7EXAMPLE",
  secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
  now: () => new Date("2013-05-24T00:00:00Z"),
};

Deno.test("a presigned GET matches AWS's published query-string signing example", async () => {
  const store = new S3AssetStore(AWS_EXAMPLE);
  const url = new URL(await store.presignUrl("GET", "test.txt", 86400, {}));
  assert.equal(url.origin + url.pathname, "https://examplebucket.s3.amazonaws.com/test.txt");
  assert.equal(url.searchParams.get("X-Amz-Algorithm"), "AWS4-HMAC-SHA256");
  assert.equal(
    url.searchParams.get("X-Amz-Credential"),
    "AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request",
  );
  assert.equal(url.searchParams.get("X-Amz-Date"), "20130524T000000Z");
  assert.equal(url.searchParams.get("X-Amz-Expires"), "86400");
  assert.equal(url.searchParams.get("X-Amz-SignedHeaders"), "host");
  assert.equal(
    url.searchParams.get("X-Amz-Signature"),
    "aeeed9bbccd4d02ee5c0109b86d86835f995330da4c265957d157751f604d404",
  );
});

Deno.test("a presigned PUT signs the Content-Type, so the server can refuse another", async () => {
  const store = new S3AssetStore(AWS_EXAMPLE);
  const a = new URL(await store.presignPut("a/b c.png", "image/png", 3600));
  const b = new URL(await store.presignPut("a/b c.png", "image/jpeg", 3600));
  assert.equal(a.searchParams.get("X-Amz-SignedHeaders"), "content-type;host");
  assert.equal(a.pathname, "/a/b%20c.png");
  assert.notEqual(a.searchParams.get("X-Amz-Signature"), b.searchParams.get("X-Amz-Signature"));
});

Deno.test("an endpoint URL gives path-style object URLs", () => {
  const store = new S3AssetStore({ ...AWS_EXAMPLE, endpoint: "http://127.0.0.1:9000/" });
  assert.equal(
    store.objectUrl("workspaces/w/actions/a/x y.pdf"),
    "http://127.0.0.1:9000/examplebucket/workspaces/w/actions/a/x%20y.pdf",
  );
});

Deno.test("a presigned GET signs the served type and disposition into the URL", async () => {
  const store = new S3AssetStore(AWS_EXAMPLE);
  const image = new URL(await store.presignGet("w/a/x.PNG", 3600));
  assert.equal(image.searchParams.get("response-content-type"), "image/png");
  assert.equal(image.searchParams.get("response-content-disposition"), null);
  for (const [key, type] of [["w/a/x.svg", "image/svg+xml"], ["w/a/r.pdf", "application/pdf"]]) {
    const url = new URL(await store.presignGet(key, 3600));
    assert.equal(url.searchParams.get("response-content-type"), type);
    assert.match(url.searchParams.get("response-content-disposition") ?? "", /^attachment;/);
  }
  const other = new URL(await store.presignGet("w/a/page.html", 3600));
  assert.equal(other.searchParams.get("response-content-type"), "application/octet-stream");
  assert.match(other.searchParams.get("response-content-disposition") ?? "", /^attachment;/);
});
