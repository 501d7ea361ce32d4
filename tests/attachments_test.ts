/**
 * Action attachments end to end, on both asset stores: the upload URL (camelCase keys, the
 * documented key shape, case-insensitive extensions, metadata recorded at once), the upload,
 * list (fresh downloadUrl), download and delete round trip; the refusals of the presigned
 * routes (expired, tampered, wrong Content-Type); the removal of entries whose upload never
 * arrived; and the 500 when ASSETS_URL is empty.
 */
import assert from "node:assert/strict";
import { api, e2e, startTestStack, type TestStack } from "./helpers/stack.ts";
import { createUser, type TestUser } from "./helpers/users.ts";
import { startFakeS3 } from "./fakes/s3.ts";

/** An attachment list item as the API answers it. */
interface AttachmentJson {
  key: string;
  filename: string;
  downloadUrl: string;
}

interface Fixture {
  creator: TestUser;
  member: TestUser;
  outsider: TestUser;
  ws: string;
  actionId: string;
}

async function fixture(stack: TestStack): Promise<Fixture> {
  const creator = await createUser(stack, { name: "Cora" });
  const member = await createUser(stack, { name: "Mo" });
  const outsider = await createUser(stack, { name: "Out" });
  const ws = await api(stack, "POST", "/api/workspaces", {
    token: creator.access_token,
    body: { name: "Files" },
  });
  assert.equal(ws.status, 201);
  const add = await api(stack, "POST", `/api/workspaces/${ws.body.workspace_id}/members`, {
    token: creator.access_token,
    body: { email: member.email, role: "viewer" },
  });
  assert.equal(add.status, 201);
  return await freshAction(stack, {
    creator,
    member,
    outsider,
    ws: ws.body.workspace_id,
    actionId: "",
  });
}

/** `f` with a new action of its own in the same workspace, for a step that needs a clean one. */
async function freshAction(stack: TestStack, f: Fixture): Promise<Fixture> {
  const action = await api(stack, "POST", "/api/actions", {
    token: f.creator.access_token,
    body: { workspace_id: f.ws, title: "With files", assignee_id: f.member.user_id },
  });
  assert.equal(action.status, 201);
  return { ...f, actionId: action.body.action_id };
}

function requestUpload(stack: TestStack, f: Fixture, token: string, body: Record<string, unknown>) {
  return api(stack, "POST", `/api/actions/${f.actionId}/attachments`, {
    token,
    body: { workspace_id: f.ws, ...body },
  });
}

function listAttachments(stack: TestStack, f: Fixture, token = f.member.access_token) {
  return api(stack, "GET", `/api/actions/${f.actionId}/attachments?workspaceId=${f.ws}`, {
    token,
  });
}

async function put(url: string, body: string, contentType: string) {
  const res = await fetch(url, { method: "PUT", body, headers: { "content-type": contentType } });
  await res.body?.cancel();
  return res.status;
}

/** The answer to an upload URL request of `filename` (of its extension's type unless given). */
async function uploadUrl(stack: TestStack, f: Fixture, filename: string, contentType?: string) {
  const res = await requestUpload(stack, f, f.member.access_token, { filename, contentType });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body as { uploadUrl: string; key: string; expiresIn: number };
}

/** The round trip and the route refusals, the same on either store; each step on its own action. */
async function roundTrip(t: Deno.TestContext, stack: TestStack, f: Fixture) {
  const keyOf = (g: Fixture, name: string) => `workspaces/${g.ws}/actions/${g.actionId}/${name}`;

  await t.step("the upload URL answer is 201 {uploadUrl, key, expiresIn}", async () => {
    const g = await freshAction(stack, f);
    const res = await requestUpload(stack, g, g.member.access_token, {
      filename: "C:\\Users\\mo/../Photo.PNG",
      contentType: "image/png",
    });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    assert.deepEqual(Object.keys(res.body).sort(), ["expiresIn", "key", "uploadUrl"]);
    assert.equal(res.body.key, keyOf(g, "Photo.PNG"));
    assert.equal(res.body.expiresIn, 3600);
  });

  await t.step("the entry is on the action at once, before any upload", async () => {
    const g = await freshAction(stack, f);
    await uploadUrl(stack, g, "Photo.PNG");
    const res = await api(stack, "GET", `/api/actions/${g.actionId}?workspaceId=${g.ws}`, {
      token: g.creator.access_token,
    });
    assert.equal(res.body.attachments.length, 1);
    const entry = res.body.attachments[0];
    assert.equal(entry.key, keyOf(g, "Photo.PNG"));
    assert.equal(entry.filename, "Photo.PNG");
    assert.equal(entry.uploaded_by, g.member.user_id);
    assert.match(entry.uploaded_at, /\+00:00$/);
    assert.equal(entry.downloadUrl, undefined);
  });

  await t.step("the bytes PUT to uploadUrl are what downloadUrl answers", async () => {
    const g = await freshAction(stack, f);
    const upload = await uploadUrl(stack, g, "Photo.PNG");
    assert.equal(await put(upload.uploadUrl, "PNG-BYTES", "image/png"), 200);
    const list = await listAttachments(stack, g);
    assert.equal(list.status, 200);
    assert.equal(list.body.count, 1);
    const item = list.body.items[0];
    assert.equal(item.key, upload.key);
    assert.equal(item.filename, "Photo.PNG");
    const download = await fetch(item.downloadUrl);
    assert.equal(download.status, 200);
    assert.equal(await download.text(), "PNG-BYTES");
  });

  await t.step("each list call signs a fresh downloadUrl", async () => {
    const g = await freshAction(stack, f);
    await uploadUrl(stack, g, "a.png");
    const first = (await listAttachments(stack, g)).body.items[0].downloadUrl;
    await new Promise((r) => setTimeout(r, 1100));
    const second = (await listAttachments(stack, g)).body.items[0].downloadUrl;
    assert.notEqual(first, second);
  });

  await t.step(
    "add refuses 400 (fields, extension), 403 non-member, 404 unknown action",
    async () => {
      for (
        const [body, message] of [
          [{ filename: "run.exe", contentType: "application/octet-stream" }, /filename/],
          [{ filename: "noextension" }, /filename/],
          [{ filename: "png" }, /filename/],
          [{ contentType: "image/png" }, /filename/],
          [{ filename: "   " }, /filename/],
          [{ filename: "a.png", contentType: "text/html" }, /contentType/],
        ] as [Record<string, unknown>, RegExp][]
      ) {
        const res = await requestUpload(stack, f, f.member.access_token, body);
        assert.equal(res.status, 400, JSON.stringify(body));
        assert.match(res.body.error, message);
      }
      const noWs = await api(stack, "POST", `/api/actions/${f.actionId}/attachments`, {
        token: f.member.access_token,
        body: { filename: "a.png" },
      });
      assert.equal(noWs.status, 400);
      assert.match(noWs.body.error, /workspace_id/);
      const outside = await requestUpload(stack, f, f.outsider.access_token, { filename: "a.png" });
      assert.equal(outside.status, 403);
      assert.equal(outside.body.error, "Not a workspace member");
      const unknown = await api(stack, "POST", "/api/actions/nope/attachments", {
        token: f.member.access_token,
        body: { workspace_id: f.ws, filename: "a.png" },
      });
      assert.equal(unknown.status, 404);
    },
  );

  await t.step("every allowed extension is accepted whatever its case", async () => {
    const g = await freshAction(stack, f);
    const names = ["a.png", "b.jpg", "c.JPEG", "d.Svg", "e.webp", "f.PDF"];
    for (const name of names) await uploadUrl(stack, g, name);
    const list = await listAttachments(stack, g);
    assert.deepEqual(list.body.items.map((i: AttachmentJson) => i.filename).sort(), names);
  });

  await t.step("list refuses 400 without workspaceId, 403 non-member, 404 unknown", async () => {
    const path = `/api/actions/${f.actionId}/attachments`;
    assert.equal((await api(stack, "GET", path, { token: f.member.access_token })).status, 400);
    assert.equal((await listAttachments(stack, f, f.outsider.access_token)).status, 403);
    const unknown = await api(stack, "GET", `/api/actions/nope/attachments?workspaceId=${f.ws}`, {
      token: f.member.access_token,
    });
    assert.equal(unknown.status, 404);
  });

  await t.step("delete removes the object and the entry (200 {deleted: true})", async () => {
    const g = await freshAction(stack, f);
    const kept = await uploadUrl(stack, g, "kept.png");
    const upload = await uploadUrl(stack, g, "Photo.PNG");
    assert.equal(await put(upload.uploadUrl, "PNG-BYTES", "image/png"), 200);
    const before = (await listAttachments(stack, g)).body.items.find((i: AttachmentJson) =>
      i.key === upload.key
    );
    const res = await api(
      stack,
      "DELETE",
      `/api/actions/${g.actionId}/attachments?workspaceId=${g.ws}&key=${
        encodeURIComponent(upload.key)
      }`,
      { token: g.member.access_token },
    );
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, { deleted: true });
    const list = await listAttachments(stack, g);
    assert.deepEqual(list.body.items.map((i: AttachmentJson) => i.key), [kept.key]);
    const download = await fetch(before.downloadUrl);
    await download.body?.cancel();
    assert.equal(download.status, 404);
  });

  await t.step("delete refuses 400 (workspaceId, key), 403, 404 (action, key)", async () => {
    const g = await freshAction(stack, f);
    const upload = await uploadUrl(stack, g, "kept.png");
    const base = `/api/actions/${g.actionId}/attachments`;
    const key = encodeURIComponent(upload.key);
    const token = g.member.access_token;
    assert.equal((await api(stack, "DELETE", `${base}?key=${key}`, { token })).status, 400);
    assert.equal(
      (await api(stack, "DELETE", `${base}?workspaceId=${g.ws}`, { token })).status,
      400,
    );
    const outside = await api(stack, "DELETE", `${base}?workspaceId=${g.ws}&key=${key}`, {
      token: g.outsider.access_token,
    });
    assert.equal(outside.status, 403);
    const otherKey = encodeURIComponent(keyOf(g, "never.png"));
    const gone = await api(stack, "DELETE", `${base}?workspaceId=${g.ws}&key=${otherKey}`, {
      token,
    });
    assert.equal(gone.status, 404);
    assert.equal(gone.body.error, "Attachment not found");
    const unknown = await api(
      stack,
      "DELETE",
      `/api/actions/nope/attachments?workspaceId=${g.ws}&key=${key}`,
      { token },
    );
    assert.equal(unknown.status, 404);
    assert.equal((await listAttachments(stack, g)).body.count, 1);
  });
}

Deno.test("attachments on the file: store", e2e, async (t) => {
  const stack = await startTestStack();
  try {
    const f = await fixture(stack);
    await roundTrip(t, stack, f);

    await t.step("the presigned URL points at the gateway's /assets route", async () => {
      const res = await requestUpload(stack, f, f.member.access_token, {
        filename: "x.pdf",
        contentType: "application/pdf",
      });
      assert.ok(res.body.uploadUrl.startsWith(`${stack.url}/assets/${res.body.key}?`));
    });

    await t.step("a 21st attachment is refused 400; a name again replaces its entry", async () => {
      const g = await freshAction(stack, f);
      for (let i = 0; i < 20; i++) await uploadUrl(stack, g, `${i}.png`);
      const again = await uploadUrl(stack, g, "0.png");
      const full = await requestUpload(stack, g, g.member.access_token, { filename: "20.png" });
      assert.equal(full.status, 400);
      assert.equal(full.body.error, "An action can have at most 20 attachments");
      const items = (await listAttachments(stack, g)).body.items as AttachmentJson[];
      assert.equal(items.length, 20);
      assert.equal(items.filter((i) => i.key === again.key).length, 1);
      assert.ok(!items.some((i) => i.filename === "20.png"));
    });

    await t.step("a PUT with another Content-Type than requested is refused 403", async () => {
      const res = await requestUpload(stack, f, f.member.access_token, {
        filename: "ct.pdf",
        contentType: "application/pdf",
      });
      assert.equal(await put(res.body.uploadUrl, "%PDF", "image/png"), 403);
      assert.equal(await put(res.body.uploadUrl, "%PDF", "application/pdf"), 200);
    });

    await t.step("a tampered upload URL is refused 403", async () => {
      const res = await requestUpload(stack, f, f.member.access_token, { filename: "t.png" });
      const url = new URL(res.body.uploadUrl);
      const otherKey = new URL(url);
      otherKey.pathname = otherKey.pathname.replace("t.png", "u.png");
      const longer = new URL(url);
      longer.searchParams.set("expires", String(Number(url.searchParams.get("expires")) + 3600));
      for (const target of [otherKey, longer]) {
        assert.equal(await put(target.toString(), "x", "image/png"), 403);
      }
    });

    await t.step(
      "the presigned routes need no JWT, and a plain GET without a signature is 403",
      async () => {
        await uploadUrl(stack, f, "plain.png");
        const list = await listAttachments(stack, f);
        const url = new URL(list.body.items[0].downloadUrl);
        url.search = "";
        const res = await fetch(url);
        await res.body?.cancel();
        assert.equal(res.status, 403);
      },
    );
  } finally {
    await stack.close();
  }
});

Deno.test("attachments on the s3: store (an S3-compatible server on loopback)", e2e, async (t) => {
  const s3 = await startFakeS3();
  const stack = await startTestStack(s3.env);
  try {
    const f = await fixture(stack);
    await roundTrip(t, stack, f);
    await t.step(
      "the upload URL is a SigV4 URL of the bucket that signs Content-Type",
      async () => {
        const res = await requestUpload(stack, f, f.member.access_token, { filename: "s.svg" });
        const url = new URL(res.body.uploadUrl);
        assert.equal(url.origin, s3.endpoint);
        assert.ok(url.pathname.startsWith(`/${s3.bucket}/workspaces/`));
        assert.equal(url.searchParams.get("X-Amz-Expires"), "3600");
        assert.equal(url.searchParams.get("X-Amz-SignedHeaders"), "content-type;host");
      },
    );
  } finally {
    await stack.close();
    await s3.close();
  }
});

Deno.test(
  "upload URLs expire, and entries whose upload never arrived are removed",
  e2e,
  async (t) => {
    const stack = await startTestStack({
      ATTACHMENT_URL_TTL_SECONDS: "2",
      ATTACHMENT_CLEANUP_MARGIN_SECONDS: "1",
    });
    try {
      const f = await fixture(stack);
      const arrived = await requestUpload(stack, f, f.member.access_token, { filename: "in.png" });
      const abandoned = await requestUpload(stack, f, f.member.access_token, {
        filename: "out.png",
      });
      const late = await requestUpload(stack, f, f.member.access_token, { filename: "late.png" });
      assert.equal(arrived.body.expiresIn, 2);

      await t.step("an upload before expiry is stored", async () => {
        assert.equal(await put(arrived.body.uploadUrl, "IN", "image/png"), 200);
      });

      await t.step("an upload after expiry is refused 403", async () => {
        await new Promise((r) => setTimeout(r, 3100));
        assert.equal(await put(late.body.uploadUrl, "LATE", "image/png"), 403);
      });

      await t.step("after expiry and the margin, only the uploaded entry is left", async () => {
        const deadline = Date.now() + 10_000;
        let keys: string[] = [];
        while (Date.now() < deadline) {
          keys = (await listAttachments(stack, f)).body.items.map((i: AttachmentJson) => i.key);
          if (keys.length === 1) break;
          await new Promise((r) => setTimeout(r, 200));
        }
        assert.deepEqual(keys, [arrived.body.key]);
        assert.ok(abandoned.body.key.endsWith("/out.png"));
      });
    } finally {
      await stack.close();
    }
  },
);

Deno.test("with ASSETS_URL empty the attachment routes answer 500", e2e, async () => {
  const stack = await startTestStack({ ASSETS_URL: "" });
  try {
    const f = await fixture(stack);
    const token = f.member.access_token;
    const base = `/api/actions/${f.actionId}/attachments`;
    const answers = [
      await requestUpload(stack, f, token, { filename: "a.png" }),
      await api(stack, "GET", `${base}?workspaceId=${f.ws}`, { token }),
    ];
    for (const res of answers) {
      assert.equal(res.status, 500);
      assert.equal(res.body.error, "Asset storage not configured");
    }
    // The action itself still works.
    const action = await api(stack, "GET", `/api/actions/${f.actionId}?workspaceId=${f.ws}`, {
      token,
    });
    assert.equal(action.status, 200);
    assert.deepEqual(action.body.attachments, []);
  } finally {
    await stack.close();
  }
});
