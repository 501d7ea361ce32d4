// deno-lint-ignore-file no-explicit-any -- API answers are checked field by field
/**
 * Issue 11, items 8, 10, 11, 13 and 14: a restore brings back no session or one-time secret;
 * lone surrogates are a 400 naming the field everywhere; attachment content types must match
 * their extension and SVG/PDF download as attachments; security headers, 415 for non-JSON
 * bodies and a self-hosted Swagger UI; DATA_DIR and its files private to the service.
 */
import assert from "node:assert/strict";
import { strFromU8, strToU8, unzipSync, zipSync } from "fflate";
import { createRoute, z } from "@hono/zod-openapi";
import { api, e2e, startTestStack, type TestStack } from "./helpers/stack.ts";
import { createUser, login, loginAdmin, signupConfirmed, type TestUser } from "./helpers/users.ts";
import { startFakeChatCompletions } from "./fakes/chat_completions.ts";
import { startFakeS3 } from "./fakes/s3.ts";
import { sha256Hex } from "../shared/crypto/ids.ts";
import { createLogger } from "../shared/log.ts";
import { INTERNAL_SECRET_HEADER } from "../shared/http/identity.ts";
import { createServiceApp } from "../shared/http/service_app.ts";
import { waitFor } from "./helpers/wait.ts";

const LONE = "\ud800";

async function ok(res: Promise<{ status: number; body: any }>, status = 200): Promise<any> {
  const r = await res;
  assert.equal(r.status, status, JSON.stringify(r.body));
  return r.body;
}

// ------------------------------------------------------------------ backups leave sessions out

/** The first key part of every line of an NDJSON keyspace dump. */
const firstParts = (ndjson: string) =>
  new Set(ndjson.split("\n").filter((l) => l.trim()).map((l) => JSON.parse(l).k[0]));

const SESSION_COLLECTIONS = [
  "refresh_tokens",
  "refresh_families",
  "auth_codes",
  "ws_tickets",
  "login_failures",
  "login_tries",
  "google_states",
  "confirm_codes",
  "reset_codes",
  "setup_token",
];

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

Deno.test(
  "a restore brings back no session or one-time secret, and clears the live ones",
  e2e,
  async (t) => {
    const stack = await startTestStack();
    try {
      const admin = await loginAdmin(stack);
      const user = await createUser(stack);
      // Something of every kind: a failed login, a WebSocket ticket, a confirmation code.
      await api(stack, "POST", "/api/auth/login", {
        body: { email: user.email, password: "Wrong-passw0rd!" },
      });
      const ws = await ok(
        api(stack, "POST", "/api/workspaces", { token: user.access_token, body: { name: "W" } }),
        201,
      );
      assert.ok(ws.workspace_id);
      await ok(api(stack, "POST", "/api/ws/ticket", { token: user.access_token }));
      await api(stack, "POST", "/api/auth/signup", {
        body: {
          email: "unconfirmed@example.test",
          password: "Correct-H0rse!",
          name: "U",
          recaptcha_token: "t",
        },
      });

      let archive: Record<string, Uint8Array> = {};
      let manifest: any;
      await t.step("a backup holds no refresh token, ticket, code or login failure", async () => {
        const backup = await ok(
          api(stack, "POST", "/api/admin/backups", { token: admin.access_token }),
          201,
        );
        const url = await ok(
          api(stack, "GET", `/api/admin/backups/download?key=${backup.key}`, {
            token: admin.access_token,
          }),
        );
        archive = unzipSync(await (await fetch(url.url)).bytes());
        manifest = JSON.parse(strFromU8(archive["manifest.json"]));
        const auth = firstParts(strFromU8(archive["kv/auth.ndjson"]));
        assert.ok(auth.has("users"), "the accounts are backed up");
        for (const name of SESSION_COLLECTIONS) {
          assert.ok(!auth.has(name), `${name} is not in the backup`);
        }
      });

      await t.step(
        "a refresh token planted in the archive does not work after restore",
        async () => {
          const planted = "planted-refresh-token-0123456789abcdef";
          const family = "01PLANTEDFAMILY0000000000";
          const lines = [
            {
              k: ["refresh_tokens", await sha256Hex(planted)],
              v: {
                user_id: admin.user_id,
                family_id: family,
                expires_at: Date.now() + 86_400_000,
                used_at: null,
              },
            },
            {
              k: ["refresh_families", family],
              v: { user_id: admin.user_id, revoked: false, created_at: Date.now() },
            },
          ].map((l) => JSON.stringify(l)).join("\n") + "\n";
          const auth = strFromU8(archive["kv/auth.ndjson"]);
          archive["kv/auth.ndjson"] = strToU8(auth + lines);
          manifest.services.auth.entries += 2;
          manifest.item_count += 2;
          archive["manifest.json"] = strToU8(JSON.stringify(manifest));
          const zip = zipSync(archive);

          const upload = await ok(
            api(stack, "POST", "/api/admin/backups/upload-url", { token: admin.access_token }),
          );
          const put = await fetch(upload.url, {
            method: "PUT",
            body: zip as Uint8Array<ArrayBuffer>,
            headers: { "content-type": "application/zip" },
          });
          await put.body?.cancel();
          assert.equal(put.status, 200);
          const started = await ok(
            api(stack, "POST", "/api/admin/backups/restore", {
              token: admin.access_token,
              body: { key: upload.key },
            }),
          );
          const job = await waitForJob(stack, admin, started.job_id);
          assert.equal(job.status, "succeeded", job.error);

          const refreshed = await api(stack, "POST", "/api/auth/refresh", {
            body: { refresh_token: planted },
          });
          assert.equal(refreshed.status, 401, "the planted token gives no tokens");
        },
      );

      await t.step(
        "sessions from before the restore are gone: everyone signs in again",
        async () => {
          for (const token of [user.refresh_token, admin.refresh_token]) {
            const res = await api(stack, "POST", "/api/auth/refresh", {
              body: { refresh_token: token },
            });
            assert.equal(res.status, 401);
          }
          // The accounts themselves came back: signing in works.
          const login = await api(stack, "POST", "/api/auth/login", {
            body: { email: user.email, password: user.password },
          });
          assert.equal(login.status, 200);
          // Access tokens already issued run out their hour (the signing keys are kept).
          const me = await api(stack, "GET", "/api/auth/me", { token: admin.access_token });
          assert.equal(me.status, 200);
        },
      );

      await t.step("a keyspace import drops session lines and clears live ones", async () => {
        const body = [
          { k: ["ws_tickets", "planted"], v: { user_id: admin.user_id } },
          { k: ["auth_codes", "planted"], v: { user_id: admin.user_id } },
          { k: ["users_by_email", "x@example.test"], v: "nobody" },
        ].map((l) => JSON.stringify(l)).join("\n");
        const service = stack.services.find((s) => s.name === "auth")!;
        const res = await service.fetch(
          new Request("http://internal.invalid/internal/backup/import", {
            method: "POST",
            headers: {
              [INTERNAL_SECRET_HEADER]: "test-internal-secret-0123456789",
              "content-type": "application/x-ndjson",
            },
            body,
          }),
        );
        assert.equal(res.status, 200, await res.text());
        const exported = await stack.internal("auth", "GET", "/internal/backup/export");
        const parts = firstParts(await exported.text());
        assert.ok(parts.has("users_by_email"));
        assert.ok(!parts.has("ws_tickets") && !parts.has("auth_codes"));
      });
    } finally {
      await stack.close();
    }
  },
);

// ------------------------------------------------------------------ text that is not valid UTF-16

Deno.test(
  "lone surrogates in ids and string fields answer 400 naming the field",
  e2e,
  async (t) => {
    const ai = startFakeChatCompletions();
    const stack = await startTestStack({
      OPENAI_BASE_URL: ai.baseUrl,
      OPENAI_API_KEY: "sk-test",
      OPENAI_MODEL: "m",
    });
    try {
      const u = await createUser(stack);
      const as = (method: string, path: string, body?: unknown) =>
        api(stack, method, path, { token: u.access_token, body });
      const w = (await ok(as("POST", "/api/workspaces", { name: "W" }), 201)).workspace_id;
      const example = await ok(
        as("POST", "/api/examples", { workspace_id: w, title: "t", content: "c" }),
        201,
      );
      const idea = await ok(as("POST", "/api/ideas", { workspace_id: w, title: "An idea" }), 201);
      const prompt = await ok(
        as("POST", "/api/prompts", {
          workspace_id: w,
          name: "n",
          system_instruction: "s",
          user_template: "u",
        }),
        201,
      );
      const action = await ok(
        as("POST", "/api/actions", { workspace_id: w, title: "a", assignee_id: u.user_id }),
        201,
      );
      const post = await ok(
        as("POST", "/api/posts", { workspace_id: w, title: "p", content: "c" }),
        201,
      );

      const cases: [string, string, Record<string, unknown>, string][] = [
        ["PUT", `/api/examples/${example.example_id}`, { workspace_id: LONE }, "workspace_id"],
        ["PUT", `/api/examples/${example.example_id}`, { workspace_id: w, title: LONE }, "title"],
        [
          "POST",
          "/api/posts",
          { workspace_id: w, title: "x", source_idea_id: LONE },
          "source_idea_id",
        ],
        [
          "PUT",
          `/api/actions/${action.action_id}/status`,
          { workspace_id: LONE, status: "open" },
          "workspace_id",
        ],
        [
          "POST",
          "/api/genai/iterate",
          {
            workspace_id: w,
            post_id: post.post_id,
            instruction: "shorter",
            current_content: "c",
            prompt_id: LONE,
          },
          "prompt_id",
        ],
        [
          "PUT",
          `/api/prompts/${prompt.prompt_id}`,
          { workspace_id: LONE, name: "x" },
          "workspace_id",
        ],
        ["PUT", `/api/prompts/${prompt.prompt_id}/default`, { workspace_id: LONE }, "workspace_id"],
        [
          "PUT",
          `/api/ideas/${idea.idea_id}/status`,
          { workspace_id: LONE, status: "converted" },
          "workspace_id",
        ],
        [
          "PUT",
          `/api/ideas/${idea.idea_id}/status`,
          { workspace_id: w, status: "converted", linked_post_id: `a${LONE}b` },
          "linked_post_id",
        ],
        ["POST", "/api/posts", { workspace_id: w, title: "x", tags: ["ok", "\udc00"] }, "tags.1"],
        ["POST", "/api/workspaces", { name: `x${LONE}` }, "name"],
      ];
      for (const [method, path, body, field] of cases) {
        await t.step(`${method} ${path.replace(/[0-9A-Z]{26}/g, "{id}")} ${field}`, async () => {
          const res = await as(method, path, body);
          assert.equal(res.status, 400, JSON.stringify(res.body));
          assert.equal(res.body.error, `${field} contains invalid characters`);
        });
      }

      await t.step("nothing was written", async () => {
        const got = await ok(as("GET", `/api/examples/${example.example_id}?workspaceId=${w}`));
        assert.equal(got.title, "t");
        const posts = await ok(as("GET", `/api/posts?workspaceId=${w}`));
        assert.equal(posts.count, 1);
      });

      await t.step("a well-formed surrogate pair (an emoji) is fine", async () => {
        const res = await as("PUT", `/api/examples/${example.example_id}`, {
          workspace_id: w,
          title: "Launch \ud83d\ude80",
        });
        assert.equal(res.status, 200, JSON.stringify(res.body));
        assert.equal(res.body.title, "Launch \ud83d\ude80");
      });
    } finally {
      await stack.close();
      await ai.close();
    }
  },
);

Deno.test("an unexpected TypeError is a logged 500, not a guessed 400", async () => {
  const app = createServiceApp({ logger: createLogger("test"), internalSecret: "s".repeat(20) });
  app.get("/throws", () => {
    throw new TypeError("Key too large for write (max 2048 bytes)");
  });
  app.openapi(
    createRoute({
      method: "post",
      path: "/things",
      request: {
        body: { content: { "application/json": { schema: z.object({ a: z.array(z.string()) }) } } },
      },
      responses: { 200: { description: "ok" } },
    }),
    (c) => c.json(c.req.valid("json"), 200),
  );
  const headers = { [INTERNAL_SECRET_HEADER]: "s".repeat(20) };
  const res = await app.request("/throws", { headers });
  assert.equal(res.status, 500);
  assert.deepEqual(await res.json(), { error: "Internal server error" });
  // The same rule for internal bodies: nested paths are named.
  const nested = await app.request("/things", {
    method: "POST",
    headers: { ...headers, "content-type": "application/json" },
    body: '{"a": ["x", "\\udfff"]}',
  });
  assert.equal(nested.status, 400);
  assert.deepEqual(await nested.json(), { error: "a.1 contains invalid characters" });
});

// ------------------------------------------------------------------ attachments

async function attachmentFixture(stack: TestStack) {
  const user = await createUser(stack);
  const w = (await ok(
    api(stack, "POST", "/api/workspaces", { token: user.access_token, body: { name: "F" } }),
    201,
  )).workspace_id;
  const action = await ok(
    api(stack, "POST", "/api/actions", {
      token: user.access_token,
      body: { workspace_id: w, title: "files", assignee_id: user.user_id },
    }),
    201,
  );
  const upload = (filename: string, contentType?: string) =>
    api(stack, "POST", `/api/actions/${action.action_id}/attachments`, {
      token: user.access_token,
      body: { workspace_id: w, filename, ...(contentType ? { contentType } : {}) },
    });
  const list = async () =>
    (await ok(
      api(stack, "GET", `/api/actions/${action.action_id}/attachments?workspaceId=${w}`, {
        token: user.access_token,
      }),
    )).items as { filename: string; downloadUrl: string }[];
  return { upload, list };
}

async function checkDownloads(
  t: Deno.TestContext,
  f: Awaited<ReturnType<typeof attachmentFixture>>,
) {
  await t.step("a content type that does not match the extension is 400 naming it", async () => {
    for (
      const [name, type] of [
        ["a.png", "text/html"],
        ["a.svg", "image/png"],
        ["a.pdf", "text/html; charset=utf-8"],
        ["a.jpg", "image/png"],
        ["a.webp", "application/javascript"],
      ]
    ) {
      const res = await f.upload(name, type);
      assert.equal(res.status, 400, `${name} as ${type}`);
      assert.match(res.body.error, /^contentType must be /);
    }
    for (
      const [name, type] of [
        ["b.PNG", "image/png"],
        ["b.jpeg", "image/jpeg"],
        ["b.JPG", "IMAGE/JPEG"],
        ["b.webp", "image/webp"],
      ]
    ) {
      assert.equal((await f.upload(name, type)).status, 201, `${name} as ${type}`);
    }
  });

  await t.step("SVG and PDF download as attachments; a PNG is shown inline", async () => {
    for (
      const [name, type, bytes] of [
        ["pic.svg", "image/svg+xml", "<svg xmlns='http://www.w3.org/2000/svg'/>"],
        ["doc.pdf", "application/pdf", "%PDF-1.4"],
        ["img.png", "image/png", "PNG"],
      ]
    ) {
      const res = await f.upload(name, type);
      assert.equal(res.status, 201);
      const put = await fetch(res.body.uploadUrl, {
        method: "PUT",
        body: bytes,
        headers: { "content-type": type },
      });
      await put.body?.cancel();
      assert.equal(put.status, 200);
    }
    for (const item of await f.list()) {
      if (!["pic.svg", "doc.pdf", "img.png"].includes(item.filename)) continue;
      const res = await fetch(item.downloadUrl);
      await res.body?.cancel();
      assert.equal(res.status, 200, item.filename);
      const disposition = res.headers.get("content-disposition");
      if (item.filename === "img.png") {
        assert.equal(disposition, null);
      } else {
        assert.match(disposition ?? "", /^attachment; filename="/, item.filename);
        assert.ok(disposition!.includes(item.filename));
      }
    }
  });
}

Deno.test("attachment types match extensions (file: store)", e2e, async (t) => {
  const stack = await startTestStack();
  try {
    await checkDownloads(t, await attachmentFixture(stack));
  } finally {
    await stack.close();
  }
});

Deno.test("attachment types match extensions (s3: store)", e2e, async (t) => {
  const s3 = await startFakeS3();
  const stack = await startTestStack(s3.env);
  try {
    await checkDownloads(t, await attachmentFixture(stack));
  } finally {
    await stack.close();
    await s3.close();
  }
});

// ------------------------------------------------------------------ response headers

Deno.test("security headers, JSON-only bodies, self-hosted API docs", e2e, async (t) => {
  const stack = await startTestStack();
  try {
    const user = await createUser(stack);

    await t.step("every response says nosniff", async () => {
      for (const path of ["/healthz", "/api/openapi.json", "/api/nope", "/api/docs", "/"]) {
        const res = await fetch(stack.url + path);
        await res.body?.cancel();
        assert.equal(res.headers.get("x-content-type-options"), "nosniff", path);
      }
      const login = await api(stack, "POST", "/api/auth/login", {
        body: { email: user.email, password: user.password },
      });
      assert.equal(login.headers.get("x-content-type-options"), "nosniff");
    });

    await t.step("responses carrying tokens or API data are no-store", async () => {
      const login = await api(stack, "POST", "/api/auth/login", {
        body: { email: user.email, password: user.password },
      });
      assert.equal(login.status, 200);
      assert.equal(login.headers.get("cache-control"), "no-store");
      const refresh = await api(stack, "POST", "/api/auth/refresh", {
        body: { refresh_token: login.body.refresh_token },
      });
      assert.equal(refresh.status, 200);
      assert.equal(refresh.headers.get("cache-control"), "no-store");
      const token = refresh.body.access_token;
      const ws = await api(stack, "POST", "/api/workspaces", { token, body: { name: "H" } });
      assert.equal(ws.headers.get("cache-control"), "no-store");
      const w = ws.body.workspace_id;
      for (
        const [method, path, body] of [
          ["POST", "/api/ws/ticket", undefined],
          ["POST", "/api/quick-capture/token", { workspace_id: w }],
          ["GET", "/api/workspaces", undefined],
          ["GET", "/api/auth/me", undefined],
        ] as [string, string, unknown][]
      ) {
        const res = await api(stack, method, path, { token, body });
        assert.ok(res.status < 300, `${method} ${path}: ${JSON.stringify(res.body)}`);
        assert.equal(res.headers.get("cache-control"), "no-store", `${method} ${path}`);
      }
    });

    await t.step("a JSON route refuses a body that is not application/json (415)", async () => {
      const bodies: [Record<string, string>, BodyInit][] = [
        [{ "content-type": "text/plain;charset=UTF-8" }, JSON.stringify({ name: "x" })],
        [{ "content-type": "application/x-www-form-urlencoded" }, "name=x"],
        [{}, new Blob([JSON.stringify({ name: "x" })])],
      ];
      for (const [headers, body] of bodies) {
        const res = await fetch(`${stack.url}/api/workspaces`, {
          method: "POST",
          headers: { authorization: `Bearer ${user.access_token}`, ...headers },
          body,
        });
        assert.equal(res.status, 415, JSON.stringify(headers));
        assert.deepEqual(await res.json(), { error: "Content-Type must be application/json" });
      }
      const form = new FormData();
      form.set("name", "x");
      const multipart = await fetch(`${stack.url}/api/workspaces`, {
        method: "POST",
        headers: { authorization: `Bearer ${user.access_token}` },
        body: form,
      });
      await multipart.body?.cancel();
      assert.equal(multipart.status, 415);
      const withCharset = await fetch(`${stack.url}/api/workspaces`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${user.access_token}`,
          "content-type": "application/json; charset=utf-8",
        },
        body: JSON.stringify({ name: "Typed" }),
      });
      assert.equal(withCharset.status, 201);
      await withCharset.body?.cancel();
      // No body and no type (a DELETE, a bodiless POST) is not refused for its type.
      const del = await api(stack, "DELETE", `/api/workspaces/nonexistent`, {
        token: user.access_token,
      });
      assert.notEqual(del.status, 415);
    });

    await t.step(
      "no token, a bad one or an unapproved one is 401 before the body type",
      async () => {
        // With an unapproved token every route answers 401 except /api/auth/*; spec
        // Authentication 1: the token is verified before the handler runs.
        const pending = await signupConfirmed(stack);
        const unapproved = (await login(stack, pending.email, pending.password)).access_token;
        for (const authorization of [undefined, "Bearer not-a-jwt", `Bearer ${unapproved}`]) {
          for (const [method, path] of [["POST", "/api/workspaces"], ["PUT", "/api/ideas/x"]]) {
            const res = await fetch(stack.url + path, {
              method,
              headers: {
                "content-type": "text/plain",
                ...(authorization ? { authorization } : {}),
              },
              body: JSON.stringify({ name: "x" }),
            });
            assert.equal(res.status, 401, `${method} ${path} ${authorization?.slice(0, 16)}`);
            assert.deepEqual(await res.json(), { error: "Unauthorized" });
          }
        }
      },
    );

    await t.step("the hosted login form is not a JSON route and keeps working", async () => {
      const res = await fetch(`${stack.url}/oauth/authorize`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: "email=a%40b.c&password=x",
        redirect: "manual",
      });
      await res.body?.cancel();
      assert.notEqual(res.status, 415);
      assert.equal(res.headers.get("x-content-type-options"), "nosniff");
    });

    await t.step("/api/docs serves Swagger UI from this origin under a CSP", async () => {
      const res = await fetch(`${stack.url}/api/docs`);
      assert.equal(res.status, 200);
      const html = await res.text();
      const csp = res.headers.get("content-security-policy") ?? "";
      assert.match(csp, /default-src 'none'/);
      assert.match(csp, /script-src 'self'(;|$)/);
      assert.doesNotMatch(html, /https?:\/\//, "no CDN or other origin");
      assert.doesNotMatch(html, /<script>(?!<\/script>)/, "no inline script");
      const sources = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]);
      assert.ok(sources.includes("/api/docs/swagger-ui-bundle.js"));
      for (const src of sources) {
        const asset = await fetch(stack.url + src);
        const text = await asset.text();
        assert.equal(asset.status, 200, src);
        assert.ok(text.length > 0, src);
      }
      const bundle = await fetch(`${stack.url}/api/docs/swagger-ui-bundle.js`);
      assert.match(bundle.headers.get("content-type") ?? "", /javascript/);
      assert.match(await bundle.text(), /SwaggerUIBundle/);
      const init = await (await fetch(`${stack.url}/api/docs/init.js`)).text();
      assert.match(init, /\/api\/openapi\.json/);
    });
  } finally {
    await stack.close();
  }
});

// ------------------------------------------------------------------ file modes

Deno.test("DATA_DIR and its files are created 0700/0600", e2e, async () => {
  if (Deno.build.os === "windows") return;
  const base = await Deno.makeTempDir({ prefix: "cps-modes-" });
  await Deno.chmod(base, 0o755);
  const dataDir = `${base}/data`;
  const stack = await startTestStack({
    DATA_DIR: dataDir,
    OUTBOX_FILE: `${dataDir}/outbox.jsonl`,
  });
  try {
    // An email (the outbox) and an uploaded attachment (the asset store).
    const f = await attachmentFixture({ ...stack, outboxFile: `${dataDir}/outbox.jsonl` });
    const res = await f.upload("a.png", "image/png");
    const put = await fetch(res.body.uploadUrl, {
      method: "PUT",
      body: "PNG",
      headers: { "content-type": "image/png" },
    });
    await put.body?.cancel();
    assert.equal(put.status, 200);

    const modes: string[] = [];
    const walk = async (path: string) => {
      const info = await Deno.stat(path);
      const mode = info.mode! & 0o777;
      if (info.isDirectory) {
        if (mode !== 0o700) modes.push(`${path} is ${mode.toString(8)}`);
        for await (const e of Deno.readDir(path)) await walk(`${path}/${e.name}`);
      } else if (mode !== 0o600) {
        modes.push(`${path} is ${mode.toString(8)}`);
      }
    };
    await walk(dataDir);
    assert.deepEqual(modes, []);
    const names = [...Deno.readDirSync(dataDir)].map((e) => e.name);
    assert.ok(names.includes("auth.kv"), names.join(", "));
    assert.ok(names.includes("outbox.jsonl"));
    assert.ok(names.includes("assets"));
  } finally {
    await stack.close();
    await Deno.remove(base, { recursive: true }).catch(() => {});
  }
});
