/**
 * The `s3:` asset store against an S3-compatible server on loopback (s3rver): the upload
 * (presigned PUT and direct put), list, download (presigned GET and direct get) and delete
 * round trip. Signing itself is checked against AWS's examples in shared/assets.
 */
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { assetStoreFromEnv } from "../shared/assets/config.ts";
import { parseBaseConfig } from "../shared/config.ts";
import { startFakeS3 } from "./fakes/s3.ts";
import { e2e } from "./helpers/stack.ts";

Deno.test("s3 asset store: upload, list, download and delete round trip", e2e, async (t) => {
  const s3 = await startFakeS3();
  try {
    const store = await assetStoreFromEnv(s3.env, parseBaseConfig({ DATA_DIR: "/nowhere" }));
    assert.ok(store);
    assert.equal(store.kind, "s3");
    const key = "workspaces/w1/actions/a1/report (final).pdf";

    await t.step("a presigned PUT uploads the bytes", async () => {
      const url = await store.presignPut(key, "application/pdf", 3600);
      assert.ok(url.startsWith(`${s3.endpoint}/${s3.bucket}/workspaces/w1/actions/a1/`));
      assert.match(url, /X-Amz-Signature=[0-9a-f]{64}/);
      const res = await fetch(url, {
        method: "PUT",
        body: "%PDF-1.4 test",
        headers: { "content-type": "application/pdf" },
      });
      await res.body?.cancel();
      assert.equal(res.status, 200);
    });

    await t.step("put stores bytes directly, and list shows both with sizes", async () => {
      await store.put("_backups/2026.zip", new TextEncoder().encode("zipzip"), "application/zip");
      assert.deepEqual(await store.list("workspaces/w1/"), [{ key, size: 13 }]);
      assert.deepEqual((await store.list("")).map((o) => o.key), ["_backups/2026.zip", key]);
      assert.equal(await store.exists(key), true);
      assert.equal(await store.exists("workspaces/none.pdf"), false);
    });

    await t.step("a presigned GET and get both answer the bytes", async () => {
      const res = await fetch(await store.presignGet(key, 3600));
      assert.equal(res.status, 200);
      assert.equal(res.headers.get("content-type"), "application/pdf");
      assert.equal(await res.text(), "%PDF-1.4 test");
      const got = await store.get(key);
      assert.ok(got);
      assert.equal(await new Response(got.body).text(), "%PDF-1.4 test");
      assert.equal(await store.get("workspaces/none.pdf"), null);
    });

    await t.step("a streamed put goes up in parts and reads back byte for byte", async () => {
      // 11 MiB in odd-sized chunks: three parts of a multipart upload (5 + 5 + 1 MiB).
      const bytes = new Uint8Array(11 * 1024 * 1024);
      for (let o = 0; o < bytes.length; o += 65536) {
        crypto.getRandomValues(bytes.subarray(o, o + 65536));
      }
      const chunks = [];
      for (let o = 0; o < bytes.length; o += 777_777) chunks.push(bytes.slice(o, o + 777_777));
      await store.put("_backups/big.zip", ReadableStream.from(chunks), "application/zip");
      const got = await store.get("_backups/big.zip");
      assert.ok(got);
      assert.equal(got.contentType, "application/zip");
      assert.ok(Buffer.from(await new Response(got.body).bytes()).equals(Buffer.from(bytes)));
      // A short stream fits in one part: a plain PUT.
      await store.put("_backups/small.zip", ReadableStream.from([bytes.slice(0, 10)]), "x/y");
      const small = await store.get("_backups/small.zip");
      assert.deepEqual([...await new Response(small!.body).bytes()], [...bytes.slice(0, 10)]);
      await store.delete("_backups/big.zip");
      await store.delete("_backups/small.zip");
    });

    await t.step("delete removes the object; deleting it again is not an error", async () => {
      await store.delete(key);
      await store.delete(key);
      assert.equal(await store.exists(key), false);
      assert.deepEqual((await store.list("")).map((o) => o.key), ["_backups/2026.zip"]);
    });
  } finally {
    await s3.close();
  }
});
