/**
 * The `file:` asset store and its presigned routes, served as the gateway serves them (a Hono
 * app on a loopback port): the upload, list, download and delete round trip, and the
 * refusals (expired, tampered, wrong Content-Type, too large, keys that try to leave the store);
 * the type and disposition every object is served with; the single-use upload URLs.
 */
import assert from "node:assert/strict";
import { Hono } from "hono";
import { createFileAssetRoutes, MAX_UPLOAD_BYTES } from "../shared/assets/file_routes.ts";
import { FileAssetStore } from "../shared/assets/file_store.ts";
import { UrlSigner } from "../shared/assets/signing.ts";
import { type ClaimUpload, UploadUrls } from "../shared/assets/upload_urls.ts";
import { AppError } from "../shared/http/app_error.ts";
import { createLogger } from "../shared/log.ts";
import { e2e, freePort } from "./helpers/stack.ts";

async function startFileStore(maxBytes?: number, claimUpload?: ClaimUpload) {
  const root = await Deno.makeTempDir({ prefix: "cps-assets-" });
  const dir = `${root}/assets`;
  const port = await freePort();
  const publicUrl = `http://127.0.0.1:${port}`;
  const store = new FileAssetStore(dir, publicUrl, await UrlSigner.fromSecret("s".repeat(32)));
  const app = new Hono();
  app.route(
    "/",
    createFileAssetRoutes({ store, logger: createLogger("assets"), maxBytes, claimUpload }),
  );
  app.all("*", (c) => c.json({ error: "fell through" }, 404));
  const server = Deno.serve({ port, hostname: "127.0.0.1", onListen: () => {} }, app.fetch);
  return {
    root,
    dir,
    store,
    publicUrl,
    async close() {
      await server.shutdown();
      await Deno.remove(root, { recursive: true });
    },
  };
}

const bytes = (text: string) => new TextEncoder().encode(text);

Deno.test("file asset store: presigned routes and store operations", e2e, async (t) => {
  const fs = await startFileStore();
  try {
    const key = "workspaces/w1/actions/a1/photo one.png";

    await t.step("a presigned PUT stores the bytes with the signed Content-Type", async () => {
      const url = await fs.store.presignPut(key, "image/png", 60);
      assert.ok(url.startsWith(`${fs.publicUrl}/assets/workspaces/w1/actions/a1/photo%20one.png?`));
      const res = await fetch(url, {
        method: "PUT",
        body: bytes("PNGDATA"),
        headers: { "content-type": "image/png" },
      });
      await res.body?.cancel();
      assert.equal(res.status, 200);
      assert.equal(
        await Deno.readTextFile(`${fs.dir}/workspaces/w1/actions/a1/photo one.png`),
        "PNGDATA",
      );
    });

    await t.step("the store lists it with its size", async () => {
      assert.deepEqual(await fs.store.list("workspaces/w1/"), [{ key, size: 7 }]);
      assert.deepEqual(await fs.store.list("workspaces/w2/"), []);
      assert.deepEqual(await fs.store.list(""), [{ key, size: 7 }]);
      assert.equal(await fs.store.exists(key), true);
    });

    await t.step("a presigned GET answers the bytes, type and safe headers", async () => {
      const res = await fetch(await fs.store.presignGet(key, 60));
      assert.equal(res.status, 200);
      assert.equal(res.headers.get("content-type"), "image/png");
      assert.equal(res.headers.get("x-content-type-options"), "nosniff");
      assert.match(res.headers.get("content-security-policy") ?? "", /sandbox/);
      assert.equal(await res.text(), "PNGDATA");
    });

    await t.step("a PUT with another Content-Type than the signed one is refused 403", async () => {
      const url = await fs.store.presignPut("workspaces/w1/x.pdf", "application/pdf", 60);
      const res = await fetch(url, {
        method: "PUT",
        body: bytes("%PDF"),
        headers: { "content-type": "image/png" },
      });
      assert.equal(res.status, 403);
      assert.ok((await res.json()).error);
      assert.equal(await fs.store.exists("workspaces/w1/x.pdf"), false);
    });

    await t.step("a tampered URL is refused 403", async () => {
      const url = new URL(await fs.store.presignPut("workspaces/w1/y.pdf", "application/pdf", 60));
      const other = new URL(url);
      other.pathname = "/assets/workspaces/w1/z.pdf";
      const later = new URL(url);
      later.searchParams.set("expires", String(Number(url.searchParams.get("expires")) + 1000));
      const badSig = new URL(url);
      // One character changed (never to itself: a signature may start with "A").
      const signature = url.searchParams.get("signature")!;
      badSig.searchParams.set("signature", (signature[0] === "A" ? "B" : "A") + signature.slice(1));
      const noSig = new URL(url);
      noSig.searchParams.delete("signature");
      for (const target of [other, later, badSig, noSig]) {
        const res = await fetch(target, {
          method: "PUT",
          body: bytes("%PDF"),
          headers: { "content-type": "application/pdf" },
        });
        assert.equal(res.status, 403, target.toString());
        await res.body?.cancel();
      }
      // A GET signature does not work for a PUT of the same key.
      const getUrl = await fs.store.presignGet(key, 60);
      const res = await fetch(getUrl, { method: "PUT", body: bytes("x") });
      assert.equal(res.status, 403);
      await res.body?.cancel();
      assert.equal(await Deno.readTextFile(`${fs.dir}/${key}`), "PNGDATA");
    });

    await t.step("an expired URL is refused 403", async () => {
      const put = await fs.store.presignPut("workspaces/w1/late.pdf", "application/pdf", 1);
      const get = await fs.store.presignGet(key, 1);
      await new Promise((r) => setTimeout(r, 2100));
      const res = await fetch(put, {
        method: "PUT",
        body: bytes("%PDF"),
        headers: { "content-type": "application/pdf" },
      });
      assert.equal(res.status, 403);
      assert.match((await res.json()).error, /expired/);
      const res2 = await fetch(get);
      assert.equal(res2.status, 403);
      await res2.body?.cancel();
    });

    await t.step("a body over 25 MiB is refused 413 and nothing is stored", async () => {
      const url = await fs.store.presignPut("workspaces/w1/big.pdf", "application/pdf", 60);
      const res = await fetch(url, {
        method: "PUT",
        body: new Uint8Array(MAX_UPLOAD_BYTES + 1),
        headers: { "content-type": "application/pdf" },
      });
      assert.equal(res.status, 413);
      await res.body?.cancel();
      assert.equal(await fs.store.exists("workspaces/w1/big.pdf"), false);
    });

    await t.step("keys with '..' never reach the disk", async () => {
      for (const path of ["/assets/%2e%2e/%2e%2e/escape.png", "/assets/a/..%2F..%2Fescape.png"]) {
        const res = await fetch(`${fs.publicUrl}${path}?expires=9999999999&signature=x`, {
          method: "PUT",
          body: bytes("x"),
          headers: { "content-type": "image/png" },
        });
        // URL parsing may resolve `%2e%2e` before the route sees it (then no route matches).
        assert.ok([400, 403, 404].includes(res.status), `${path}: ${res.status}`);
        await res.body?.cancel();
      }
      await assert.rejects(fs.store.presignPut("../escape.png", "image/png", 60), RangeError);
      await assert.rejects(fs.store.put("a/../../escape.png", bytes("x"), "image/png"), RangeError);
      assert.deepEqual(
        (await Array.fromAsync(Deno.readDir(fs.root))).map((e) => e.name),
        ["assets"],
      );
    });

    await t.step("a GET of an absent object is 404", async () => {
      const res = await fetch(await fs.store.presignGet("workspaces/none.png", 60));
      assert.equal(res.status, 404);
      await res.body?.cancel();
    });

    await t.step("delete removes the object; deleting it again is not an error", async () => {
      await fs.store.delete(key);
      await fs.store.delete(key);
      assert.equal(await fs.store.exists(key), false);
      assert.deepEqual(await fs.store.list(""), []);
      const res = await fetch(await fs.store.presignGet(key, 60));
      assert.equal(res.status, 404);
      await res.body?.cancel();
    });
  } finally {
    await fs.close();
  }
});

Deno.test(
  "a streamed upload without Content-Length is cut off at the limit with 413",
  e2e,
  async () => {
    const fs = await startFileStore(1024);
    try {
      const url = await fs.store.presignPut("s/big.png", "image/png", 60);
      const body = ReadableStream.from([new Uint8Array(600), new Uint8Array(600)]);
      const res = await fetch(url, {
        method: "PUT",
        body,
        headers: { "content-type": "image/png" },
      });
      assert.equal(res.status, 413);
      await res.body?.cancel();
      assert.equal(await fs.store.exists("s/big.png"), false);
      assert.deepEqual(await Array.fromAsync(Deno.readDir(`${fs.dir}/.tmp`)), []);
    } finally {
      await fs.close();
    }
  },
);

Deno.test(
  "every object is served with its extension's type, and all but raster images as attachments",
  e2e,
  async () => {
    const fs = await startFileStore();
    try {
      // Stored with a type that a browser would render as HTML: served as the .png it is.
      await fs.store.put("w/a/x.png", bytes("<script>1</script>"), "image/png;,text/html");
      await fs.store.put("w/a/page.html", bytes("<script>2</script>"), "text/html");
      await fs.store.put("w/a/d.svg", bytes("<svg/>"), "image/svg+xml");
      const get = async (key: string) => {
        const res = await fetch(await fs.store.presignGet(key, 60));
        await res.body?.cancel();
        assert.equal(res.status, 200);
        assert.equal(res.headers.get("x-content-type-options"), "nosniff");
        return res.headers;
      };
      const png = await get("w/a/x.png");
      assert.equal(png.get("content-type"), "image/png");
      assert.equal(png.get("content-disposition"), null);
      const html = await get("w/a/page.html");
      assert.equal(html.get("content-type"), "application/octet-stream");
      assert.equal(
        html.get("content-disposition"),
        `attachment; filename="page.html"; filename*=UTF-8''page.html`,
      );
      const svg = await get("w/a/d.svg");
      assert.equal(svg.get("content-type"), "image/svg+xml");
      assert.match(svg.get("content-disposition") ?? "", /^attachment;/);
    } finally {
      await fs.close();
    }
  },
);

Deno.test(
  "an attachment is taken only through a single-use URL that its owner claims",
  e2e,
  async (t) => {
    const claimed = new Set<string>();
    const claims: string[] = [];
    const fs = await startFileStore(undefined, (key, upload) => {
      claims.push(`${key} ${upload}`);
      if (claimed.has(upload)) {
        return Promise.reject(new AppError(409, "This upload URL has been used already"));
      }
      claimed.add(upload);
      return Promise.resolve();
    });
    try {
      const urls = new UploadUrls(fs.publicUrl, fs.store.signer);
      const key = "workspaces/w1/actions/a1/once.png";
      const upload = urls.newUploadId();
      const url = await urls.sign(key, "image/png", 60, upload);
      const put = async (target: string, body: string) => {
        const res = await fetch(target, {
          method: "PUT",
          body: bytes(body),
          headers: { "content-type": "image/png" },
        });
        return { status: res.status, body: res.status === 200 ? null : await res.json() };
      };

      await t.step("the first PUT is claimed, then stored with the signed type", async () => {
        assert.equal((await put(url, "FIRST")).status, 200);
        assert.deepEqual(claims, [`${key} ${upload}`]);
        assert.equal((await fs.store.get(key))?.contentType, "image/png");
      });

      await t.step("a second PUT is the owner's refusal, and the bytes stay", async () => {
        assert.deepEqual(await put(url, "SECOND"), {
          status: 409,
          body: { error: "This upload URL has been used already" },
        });
        assert.equal(await Deno.readTextFile(`${fs.dir}/${key}`), "FIRST");
      });

      await t.step("another upload id, or none, does not match the signature", async () => {
        const other = new URL(url);
        other.searchParams.set("upload", urls.newUploadId());
        const none = new URL(url);
        none.searchParams.delete("upload");
        for (const target of [other, none]) {
          assert.equal((await put(target.toString(), "X")).status, 403);
        }
        assert.equal(claims.length, 2);
      });
    } finally {
      await fs.close();
    }
  },
);
