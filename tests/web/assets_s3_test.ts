/**
 * With an S3 asset store (an S3-compatible server on loopback), a post's pictures are shown in
 * the browser from their presigned download URLs on the bucket's origin: the page's policy lets
 * pictures come from there, and from nowhere else new.
 */
import assert from "node:assert/strict";
import { api, e2e } from "../helpers/stack.ts";
import { createUser } from "../helpers/users.ts";
import { createWorkspace } from "../helpers/workspaces.ts";
import { checkA11y, screenshot, signIn, startWebTest } from "../helpers/browser.ts";
import { startFakeS3 } from "../fakes/s3.ts";
import { PNG, uploadMedia } from "../helpers/media_files.ts";
import { waitFor } from "../helpers/wait.ts";

Deno.test(
  "an S3 asset store: the editor shows a post's picture from the bucket, which the page's policy allows",
  e2e,
  async () => {
    const s3 = await startFakeS3();
    const web = await startWebTest(s3.env);
    try {
      const { stack } = web;
      const bucketOrigin = new URL(s3.endpoint).origin;

      // The page's policy names the bucket's origin for pictures, and only for pictures.
      const shell = await fetch(`${stack.url}/`);
      await shell.body?.cancel();
      const csp = shell.headers.get("content-security-policy") ?? "";
      const imgSrc = csp.split("; ").find((d) => d.startsWith("img-src ")) ?? "";
      assert.equal(imgSrc, `img-src 'self' data: blob: ${bucketOrigin}`);
      assert.equal(csp.split(bucketOrigin).length, 2, "the bucket appears in img-src only");

      const owner = await createUser(stack, { name: "Sam Store" });
      const wsId = await createWorkspace(stack, owner, "Pictures");
      const created = await api(stack, "POST", "/api/posts", {
        token: owner.access_token,
        body: { workspace_id: wsId, title: "Launch", content: "Launch: the text" },
      });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      const postId = created.body.post_id as string;
      await uploadMedia(stack, owner.access_token, { workspaceId: wsId, postId }, {
        filename: "cover.png",
        contentType: "image/png",
        bytes: PNG,
      });

      // The Get signs the download URL on the bucket's origin.
      const post = await api(stack, "GET", `/api/posts/${postId}?workspaceId=${wsId}`, {
        token: owner.access_token,
      });
      const downloadUrl = post.body.media?.[0]?.downloadUrl as string;
      assert.equal(new URL(downloadUrl).origin, bucketOrigin);

      const page = await web.newPage();
      const refused: string[] = [];
      page.on("console", (msg) => {
        if (/Content Security Policy/i.test(msg.text())) refused.push(msg.text());
      });
      await page.goto(`${stack.url}/workspaces/${wsId}/posts/${postId}`);
      await signIn(page, owner.email, owner.password);
      await page.getByRole("heading", { name: "Media" }).waitFor();
      await waitFor(
        () =>
          page.evaluate(`(() => {
            const images = Array.from(document.querySelectorAll(".media-thumb img"));
            return images.length === 1 && images.every((img) => img.complete && img.naturalWidth > 0);
          })()`) as Promise<boolean>,
        "the picture loaded from the bucket",
        10_000,
      );
      const src = await page.locator(".media-thumb img").getAttribute("src");
      assert.equal(new URL(src ?? "", stack.url).origin, bucketOrigin);
      assert.deepEqual(refused, []);
      await checkA11y(page);
      await screenshot(page, "assets-s3-editor-1440");
      assert.deepEqual(web.pageErrors, []);
    } finally {
      await web.close();
      await s3.close();
    }
  },
);
