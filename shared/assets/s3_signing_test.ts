/**
 * The `s3:` driver's signing, checked against the examples AWS publishes for Signature
 * Version 4 on S3 (access key AKIAIOSFODNN7EXAMPLE, 24 May 2013, us-east-1), since the test S3
 * server (s3rver) does not verify signatures.
 */
import assert from "node:assert/strict";
import { AwsV4Signer } from "aws4fetch";
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
  const url = new URL(await store.presignGet("test.txt", 86400));
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

Deno.test("the signer reproduces AWS's published GET Object header-signing example", async () => {
  const signer = new AwsV4Signer({
    url: "https://examplebucket.s3.amazonaws.com/test.txt",
    method: "GET",
    headers: {
      range: "bytes=0-9",
      "x-amz-content-sha256": "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    },
    accessKeyId: AWS_EXAMPLE.accessKeyId,
    secretAccessKey: AWS_EXAMPLE.secretAccessKey,
    service: "s3",
    region: "us-east-1",
    datetime: "20130524T000000Z",
    allHeaders: true,
  });
  const signed = await signer.sign();
  assert.equal(
    signed.headers.get("authorization"),
    "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, " +
      "SignedHeaders=host;range;x-amz-content-sha256;x-amz-date, " +
      "Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41",
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
