/**
 * An S3-compatible server on loopback for tests: `s3rver` (the S3 REST API over a temp
 * directory), with one bucket made at start. Its built-in account is `S3RVER`/`S3RVER`. It
 * does not check signatures (a wrongly signed or unsigned request is accepted): presigned URLs
 * are checked against AWS's published example in shared/assets/s3_signing_test.ts.
 */
// deno-lint-ignore no-import-prefix -- test-only: kept out of deno.json so `deno task start` does not install it
import S3rver from "npm:s3rver@3.7.1";
import { freePort } from "../helpers/stack.ts";

export const FAKE_S3_CREDENTIALS = { accessKeyId: "S3RVER", secretAccessKey: "S3RVER" };

export interface FakeS3 {
  endpoint: string;
  bucket: string;
  /** The ASSETS_URL and credentials that point the service at this server. */
  env: Record<string, string>;
  close(): Promise<void>;
}

export async function startFakeS3(bucket = "test-bucket"): Promise<FakeS3> {
  const directory = await Deno.makeTempDir({ prefix: "cps-s3-" });
  const port = await freePort();
  const server = new S3rver({
    address: "127.0.0.1",
    port,
    silent: true,
    directory,
    vhostBuckets: false,
    configureBuckets: [{ name: bucket, configs: [] }],
  });
  await server.run();
  const endpoint = `http://127.0.0.1:${port}`;
  return {
    endpoint,
    bucket,
    env: {
      ASSETS_URL: `s3://${bucket}?endpoint=${encodeURIComponent(endpoint)}&region=us-east-1`,
      AWS_ACCESS_KEY_ID: FAKE_S3_CREDENTIALS.accessKeyId,
      AWS_SECRET_ACCESS_KEY: FAKE_S3_CREDENTIALS.secretAccessKey,
    },
    async close() {
      await server.close();
      await Deno.remove(directory, { recursive: true }).catch(() => {});
    },
  };
}
