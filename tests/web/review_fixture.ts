/**
 * Shared by the review link, mention and notification browser tests: a workspace with an owner
 * and an editor, a post with text, a first comment and images, and small real PNGs of one
 * colour (so a screenshot shows where each image went).
 */
import assert from "node:assert/strict";
import { api, type TestStack } from "../helpers/stack.ts";
import { createUser, type TestUser } from "../helpers/users.ts";

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(bytes: Uint8Array): number {
  let c = 0xffffffff;
  for (const b of bytes) c = CRC_TABLE[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type: string, data: Uint8Array): Uint8Array {
  const out = new Uint8Array(12 + data.length);
  const view = new DataView(out.buffer);
  view.setUint32(0, data.length);
  out.set(new TextEncoder().encode(type), 4);
  out.set(data, 8);
  view.setUint32(8 + data.length, crc32(out.subarray(4, 8 + data.length)));
  return out;
}

/** A `width`×`height` PNG of one colour. */
export async function solidPng(
  width: number,
  height: number,
  [r, g, b]: [number, number, number],
): Promise<Uint8Array> {
  const header = new Uint8Array(13);
  const hv = new DataView(header.buffer);
  hv.setUint32(0, width);
  hv.setUint32(4, height);
  header.set([8, 2, 0, 0, 0], 8); // 8-bit RGB
  const raw = new Uint8Array(height * (1 + width * 3));
  for (let y = 0; y < height; y++) {
    const row = y * (1 + width * 3);
    for (let x = 0; x < width; x++) raw.set([r, g, b], row + 1 + x * 3);
  }
  const stream = new Blob([raw]).stream().pipeThrough(new CompressionStream("deflate"));
  const idat = new Uint8Array(await new Response(stream).arrayBuffer());
  const parts = [
    new Uint8Array([137, 80, 78, 71, 13, 10, 26, 10]),
    chunk("IHDR", header),
    chunk("IDAT", idat),
    chunk("IEND", new Uint8Array()),
  ];
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** Adds an image to a post through its single-use upload URL. */
export async function addImage(
  stack: TestStack,
  user: TestUser,
  workspaceId: string,
  postId: string,
  filename: string,
  bytes: Uint8Array,
  altText: string,
): Promise<string> {
  const media = await api(stack, "POST", `/api/posts/${postId}/media`, {
    token: user.access_token,
    body: { workspace_id: workspaceId, filename, contentType: "image/png", size: bytes.length },
  });
  assert.equal(media.status, 201, JSON.stringify(media.body));
  const put = await fetch(media.body.uploadUrl, {
    method: "PUT",
    headers: { "content-type": "image/png" },
    body: bytes as Uint8Array<ArrayBuffer>,
  });
  await put.body?.cancel();
  assert.equal(put.status, 200);
  const alt = await api(stack, "PATCH", `/api/posts/${postId}/media/${media.body.media_id}`, {
    token: user.access_token,
    body: { workspace_id: workspaceId, alt_text: altText },
  });
  assert.equal(alt.status, 200, JSON.stringify(alt.body));
  return media.body.media_id;
}

export interface ReviewTeam {
  owner: TestUser;
  editor: TestUser;
  workspaceId: string;
}

/** An owner and an editor in a workspace; `settings` go to its PUT. */
export async function reviewTeam(
  stack: TestStack,
  settings: Record<string, unknown> = {},
  name = "Launch team",
): Promise<ReviewTeam> {
  const owner = await createUser(stack, { name: "Anna Author" });
  const editor = await createUser(stack, { name: "Bob Editor" });
  const ws = await api(stack, "POST", "/api/workspaces", {
    token: owner.access_token,
    body: { name },
  });
  assert.equal(ws.status, 201, JSON.stringify(ws.body));
  const workspaceId = ws.body.workspace_id as string;
  const member = await api(stack, "POST", `/api/workspaces/${workspaceId}/members`, {
    token: owner.access_token,
    body: { email: editor.email, role: "editor" },
  });
  assert.equal(member.status, 201, JSON.stringify(member.body));
  if (Object.keys(settings).length > 0) {
    const put = await api(stack, "PUT", `/api/workspaces/${workspaceId}`, {
      token: owner.access_token,
      body: settings,
    });
    assert.equal(put.status, 200, JSON.stringify(put.body));
  }
  return { owner, editor, workspaceId };
}

/** A post by `user` with `content` and, when given, a first comment. */
export async function makePost(
  stack: TestStack,
  user: TestUser,
  workspaceId: string,
  fields: { title: string; content: string; first_comment?: string },
): Promise<string> {
  const created = await api(stack, "POST", "/api/posts", {
    token: user.access_token,
    body: { workspace_id: workspaceId, title: fields.title, content: fields.content },
  });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  const postId = created.body.post_id as string;
  if (fields.first_comment) {
    const put = await api(stack, "PUT", `/api/posts/${postId}`, {
      token: user.access_token,
      body: { workspace_id: workspaceId, first_comment: fields.first_comment },
    });
    assert.equal(put.status, 200, JSON.stringify(put.body));
  }
  return postId;
}
