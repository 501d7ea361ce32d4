// deno-lint-ignore-file no-explicit-any -- API answers are checked field by field
import assert from "node:assert/strict";
import { strToU8, Zip, ZipDeflate, zipSync } from "fflate";
import { api, e2e, startTestStack, TEST_ADMIN, type TestStack } from "./helpers/stack.ts";
import { createUser, login, loginAdmin, signupConfirmed, type TestUser } from "./helpers/users.ts";
import { waitFor } from "./helpers/wait.ts";

/** Small enough for the zip bomb below, far above what the filled stack holds. */
const TEST_ENV = { RESTORE_MAX_BYTES: String(32 * 1024 * 1024) };
const ATTACHMENT = strToU8("%PDF-1.4 a tiny attachment\n");

interface World {
  owner: TestUser;
  editor: TestUser;
  pendingEmail: string;
  workspaceId: string;
  postId: string;
  actionId: string;
}

const has = (stack: TestStack, name: string) => stack.services.some((s) => s.name === name);

async function ok(
  res: Promise<{ status: number; body: any }>,
  status = 200,
): Promise<any> {
  const r = await res;
  assert.equal(r.status, status, JSON.stringify(r.body));
  return r.body;
}

/** Puts something in every service through the public API. */
async function fill(stack: TestStack): Promise<World> {
  const owner = await createUser(stack, { name: "Olga Owner" });
  const editor = await createUser(stack, { name: "Ed Editor" });
  const pending = await signupConfirmed(stack, { name: "Pia Pending" });
  const as = (u: TestUser) => (method: string, path: string, body?: unknown) =>
    api(stack, method, path, { token: u.access_token, body });
  const o = as(owner);
  const ws = await ok(o("POST", "/api/workspaces", { name: "Round trip", description: "d" }), 201);
  const workspaceId = ws.workspace_id;
  await ok(
    o("POST", `/api/workspaces/${workspaceId}/members`, {
      email: editor.email,
      role: "editor",
    }),
    201,
  );
  await ok(
    o("POST", `/api/workspaces/${workspaceId}/members`, {
      email: "invitee@example.test",
    }),
    201,
  );
  await ok(o("PUT", "/api/audiences", {
    workspace_id: workspaceId,
    audiences: [{ id: "devs", name: "Developers" }],
  }));
  const deleted = await ok(o("POST", "/api/workspaces", { name: "Gone" }), 201);
  await ok(o("DELETE", `/api/workspaces/${deleted.workspace_id}`), 204);
  let postId = "";
  if (has(stack, "ideas")) {
    await ok(
      o("POST", "/api/ideas", {
        workspace_id: workspaceId,
        title: "Backups are worth testing. Really.",
        tags: ["ops"],
      }),
      201,
    );
  }
  if (has(stack, "prompts")) {
    await ok(
      o("POST", "/api/prompts", {
        workspace_id: workspaceId,
        name: "House style",
        system_instruction: "Write well.",
        user_template: "Write about {idea_title}",
      }),
      201,
    );
  }
  if (has(stack, "posts")) {
    const post = await ok(
      o("POST", "/api/posts", {
        workspace_id: workspaceId,
        title: "A post",
        content: "Hello, restore.",
        tags: ["t"],
      }),
      201,
    );
    postId = post.post_id;
    await ok(o("PUT", `/api/posts/${postId}/status`, {
      workspace_id: workspaceId,
      status: "published",
    }));
    const comment = await ok(
      as(editor)("POST", `/api/posts/${postId}/comments`, {
        workspace_id: workspaceId,
        body: "Nice",
      }),
      201,
    );
    await ok(o("POST", `/api/posts/${postId}/comments/${comment.comment_id}/replies`, {
      workspace_id: workspaceId,
      body: "Thanks",
    }));
    await ok(
      o("POST", "/api/examples", {
        workspace_id: workspaceId,
        title: "Example",
        content: "An example post",
      }),
      201,
    );
  }
  let actionId = "";
  if (has(stack, "actions")) {
    const action = await ok(
      o("POST", "/api/actions", {
        workspace_id: workspaceId,
        title: "Review the post",
        assignee_id: editor.user_id,
      }),
      201,
    );
    actionId = action.action_id;
    const upload = await ok(
      o("POST", `/api/actions/${actionId}/attachments`, {
        workspace_id: workspaceId,
        filename: "brief.pdf",
        contentType: "application/pdf",
      }),
      201,
    );
    const put = await fetch(upload.uploadUrl, {
      method: "PUT",
      body: ATTACHMENT,
      headers: { "content-type": "application/pdf" },
    });
    await put.body?.cancel();
    assert.equal(put.status, 200);
  }
  return { owner, editor, pendingEmail: pending.email, workspaceId, postId, actionId };
}

/** Every resource the world has, as the API answers it (URLs replaced by their bytes). */
async function snapshot(stack: TestStack, admin: TestUser, w: World) {
  const get = async (u: TestUser, path: string) => {
    const res = await api(stack, "GET", path, { token: u.access_token });
    return { status: res.status, body: res.body };
  };
  const q = `workspaceId=${w.workspaceId}`;
  const users = await get(admin, "/api/admin/users");
  // Ordered by email: an account mapped to another id may sort elsewhere in the id order.
  users.body?.users?.sort((x: { email: string }, y: { email: string }) =>
    x.email < y.email ? -1 : 1
  );
  const out: Record<string, unknown> = {
    users,
    workspaces: await get(admin, "/api/admin/workspaces"),
    metrics: await get(admin, "/api/admin/metrics"),
  };
  for (const u of [w.owner, w.editor]) {
    out[`${u.email} me`] = await get(u, "/api/auth/me");
    out[`${u.email} workspaces`] = await get(u, "/api/workspaces");
  }
  const o = w.owner;
  out.workspace = await get(o, `/api/workspaces/${w.workspaceId}`);
  out.members = await get(o, `/api/workspaces/${w.workspaceId}/members`);
  out.audiences = await get(o, `/api/audiences?${q}`);
  out.languages = await get(o, `/api/languages?${q}`);
  if (has(stack, "ideas")) out.ideas = await get(o, `/api/ideas?${q}`);
  if (has(stack, "prompts")) out.prompts = await get(o, `/api/prompts?${q}`);
  if (has(stack, "posts")) {
    out.posts = await get(o, `/api/posts?${q}`);
    out.post = await get(o, `/api/posts/${w.postId}?${q}`);
    out.comments = await get(o, `/api/posts/${w.postId}/comments?${q}`);
    out.examples = await get(o, `/api/examples?${q}`);
  }
  if (has(stack, "actions")) {
    out.actions = await get(o, `/api/actions?${q}`);
    const attachments = await get(o, `/api/actions/${w.actionId}/attachments?${q}`);
    const items = (attachments.body?.items ?? []) as { downloadUrl: string }[];
    out.attachments = {
      status: attachments.status,
      items: await Promise.all(items.map(async ({ downloadUrl, ...rest }) => {
        const res = await fetch(downloadUrl);
        return { ...rest, bytes: [...await res.bytes()] };
      })),
    };
  }
  return out;
}

/** `snap` with the admin's id replaced by the id the admin account has in `stack` now. */
async function withAdminIdOf(stack: TestStack, admin: TestUser, snap: unknown, oldId: string) {
  const users = await api(stack, "GET", "/api/admin/users", { token: admin.access_token });
  const now = users.body.users.find((u: { email: string }) => u.email === TEST_ADMIN.email);
  return JSON.parse(JSON.stringify(snap).replaceAll(oldId, now.user_id));
}

async function waitForJob(stack: TestStack, admin: TestUser, jobId: string) {
  return await waitFor(
    async () => {
      const res = await api(stack, "GET", `/api/admin/restores/${jobId}`, {
        token: admin.access_token,
      });
      assert.equal(res.status, 200);
      return (res.body.status === "succeeded" || res.body.status === "failed") && res.body;
    },
    "the restore job to finish",
    20_000,
  );
}

async function restore(stack: TestStack, admin: TestUser, key: string) {
  const res = await api(stack, "POST", "/api/admin/backups/restore", {
    token: admin.access_token,
    body: { key },
  });
  assert.equal(res.status, 200);
  assert.equal(res.body.started, true);
  assert.equal(typeof res.body.message, "string");
  return await waitForJob(stack, admin, res.body.job_id);
}

/** Uploads `bytes` the way a client imports a backup: upload URL, then PUT. */
async function upload(stack: TestStack, admin: TestUser, bytes: Uint8Array): Promise<string> {
  const res = await api(stack, "POST", "/api/admin/backups/upload-url", {
    token: admin.access_token,
  });
  assert.equal(res.status, 200);
  const put = await fetch(res.body.url, {
    method: "PUT",
    body: bytes as Uint8Array<ArrayBuffer>,
    headers: { "content-type": "application/zip" },
  });
  await put.body?.cancel();
  assert.equal(put.status, 200);
  return res.body.key;
}

/** Wipes every service's keyspace (but the signing keys) through the import route. */
async function wipe(stack: TestStack, services = stack.services.map((s) => s.name)) {
  for (const name of services) {
    if (name === "admin") continue;
    const res = await stack.internal(name, "POST", "/internal/backup/import");
    await res.body?.cancel();
  }
}

Deno.test("backup and restore", e2e, async (t) => {
  const a = await startTestStack(TEST_ENV);
  const b = await startTestStack(TEST_ENV);
  try {
    const adminA = await loginAdmin(a);
    const world = await fill(a);
    const before = await snapshot(a, adminA, world);
    for (const [name, answer] of Object.entries(before)) {
      assert.equal((answer as { status: number }).status, 200, `${name} answered in the snapshot`);
    }
    assert.equal((before.attachments as { items: unknown[] } | undefined)?.items.length ?? 1, 1);
    // The backup every step starts from: no step depends on another's outcome.
    const created = await api(a, "POST", "/api/admin/backups", { token: adminA.access_token });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const backup: Record<string, any> = created.body;
    const zipBytes = await (async () => {
      const url = await api(a, "GET", `/api/admin/backups/download?key=${backup.key}`, {
        token: adminA.access_token,
      });
      return await (await fetch(url.body.url)).bytes();
    })();

    await t.step("create answers 201 with the counts and stores a ZIP", () => {
      assert.match(backup.timestamp, /^\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}\.\d{3}Z$/);
      assert.equal(backup.key, `_backups/${backup.timestamp}.zip`);
      assert.ok(backup.item_count > 10);
      assert.equal(backup.asset_count, has(a, "actions") ? 1 : 0);
      assert.match(backup.created_at, /\+00:00$/);
      assert.equal(zipBytes.length, backup.size_bytes);
      assert.deepEqual([...zipBytes.subarray(0, 4)], [0x50, 0x4b, 0x03, 0x04]);
    });

    await t.step("wipe then restore gives back identical answers for every resource", async () => {
      await wipe(a);
      const empty = await api(a, "GET", "/api/workspaces", { token: world.owner.access_token });
      assert.deepEqual(empty.body.workspaces, [], "the wipe removed the data");
      const job = await restore(a, adminA, backup.key);
      assert.equal(job.status, "succeeded", job.error);
      assert.equal(job.key, backup.key);
      assert.equal(job.error, null);
      assert.match(job.started_at, /\+00:00$/);
      assert.match(job.finished_at, /\+00:00$/);
      // The wipe made the bootstrap admin anew; the backup's admin records now use its id.
      const expected = await withAdminIdOf(a, adminA, before, adminA.user_id);
      assert.deepEqual(await snapshot(a, adminA, world), expected);
    });

    await t.step("a restore cut short can run again to the same end state", async () => {
      // What a crash part-way leaves: some keyspaces replaced, others wiped, stray assets.
      await wipe(a, ["auth", "workspaces", "posts"]);
      const assetsDir = `${a.dataDir}/assets/stray`;
      await Deno.mkdir(assetsDir, { recursive: true });
      await Deno.writeTextFile(`${assetsDir}/file.txt`, "not in the backup");
      const job = await restore(a, adminA, backup.key);
      assert.equal(job.status, "succeeded", job.error);
      const expected = await withAdminIdOf(a, adminA, before, adminA.user_id);
      assert.deepEqual(await snapshot(a, adminA, world), expected);
      await assert.rejects(() => Deno.stat(`${assetsDir}/file.txt`), Deno.errors.NotFound);
    });

    await t.step(
      "another deployment restores an uploaded backup, mapping users by email",
      async () => {
        const adminB = await loginAdmin(b);
        const key = await upload(b, adminB, zipBytes);
        assert.match(key, /^_backups\/upload-.*\.zip$/);
        const job = await restore(b, adminB, key);
        assert.equal(job.status, "succeeded", job.error);
        // The admin account of B has its own id; everything of A's admin now points to it.
        const expected = await withAdminIdOf(b, adminB, before, adminA.user_id);
        const users = await api(b, "GET", "/api/admin/users", { token: adminB.access_token });
        assert.ok(users.body.users.some((u: { user_id: string }) => u.user_id === adminB.user_id));
        assert.deepEqual(users.body, expected.users.body);
        const ws = await api(b, "GET", "/api/admin/workspaces", { token: adminB.access_token });
        assert.deepEqual(ws.body, expected.workspaces.body);
        // Members log in with the passwords they had; B's own tokens keep verifying.
        const owner = {
          ...world.owner,
          ...(await login(b, world.owner.email, world.owner.password)),
        };
        const editor = {
          ...world.editor,
          ...(await login(b, world.editor.email, world.editor.password)),
        };
        const got = await snapshot(b, adminB, { ...world, owner, editor });
        for (const key of Object.keys(expected)) {
          if (key === "users" || key === "metrics") continue; // the logins above changed these
          assert.deepEqual(got[key], expected[key], key);
        }
      },
    );

    await t.step("the list is newest first by creation time, imported ones included", async () => {
      const adminB = await loginAdmin(b);
      const imported = await upload(b, adminB, zipBytes);
      const created = await api(b, "POST", "/api/admin/backups", { token: adminB.access_token });
      assert.equal(created.status, 201);
      const list = await api(b, "GET", "/api/admin/backups", { token: adminB.access_token });
      assert.equal(list.status, 200);
      const keys = list.body.backups.map((x: { key: string }) => x.key);
      assert.equal(keys[0], created.body.key, "the newest backup comes before the older upload");
      assert.ok(keys.includes(imported));
      const times = list.body.backups.map((x: { created_at: string }) => Date.parse(x.created_at));
      assert.deepEqual(times, [...times].sort((x, y) => y - x));
      for (const item of list.body.backups) {
        assert.deepEqual(Object.keys(item).sort(), [
          "created_at",
          "key",
          "size_bytes",
          "timestamp",
        ]);
        assert.ok(item.size_bytes > 0);
      }
      const uploaded = list.body.backups.find((x: { key: string }) => x.key === imported);
      assert.equal(uploaded.timestamp, imported.slice("_backups/".length, -".zip".length));
      assert.equal(uploaded.size_bytes, zipBytes.length);
    });

    await t.step("bad archives end in a failed job and change nothing", async () => {
      // Whatever state A is in, a refused archive leaves it as it was.
      const state = async () => ({
        snap: await snapshot(a, adminA, world),
        assets: await Array.fromAsync(Deno.readDir(`${a.dataDir}/assets`), (e) => e.name),
      });
      const unchanged = await state();
      const manifest = strToU8(JSON.stringify({
        format: "content-pipeline-backup",
        version: 1,
        timestamp: "x",
        created_at: "x",
        item_count: 0,
        asset_count: 1,
        services: {},
        assets: [{ key: "bomb.bin", size: 0, content_type: "application/octet-stream" }],
      }));
      const cases: [string, Uint8Array, RegExp][] = [
        [
          "../ path",
          zipSync({ "manifest.json": manifest, "../evil.txt": strToU8("x") }),
          /path that escapes the archive/,
        ],
        [
          "nested ../ path",
          zipSync({ "manifest.json": manifest, "assets/a/../../../etc/passwd": strToU8("x") }),
          /path that escapes the archive/,
        ],
        ["zip bomb", await zipBomb(manifest, 64 * 1024 * 1024), /decompresses to more than/],
        ["not a ZIP", strToU8("just some text, not a zip at all"), /not a ZIP archive/],
        // Lines KV itself would refuse: caught before anything is replaced, not by the
        // import of that keyspace after it was wiped and earlier ones were replaced.
        [
          "a key longer than KV allows",
          kvArchive("workspaces", { k: ["workspaces", "x".repeat(2040)], v: {} }),
          /kv\/workspaces\.ndjson line 1 cannot be restored: its key is 2054 bytes, more than the 2048 KV allows/,
        ],
        [
          "a value larger than KV allows",
          kvArchive("workspaces", { k: ["workspaces", "big"], v: { name: "z".repeat(65536) } }),
          /kv\/workspaces\.ndjson line 1 cannot be restored: its value is \d+ bytes, more than the 65536 KV allows/,
        ],
        [
          "unknown manifest",
          zipSync({ "manifest.json": strToU8('{"format":"other","version":9}') }),
          /manifest is not one this service understands/,
        ],
      ];
      for (const [name, bytes, error] of cases) {
        const key = await upload(a, adminA, bytes);
        const job = await restore(a, adminA, key);
        assert.equal(job.status, "failed", name);
        assert.match(job.error, error, name);
        assert.doesNotMatch(job.error, /\n\s+at |file:\/\//, `${name}: no stack in the answer`);
        assert.ok(job.finished_at, name);
        const now = await state();
        assert.deepEqual(now.snap, unchanged.snap, name);
        assert.deepEqual(now.assets.sort(), unchanged.assets.sort(), name);
      }
      await assert.rejects(() => Deno.stat(`${a.dataDir}/evil.txt`), Deno.errors.NotFound);
    });
  } finally {
    await a.close();
    await b.close();
  }
});

/** An archive that passes every check but KV's own limits: one keyspace of one `line`. */
function kvArchive(service: string, line: { k: unknown[]; v: unknown }): Uint8Array {
  return zipSync({
    [`kv/${service}.ndjson`]: strToU8(JSON.stringify(line) + "\n"),
    "manifest.json": strToU8(JSON.stringify({
      format: "content-pipeline-backup",
      version: 1,
      timestamp: "x",
      created_at: "x",
      item_count: 1,
      asset_count: 0,
      services: { [service]: { entries: 1 } },
      assets: [],
    })),
  });
}

/** A small ZIP whose one asset inflates to `size` zero bytes. */
function zipBomb(manifest: Uint8Array, size: number): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    const parts: Uint8Array[] = [];
    const zip = new Zip((err, chunk, final) => {
      if (err) return reject(err);
      parts.push(chunk);
      if (final) {
        const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
        let at = 0;
        for (const p of parts) out.set(p, (at += p.length) - p.length);
        resolve(out);
      }
    });
    const bomb = new ZipDeflate("assets/bomb.bin", { level: 9 });
    zip.add(bomb);
    const zeros = new Uint8Array(1024 * 1024);
    for (let i = 0; i < size / zeros.length; i++) bomb.push(zeros, false);
    bomb.push(new Uint8Array(0), true);
    const m = new ZipDeflate("manifest.json", { level: 9 });
    zip.add(m);
    m.push(manifest, true);
    zip.end();
  });
}

Deno.test(
  "an uploaded backup over 25 MiB is accepted and read whole by the restore",
  e2e,
  async () => {
    const stack = await startTestStack(TEST_ENV);
    try {
      const admin = await loginAdmin(stack);
      // 26 MiB of random bytes, stored (not deflated): over the 25 MiB attachment limit.
      const big = new Uint8Array(26 * 1024 * 1024);
      for (let o = 0; o < big.length; o += 65536) {
        crypto.getRandomValues(
          big.subarray(o, o + 65536),
        );
      }
      const manifest = strToU8(JSON.stringify({
        format: "content-pipeline-backup",
        version: 1,
        timestamp: "x",
        created_at: "x",
        item_count: 0,
        asset_count: 1,
        services: {},
        assets: [{ key: "other.bin", size: big.length, content_type: "application/octet-stream" }],
      }));
      const zip = zipSync({ "assets/big.bin": [big, { level: 0 }], "manifest.json": manifest });
      assert.ok(zip.length > 25 * 1024 * 1024);
      const key = await upload(stack, admin, zip);
      const list = await api(stack, "GET", "/api/admin/backups", { token: admin.access_token });
      const listed = list.body.backups.find((x: { key: string }) => x.key === key);
      assert.equal(listed?.size_bytes, zip.length, "the whole archive was stored");
      // The restore reads to the manifest at the end, so it sees the asset list differ.
      const job = await restore(stack, admin, key);
      assert.equal(job.status, "failed");
      assert.match(job.error, /assets in the archive differ from the manifest's list/);
    } finally {
      await stack.close();
    }
  },
);
