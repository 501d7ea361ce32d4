import assert from "node:assert/strict";
import { api } from "./stack.ts";

/** Small real files of each media type, for the media tests. */
const bytes = (base64: string) => Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));

/** A 1×1 PNG. */
export const PNG = bytes(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==",
);
/** A 1×1 JPEG. */
export const JPEG = bytes(
  "/9j/4AAQSkZJRgABAQEASABIAAD/2wBDAP//////////////////////////////////////////////////////////////////////////////////////wgALCAABAAEBAREA/8QAFBABAAAAAAAAAAAAAAAAAAAAAP/aAAgBAQABPxA=",
);
/** A 1×1 GIF. */
export const GIF = bytes("R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7");
/** A minimal one-page PDF. */
export const PDF = new TextEncoder().encode(
  "%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n" +
    "2 0 obj<</Type/Pages/Kids[3 0 R]/Count 1>>endobj\n" +
    "3 0 obj<</Type/Page/Parent 2 0 R/MediaBox[0 0 200 200]>>endobj\n" +
    "trailer<</Root 1 0 R>>\n%%EOF\n",
);

/** SHA-256 (hex) of `data`, to compare what LinkedIn received with what was uploaded. */
export async function sha256(data: Uint8Array): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", data as Uint8Array<ArrayBuffer>);
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}

/**
 * Adds a file to a post as its next media through the API (the upload grant, then the bytes
 * PUT to its single-use URL); answers the media id.
 */
export async function uploadMedia(
  stack: { url: string },
  token: string,
  post: { workspaceId: string; postId: string },
  file: { filename: string; contentType: string; bytes: Uint8Array },
): Promise<string> {
  const grant = await api(stack, "POST", `/api/posts/${post.postId}/media`, {
    token,
    body: {
      workspace_id: post.workspaceId,
      filename: file.filename,
      contentType: file.contentType,
      size: file.bytes.length,
    },
  });
  assert.equal(grant.status, 201, JSON.stringify(grant.body));
  const put = await fetch(grant.body.uploadUrl, {
    method: "PUT",
    headers: { "content-type": file.contentType },
    body: file.bytes as Uint8Array<ArrayBuffer>,
  });
  await put.body?.cancel();
  assert.equal(put.status, 200, `the bytes of ${file.filename} were stored`);
  return grant.body.media_id as string;
}
