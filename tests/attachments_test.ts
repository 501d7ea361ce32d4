/**
 * Action attachments end to end, on both asset stores: the upload URL (camelCase keys, the
 * documented key shape, case-insensitive extensions, the extension's own type only, metadata
 * recorded at once), the upload, list (fresh downloadUrl), download (type and disposition) and
 * delete round trip; the refusals of the presigned routes (expired, tampered, wrong
 * Content-Type, used already, entry deleted or requested again, uploader gone); the removal of
 * entries whose upload never arrived and of stored bytes with no entry; and the 500 when
 * ASSETS_URL is empty.
 */
import assert from "node:assert/strict";
import { api, e2e, startTestStack, type TestStack } from "./helpers/stack.ts";
import { createUser, type TestUser } from "./helpers/users.ts";
import { startFakeS3 } from "./fakes/s3.ts";
import { assetStoreFromEnv } from "../shared/assets/config.ts";
import type { AssetStore } from "../shared/assets/store.ts";
import { parseBaseConfig } from "../shared/config.ts";
import { waitFor } from "./helpers/wait.ts";

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

/** The stack's asset store, as its services open it. */
async function storeOf(stack: TestStack): Promise<AssetStore> {
  const store = await assetStoreFromEnv(stack.env, parseBaseConfig(stack.env));
  assert.ok(store);
  return store;
}

async function storedText(assets: AssetStore, key: string): Promise<string | null> {
  const got = await assets.get(key);
  return got ? await new Response(got.body).text() : null;
}

/** The round trip and the route refusals, the same on either store; each step on its own action. */
async function roundTrip(t: Deno.TestContext, stack: TestStack, f: Fixture) {
  const keyOf = (g: Fixture, name: string) => `workspaces/${g.ws}/actions/${g.actionId}/${name}`;
  const assets = await storeOf(stack);
  const deleteAttachment = (g: Fixture, key: string) =>
    api(
      stack,
      "DELETE",
      `/api/actions/${g.actionId}/attachments?workspaceId=${g.ws}&key=${encodeURIComponent(key)}`,
      { token: g.member.access_token },
    );

  await t.step(
    "a .png requested as image/png;,text/html (or any type but image/png) is refused 400",
    async () => {
      const g = await freshAction(stack, f);
      for (
        const contentType of ["image/png;,text/html", "image/png; charset=utf-8", "text/html"]
      ) {
        const res = await requestUpload(stack, g, g.member.access_token, {
          filename: "x.png",
          contentType,
        });
        assert.equal(res.status, 400, contentType);
        assert.equal(res.body.error, "contentType must be image/png for a .png file");
      }
      assert.equal((await listAttachments(stack, g)).body.count, 0);
      // The type is compared case-insensitively and stored as the extension's own.
      const upload = await uploadUrl(stack, g, "y.png", "IMAGE/PNG");
      assert.equal(await put(upload.uploadUrl, "PNG", "IMAGE/PNG"), 200);
      assert.equal((await assets.get(upload.key))?.contentType, "image/png");
    },
  );

  await t.step(
    "a .png is downloaded inline as image/png, an svg and a pdf as attachments",
    async () => {
      const g = await freshAction(stack, f);
      for (
        const [name, type] of [["x.png", "image/png"], ["d.svg", "image/svg+xml"], [
          "r.pdf",
          "application/pdf",
        ]]
      ) {
        const upload = await uploadUrl(stack, g, name);
        assert.equal(await put(upload.uploadUrl, "BYTES", type), 200);
      }
      const items = (await listAttachments(stack, g)).body.items as AttachmentJson[];
      const download = async (name: string) => {
        const res = await fetch(items.find((i) => i.filename === name)!.downloadUrl);
        await res.body?.cancel();
        assert.equal(res.status, 200);
        return res.headers;
      };
      const png = await download("x.png");
      assert.equal(png.get("content-type"), "image/png");
      assert.equal(png.get("content-disposition"), null);
      for (const [name, type] of [["d.svg", "image/svg+xml"], ["r.pdf", "application/pdf"]]) {
        const headers = await download(name);
        assert.equal(headers.get("content-type"), type);
        assert.match(headers.get("content-disposition") ?? "", new RegExp(`^attachment;.*${name}`));
      }
    },
  );

  await t.step("an upload URL takes one PUT: a second is refused 409", async () => {
    const g = await freshAction(stack, f);
    const upload = await uploadUrl(stack, g, "once.png");
    assert.equal(await put(upload.uploadUrl, "FIRST", "image/png"), 200);
    const again = await fetch(upload.uploadUrl, {
      method: "PUT",
      body: "SECOND",
      headers: { "content-type": "image/png" },
    });
    assert.equal(again.status, 409);
    assert.equal(
      (await again.json()).error,
      "This upload URL has been used already: request a new one",
    );
    assert.equal(await storedText(assets, upload.key), "FIRST");
  });

  await t.step(
    "a PUT after its attachment was deleted is refused 404 and stores nothing",
    async () => {
      const g = await freshAction(stack, f);
      const unused = await uploadUrl(stack, g, "gone.png");
      const used = await uploadUrl(stack, g, "used.png");
      assert.equal(await put(used.uploadUrl, "USED", "image/png"), 200);
      for (const upload of [unused, used]) {
        assert.equal((await deleteAttachment(g, upload.key)).status, 200);
        assert.ok([404, 409].includes(await put(upload.uploadUrl, "AGAIN", "image/png")));
        assert.equal(await assets.exists(upload.key), false);
      }
      assert.equal(await put(unused.uploadUrl, "AGAIN", "image/png"), 404);
      assert.equal((await listAttachments(stack, g)).body.count, 0);
    },
  );

  await t.step(
    "a URL whose name was requested again is refused 409; the new one works",
    async () => {
      const g = await freshAction(stack, f);
      const old = await uploadUrl(stack, g, "twice.png");
      const current = await uploadUrl(stack, g, "twice.png");
      assert.equal(await put(old.uploadUrl, "OLD", "image/png"), 409);
      assert.equal(await put(current.uploadUrl, "NEW", "image/png"), 200);
      assert.equal(await storedText(assets, current.key), "NEW");
    },
  );

  await t.step("an uploader who has left the workspace can no longer upload (403)", async () => {
    const g = await freshAction(stack, f);
    const leaver = await createUser(stack, { name: "Lee" });
    const add = await api(stack, "POST", `/api/workspaces/${g.ws}/members`, {
      token: g.creator.access_token,
      body: { email: leaver.email, role: "editor" },
    });
    assert.equal(add.status, 201);
    const res = await requestUpload(stack, g, leaver.access_token, { filename: "left.png" });
    assert.equal(res.status, 201);
    const left = await api(stack, "DELETE", `/api/workspaces/${g.ws}/members/${leaver.user_id}`, {
      token: leaver.access_token,
    });
    assert.equal(left.status, 204);
    assert.equal(await put(res.body.uploadUrl, "LATE", "image/png"), 403);
    assert.equal(await assets.exists(res.body.key), false);
  });

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
      "the upload URL is the gateway's single-use URL, which streams the bytes into the bucket",
      async () => {
        // A bucket's presigned PUT could be used again and again until it expires.
        const res = await requestUpload(stack, f, f.member.access_token, { filename: "s.svg" });
        const url = new URL(res.body.uploadUrl);
        assert.equal(url.origin, stack.url);
        assert.equal(url.pathname, `/assets/${res.body.key}`);
        assert.match(url.searchParams.get("upload") ?? "", /^[A-Za-z0-9_-]{22}$/);
        assert.equal(await put(res.body.uploadUrl, "<svg/>", "image/svg+xml"), 200);
        const bucket = new URL(await (await storeOf(stack)).presignGet(res.body.key, 60));
        assert.equal(bucket.origin, s3.endpoint);
        const stored = await fetch(`${s3.endpoint}/${s3.bucket}/${res.body.key}`);
        await stored.body?.cancel();
        assert.equal(stored.headers.get("content-type"), "image/svg+xml");
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
      // Bytes with no entry, as an upload that raced the delete of its entry leaves them.
      const assets = await storeOf(stack);
      const orphan = `workspaces/${f.ws}/actions/${f.actionId}/orphan.png`;
      await assets.put(orphan, new TextEncoder().encode("ORPHAN"), "image/png");

      await t.step("an upload before expiry is stored", async () => {
        assert.equal(await put(arrived.body.uploadUrl, "IN", "image/png"), 200);
      });

      await t.step("an upload after expiry is refused 403", async () => {
        await new Promise((r) => setTimeout(r, 3100));
        assert.equal(await put(late.body.uploadUrl, "LATE", "image/png"), 403);
      });

      await t.step("after expiry and the margin, only the uploaded entry is left", async () => {
        let keys: string[] = [];
        await waitFor(async () => {
          keys = (await listAttachments(stack, f)).body.items.map((i: AttachmentJson) => i.key);
          return keys.length === 1;
        }, "the abandoned entry to be cleaned up").catch(() => {});
        assert.deepEqual(keys, [arrived.body.key]);
        assert.ok(abandoned.body.key.endsWith("/out.png"));
      });

      await t.step("stored bytes that have no entry are removed by the same cleanup", async () => {
        const prefix = `workspaces/${f.ws}/actions/${f.actionId}/`;
        let stored: string[] = [];
        await waitFor(async () => {
          stored = (await assets.list(prefix)).map((o) => o.key);
          return !stored.includes(orphan);
        }, "the orphaned bytes to be removed").catch(() => {});
        assert.deepEqual(stored, [arrived.body.key]);
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
