/// <reference lib="deno.ns" />
import assert from "node:assert/strict";
import { Hono } from "hono";
import { serve } from "./test_server.ts";
import { ApiError } from "./api.ts";
import { type Post, postSignature, savePublishing, watchPost } from "./posts.ts";
import {
  arranged,
  createMediaUploader,
  keepDownloadUrls,
  mediaTypeOf,
  moved,
  type PostMedia,
  type PutBytes,
  refusalOf,
  removeMedia,
  reorderMedia,
  setMediaText,
  UploadCancelled,
} from "./post_media.ts";

const MiB = 1024 * 1024;
const ref = { workspace_id: "ws1", post_id: "p1" };

function media(id: string, extra: Partial<PostMedia> = {}): PostMedia {
  return {
    media_id: id,
    kind: "image",
    filename: `${id}.png`,
    content_type: "image/png",
    size: 9,
    alt_text: "",
    title: null,
    uploaded_at: "2030-01-01T00:00:00Z",
    ...extra,
  };
}

const file = (name: string, type: string, size = 9) =>
  new File([new Uint8Array(size)], name, { type });

Deno.test("post media: a file's own type and size are checked before anything is sent", () => {
  assert.equal(mediaTypeOf({ name: "a.JPG", type: "" }), "image/jpeg");
  assert.equal(mediaTypeOf({ name: "deck.pdf", type: "" }), "application/pdf");
  assert.equal(mediaTypeOf({ name: "a.png", type: "IMAGE/PNG" }), "image/png");
  assert.equal(refusalOf({ name: "a.png", type: "image/png", size: 10 * MiB }), null);
  assert.equal(refusalOf({ name: "d.pdf", type: "application/pdf", size: 100 * MiB }), null);
  assert.match(
    refusalOf({ name: "a.webp", type: "image/webp", size: 9 })!,
    /Only JPEG, PNG or GIF images, or one PDF document/,
  );
  assert.equal(
    refusalOf({ name: "a.png", type: "image/png", size: 10 * MiB + 1 }),
    "An image can be at most 10 MiB",
  );
  assert.equal(
    refusalOf({ name: "d.pdf", type: "application/pdf", size: 100 * MiB + 1 }),
    "A document can be at most 100 MiB",
  );
  assert.equal(refusalOf({ name: "a.gif", type: "image/gif", size: 0 }), "The file is empty");
});

Deno.test("post media: alt text, title, order and removal go to their routes with the workspace", async () => {
  const post = { ...ref, media: [media("m1"), media("m2")] } as Post;
  using server = serve(
    new Hono()
      .patch("/api/posts/:id/media/:mediaId", (c) => c.json(post))
      .put("/api/posts/:id/media", (c) => c.json(post))
      .delete("/api/posts/:id/media/:mediaId", (c) => c.body(null, 204)),
  );
  await setMediaText(ref, "m1", { alt_text: "A chart" });
  await setMediaText(ref, "m3", { title: "Roadmap" });
  await reorderMedia(ref, ["m2", "m1"]);
  await removeMedia(ref, "m2");
  assert.deepEqual(server.seen.map((s) => [s.method, s.path, s.body ?? s.query]), [
    ["PATCH", "/api/posts/p1/media/m1", { workspace_id: "ws1", alt_text: "A chart" }],
    ["PATCH", "/api/posts/p1/media/m3", { workspace_id: "ws1", title: "Roadmap" }],
    ["PUT", "/api/posts/p1/media", { workspace_id: "ws1", media_ids: ["m2", "m1"] }],
    ["DELETE", "/api/posts/p1/media/m2", { workspaceId: "ws1" }],
  ]);
  assert.deepEqual(moved(["a", "b", "c"], 0, 2), ["b", "c", "a"]);
  assert.deepEqual(moved(["a", "b", "c"], 2, 0), ["c", "a", "b"]);
});

Deno.test("post media: two quick reorders of a post are saved in the order they were made", async () => {
  const saved: string[][] = [];
  let first = true;
  using _server = serve(
    new Hono().put("/api/posts/:id/media", async (c) => {
      const { media_ids } = await c.req.json() as { media_ids: string[] };
      // The first order is slow to arrive: sent at once, the second would be saved before it.
      if (first) {
        first = false;
        await new Promise((r) => setTimeout(r, 150));
      }
      saved.push(media_ids);
      return c.json({ ...ref, media: media_ids.map((id) => media(id)) });
    }),
  );
  const [a, b] = await Promise.all([
    reorderMedia(ref, ["m2", "m1", "m3"]),
    reorderMedia(ref, ["m2", "m3", "m1"]),
  ]);
  assert.deepEqual(saved, [["m2", "m1", "m3"], ["m2", "m3", "m1"]]);
  assert.deepEqual(b.media.map((m) => m.media_id), ["m2", "m3", "m1"]);
  assert.deepEqual(a.media.map((m) => m.media_id), ["m2", "m1", "m3"]);
});

Deno.test("posts store: the first comment and who publishes are saved on the post", async () => {
  using server = serve(new Hono().put("/api/posts/:id", (c) => c.json(ref)));
  await savePublishing(ref, { first_comment: "Sources in the comments" });
  await savePublishing(ref, { first_comment: null });
  await savePublishing(ref, { publish_as: "urn:li:organization:42" });
  assert.deepEqual(server.seen.map((s) => [s.method, s.path, s.body]), [
    ["PUT", "/api/posts/p1", { workspace_id: "ws1", first_comment: "Sources in the comments" }],
    ["PUT", "/api/posts/p1", { workspace_id: "ws1", first_comment: null }],
    ["PUT", "/api/posts/p1", { workspace_id: "ws1", publish_as: "urn:li:organization:42" }],
  ]);
});

Deno.test("post media: the editor notices changed media, first comment and page, not a fresh download URL", () => {
  const base = {
    ...ref,
    status: "draft",
    media: [media("m1", { downloadUrl: "http://x/1" })],
    first_comment: null,
    publish_as: "member",
  } as unknown as Post;
  const same = postSignature(base);
  assert.equal(
    postSignature({ ...base, media: [media("m1", { downloadUrl: "http://x/2" })] }),
    same,
  );
  assert.notEqual(postSignature({ ...base, media: [media("m1", { alt_text: "Hi" })] }), same);
  assert.notEqual(postSignature({ ...base, first_comment: "Link" }), same);
  assert.notEqual(postSignature({ ...base, publish_as: "urn:li:organization:1" }), same);
  assert.notEqual(postSignature({ ...base, first_comment_error: "Refused" }), same);
});

Deno.test("post media: while a move or removal is on its way the list shows it, whatever a read in between says", () => {
  const [a, b, c, d] = ["a", "b", "c", "d"].map((id) => media(id));
  const ids = (list: PostMedia[]) => list.map((m) => m.media_id).join("");
  assert.equal(ids(arranged([a, b, c], null, new Set())), "abc");
  assert.equal(ids(arranged([a, b, c], ["c", "a", "b"], new Set())), "cab");
  assert.equal(
    ids(arranged([a, b, c, d], ["c", "a", "b"], new Set())),
    "cabd",
    "added meanwhile: last",
  );
  assert.equal(ids(arranged([a, b, c], ["c", "a", "b"], new Set(["a"]))), "cb");
});

Deno.test("posts store: a watched post read before the screen's own newer change does not undo it", async () => {
  let served = { ...ref, status: "draft", updated_at: "2030-01-01T10:00:00.000Z", media: [] };
  using _server = serve(new Hono().get("/api/posts/:id", (c) => c.json(served)));
  let shown = {
    ...ref,
    status: "draft",
    updated_at: "2030-01-01T10:00:05.000Z",
    media: [media("m1")],
  } as unknown as Post;
  const seen: string[] = [];
  let wake = () => {};
  const stop = watchPost({
    workspaceId: "ws1",
    postId: "p1",
    everyMs: 60_000,
    current: () => shown,
    onChange: (fresh) => {
      seen.push(fresh.updated_at);
      shown = fresh;
    },
    isVisible: () => true,
    subscribeWake: (w) => {
      wake = w;
      return () => {};
    },
  });
  const settle = () => new Promise((r) => setTimeout(r, 20));
  wake();
  await settle();
  assert.deepEqual(seen, [], "an older read is dropped");
  served = { ...served, updated_at: "2030-01-01T10:00:09.000Z" };
  wake();
  await settle();
  assert.deepEqual(seen, ["2030-01-01T10:00:09.000Z"], "a newer one is shown");
  stop();
});

Deno.test("post media: a write's answer keeps the download URLs the screen has", () => {
  const prev = {
    ...ref,
    media: [media("m1", { downloadUrl: "http://dl/1" }), media("m2")],
  } as Post;
  const answer = { ...ref, media: [media("m2"), media("m1", { alt_text: "Hi" })] } as Post;
  const kept = keepDownloadUrls(answer, prev);
  assert.deepEqual(kept.media.map((m) => [m.media_id, m.alt_text, m.downloadUrl]), [
    ["m2", "", undefined],
    ["m1", "Hi", "http://dl/1"],
  ]);
  const fresh = { ...ref, media: [media("m1", { downloadUrl: "http://dl/new" })] } as Post;
  assert.equal(keepDownloadUrls(fresh, prev), fresh, "a Get's own URLs win");
});

/** A PUT the test finishes by hand; records what was sent and how far. */
function manualPut() {
  const sent: { url: string; type: string; size: number }[] = [];
  const pending = new Map<string, { resolve: () => void; reject: (e: unknown) => void }>();
  const progress = new Map<string, (share: number) => void>();
  const put: PutBytes = (url, body, type, onProgress, signal) =>
    new Promise((resolve, reject) => {
      sent.push({ url, type, size: body.size });
      pending.set(url, { resolve, reject });
      progress.set(url, onProgress);
      signal.addEventListener("abort", () => reject(new UploadCancelled()));
    });
  return { put, sent, pending, progress };
}

const tick = () => new Promise((r) => setTimeout(r, 0));

Deno.test("post media: files are added in their order, their bytes sent with progress, the post read after", async () => {
  let asked = 0;
  const onPost: Post[] = [];
  using server = serve(
    new Hono()
      .post("/api/posts/:id/media", async (c) => {
        const body = await c.req.json();
        if (body.filename === "d.pdf") {
          return c.json({
            error: "A post can have one document, never beside images or another document",
          }, 400);
        }
        asked++;
        return c.json(
          { media_id: `m${asked}`, uploadUrl: `http://up/${asked}`, expiresIn: 900 },
          201,
        );
      })
      .get("/api/posts/:id", (c) =>
        c.json({
          ...ref,
          media: [
            media("m1", { downloadUrl: "http://dl/1" }),
            media("m2", { downloadUrl: "http://dl/2" }),
          ],
        })),
  );
  const puts = manualPut();
  const up = createMediaUploader({
    ...{ workspaceId: "ws1", postId: "p1" },
    onPost: (p) => onPost.push(p),
    put: puts.put,
    preview: (f) => `blob:${(f as File).name}`,
    revoke: () => {},
  });
  const done = up.add([
    file("a.png", "image/png"),
    file("x.webp", "image/webp"),
    file("b.gif", "image/gif", 12),
    file("d.pdf", "application/pdf"),
  ]);
  while (puts.sent.length < 2) await tick();

  const asks = server.seen.filter((s) => s.method === "POST").map((s) => s.body);
  assert.deepEqual(asks, [
    { workspace_id: "ws1", filename: "a.png", contentType: "image/png", size: 9 },
    { workspace_id: "ws1", filename: "b.gif", contentType: "image/gif", size: 12 },
    { workspace_id: "ws1", filename: "d.pdf", contentType: "application/pdf", size: 9 },
  ], "the refused type is never asked for; the others in their order");
  assert.deepEqual(puts.sent, [
    { url: "http://up/1", type: "image/png", size: 9 },
    { url: "http://up/2", type: "image/gif", size: 12 },
  ]);
  assert.deepEqual(up.refusals.value.map((r) => [r.filename, r.message]), [
    ["x.webp", "Only JPEG, PNG or GIF images, or one PDF document, can be added"],
    ["d.pdf", "A post can have one document, never beside images or another document"],
  ]);
  puts.progress.get("http://up/1")!(0.4);
  assert.deepEqual(
    up.uploads.value.map((u) => [u.filename, u.mediaId, u.progress]),
    [["a.png", "m1", 0.4], ["b.gif", "m2", 0]],
  );
  assert.equal(up.busy(), true);
  while (onPost.length === 0) await tick();
  // The local file stays the thumbnail, though the post read now has download URLs.
  assert.equal(up.thumbnail(onPost[0].media[0]), "blob:a.png");

  puts.pending.get("http://up/1")!.resolve();
  puts.pending.get("http://up/2")!.resolve();
  await done;
  assert.equal(onPost.length, 2, "read after asking, and again once the bytes are there");
  assert.deepEqual(
    onPost.map((p) => p.media.map((m) => m.downloadUrl ?? null)),
    [[null, null], ["http://dl/1", "http://dl/2"]],
    "no picture URL while the bytes are on their way",
  );
  assert.equal(up.uploads.value.length, 0);
  assert.equal(up.busy(), false);
  assert.match(up.announcement.value, /uploaded/);
  up.dismissRefusals();
  assert.deepEqual(up.refusals.value, []);
});

Deno.test("post media: a failed upload is taken back and said in the server's words; a cancelled one says nothing", async () => {
  let n = 0;
  using server = serve(
    new Hono()
      .post("/api/posts/:id/media", (c) => {
        n++;
        return c.json({ media_id: `m${n}`, uploadUrl: `http://up/${n}`, expiresIn: 900 }, 201);
      })
      .delete("/api/posts/:id/media/:mediaId", (c) => c.body(null, 204))
      .get("/api/posts/:id", (c) => c.json({ ...ref, media: [] })),
  );
  const puts = manualPut();
  const up = createMediaUploader({
    workspaceId: "ws1",
    postId: "p1",
    onPost: () => {},
    put: puts.put,
    preview: () => null,
    parallel: 1,
  });
  const done = up.add([file("big.png", "image/png"), file("later.png", "image/png")]);
  while (!up.uploads.value.some((u) => u.mediaId === "m2")) await tick();
  assert.equal(puts.sent.length, 1, "one upload at a time with parallel 1");
  up.cancel("m2");
  puts.pending.get("http://up/1")!.reject(
    new ApiError(413, "Upload is larger than the 9 bytes requested"),
  );
  await done;
  assert.equal(puts.sent.length, 1, "the cancelled upload never started");
  assert.deepEqual(up.refusals.value, [
    { filename: "big.png", message: "Upload is larger than the 9 bytes requested" },
  ]);
  const deletes = server.seen.filter((s) => s.method === "DELETE").map((s) => s.path);
  assert.deepEqual(deletes, ["/api/posts/p1/media/m1"], "only the failed one is taken back");
  assert.equal(up.uploads.value.length, 0);
});
