/**
 * The `s3:` asset store against an S3-compatible server on loopback (s3rver): the upload
 * (presigned PUT and direct put), list, download (presigned GET and direct get) and delete
 * round trip; the type and disposition signed into a download URL; the gateway's single-use
 * upload route streaming into the bucket. Signing itself is checked against AWS's examples in
 * shared/assets.
 */
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { Hono } from "hono";
import { assetStoreFromEnv } from "../shared/assets/config.ts";
import { createFileAssetRoutes } from "../shared/assets/file_routes.ts";
import { UrlSigner } from "../shared/assets/signing.ts";
import { UploadUrls } from "../shared/assets/upload_urls.ts";
import { parseBaseConfig } from "../shared/config.ts";
import { AppError } from "../shared/http/app_error.ts";
import { createLogger } from "../shared/log.ts";
import { startFakeS3 } from "./fakes/s3.ts";
import { e2e, freePort } from "./helpers/stack.ts";

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

Deno.test(
  "an s3 download URL answers the extension's type, and all but raster images as attachments",
  e2e,
  async () => {
    const s3 = await startFakeS3();
    try {
      const store = await assetStoreFromEnv(s3.env, parseBaseConfig({ DATA_DIR: "/nowhere" }));
      assert.ok(store);
      const text = (s: string) => new TextEncoder().encode(s);
      await store.put("w/a/x.png", text("<script>1</script>"), "image/png;,text/html");
      await store.put("w/a/page.html", text("<script>2</script>"), "text/html");
      const get = async (key: string) => {
        const res = await fetch(await store.presignGet(key, 3600));
        await res.body?.cancel();
        assert.equal(res.status, 200);
        return res.headers;
      };
      const png = await get("w/a/x.png");
      assert.equal(png.get("content-type"), "image/png");
      assert.equal(png.get("content-disposition"), null);
      const html = await get("w/a/page.html");
      assert.equal(html.get("content-type"), "application/octet-stream");
      assert.match(html.get("content-disposition") ?? "", /^attachment; filename="page.html"/);
    } finally {
      await s3.close();
    }
  },
);

Deno.test(
  "the gateway's single-use upload route streams a claimed upload into the bucket, once",
  e2e,
  async (t) => {
    const s3 = await startFakeS3();
    const port = await freePort();
    const publicUrl = `http://127.0.0.1:${port}`;
    const store = await assetStoreFromEnv(s3.env, parseBaseConfig({ DATA_DIR: "/nowhere" }));
    assert.ok(store);
    const signer = await UrlSigner.fromSecret("s".repeat(32));
    const claimed = new Set<string>();
    const app = new Hono();
    app.route(
      "/",
      createFileAssetRoutes({
        store,
        signer,
        logger: createLogger("assets"),
        maxBytes: 1024,
        claimUpload: (_key, upload) => {
          if (claimed.has(upload)) {
            return Promise.reject(new AppError(409, "This upload URL has been used already"));
          }
          claimed.add(upload);
          return Promise.resolve();
        },
      }),
    );
    const server = Deno.serve({ port, hostname: "127.0.0.1", onListen: () => {} }, app.fetch);
    const urls = new UploadUrls(publicUrl, signer);
    const put = async (url: string, body: BodyInit) => {
      const res = await fetch(url, {
        method: "PUT",
        body,
        headers: { "content-type": "application/pdf" },
      });
      await res.body?.cancel();
      return res.status;
    };
    try {
      const key = "workspaces/w1/actions/a1/r.pdf";
      const url = await urls.sign(key, "application/pdf", 60, urls.newUploadId());

      await t.step("the first PUT lands in the bucket with the signed type", async () => {
        assert.equal(await put(url, "%PDF-1"), 200);
        const got = await store.get(key);
        assert.equal(got?.contentType, "application/pdf");
        assert.equal(await new Response(got!.body).text(), "%PDF-1");
      });

      await t.step("a second PUT with the same URL is refused and the bytes stay", async () => {
        assert.equal(await put(url, "%PDF-2"), 409);
        assert.equal(await new Response((await store.get(key))!.body).text(), "%PDF-1");
      });

      await t.step("a streamed body over the limit is 413 and nothing is stored", async () => {
        const big = "workspaces/w1/actions/a1/big.pdf";
        const stream = ReadableStream.from([new Uint8Array(600), new Uint8Array(600)]);
        const bigUrl = await urls.sign(big, "application/pdf", 60, urls.newUploadId());
        assert.equal(await put(bigUrl, stream), 413);
        assert.equal(await store.exists(big), false);
      });

      await t.step("a GET through the gateway is not served for an s3 store", async () => {
        const res = await fetch(`${publicUrl}/assets/${key}?expires=9999999999&signature=x`);
        await res.body?.cancel();
        assert.equal(res.status, 404);
      });
    } finally {
      await server.shutdown();
      await s3.close();
    }
  },
);
