import assert from "node:assert/strict";
import { sha256Hex } from "../shared/crypto/ids.ts";
import { api, e2e, startTestStack, type TestStack } from "./helpers/stack.ts";
import { createUser, type TestUser } from "./helpers/users.ts";
import { createWorkspace } from "./helpers/workspaces.ts";
import { startFakeChatCompletions } from "./fakes/chat_completions.ts";

/** A wire timestamp: ISO 8601 with milliseconds and the offset written `+00:00`. */
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}\+00:00$/;

const capture = (stack: TestStack, token: string | null, body: unknown) =>
  api(stack, "POST", "/api/quick-capture", {
    body,
    headers: token === null ? {} : { "X-Capture-Token": token },
  });

async function newToken(stack: TestStack, user: TestUser, ws: string) {
  const res = await api(stack, "POST", "/api/quick-capture/token", {
    token: user.access_token,
    body: { workspace_id: ws },
  });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body as { token: string; api_url: string; token_id: string };
}

async function getIdea(stack: TestStack, user: TestUser, ws: string, id: string) {
  const res = await api(stack, "GET", `/api/ideas/${id}?workspaceId=${ws}`, {
    token: user.access_token,
  });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body;
}

Deno.test("quick capture", e2e, async (t) => {
  const ai = startFakeChatCompletions({ defaultAnswer: { content: "Captured by AI" } });
  const stack = await startTestStack({ OPENAI_BASE_URL: ai.baseUrl, OPENAI_API_KEY: "k" });
  try {
    const owner = await createUser(stack, { name: "Owner" });
    const member = await createUser(stack, { name: "Member" });
    const outsider = await createUser(stack, { name: "Outsider" });

    /** A fresh workspace of the owner's with the member in it: each step starts from its own. */
    const fresh = () => createWorkspace(stack, owner, "QC", [[member, "viewer"]]);
    /** `fresh()` with a capture token of the member's for it. */
    const withToken = async () => {
      const ws = await fresh();
      return { ws, memberToken: (await newToken(stack, member, ws)).token };
    };

    await t.step("creating a token answers a random token and the capture address", async () => {
      const ws = await fresh();
      const a = await newToken(stack, member, ws);
      const b = await newToken(stack, member, ws);
      assert.equal(a.api_url, `${stack.env.PUBLIC_URL}/api/quick-capture`);
      assert.notEqual(a.token, b.token);
      // base64url of at least 16 random bytes (128 bits) is at least 22 characters
      assert.ok(a.token.length >= 22, `token ${a.token} is too short`);
    });

    await t.step(
      "token creation: 400 without workspace_id, 403 for a non-member, 401 without JWT",
      async () => {
        const ws = await fresh();
        const noWs = await api(stack, "POST", "/api/quick-capture/token", {
          token: member.access_token,
          body: {},
        });
        assert.equal(noWs.status, 400);
        assert.match(noWs.body.error, /workspace_id/);
        const outside = await api(stack, "POST", "/api/quick-capture/token", {
          token: outsider.access_token,
          body: { workspace_id: ws },
        });
        assert.equal(outside.status, 403);
        assert.deepEqual(outside.body, { error: "Not a workspace member" });
        const anon = await api(stack, "POST", "/api/quick-capture/token", {
          body: { workspace_id: ws },
        });
        assert.equal(anon.status, 401);
        const anonDelete = await api(stack, "DELETE", "/api/quick-capture/token");
        assert.equal(anonDelete.status, 401);
      },
    );

    await t.step("a capture creates an idea by the token's user with the AI title", async () => {
      const { ws, memberToken } = await withToken();
      ai.reset();
      ai.setDefault({ content: "Captured by AI" });
      const res = await capture(stack, memberToken, {
        title: "Quick thought about hiring juniors",
        tags: ["hiring"],
        description: "ignored",
      });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      assert.deepEqual(Object.keys(res.body).sort(), ["idea_id", "status"]);
      assert.equal(res.body.status, "created");
      const idea = await getIdea(stack, owner, ws, res.body.idea_id);
      assert.equal(idea.title, "Captured by AI");
      assert.equal(idea.description, "Quick thought about hiring juniors");
      assert.deepEqual(idea.tags, ["hiring"]);
      assert.equal(idea.created_by, member.user_id);
      assert.equal(idea.status, "new");
      assert.equal(ai.requests.length, 1);
    });

    await t.step("the store keeps only the token's hash", async () => {
      const { memberToken } = await withToken();
      const kv = await Deno.openKv(`${stack.dataDir}/ideas.kv`);
      try {
        let sawHash = false;
        const hash = await sha256Hex(memberToken);
        for await (const e of kv.list({ prefix: [] })) {
          const text = JSON.stringify(e.key) +
            JSON.stringify(e.value, (_k, v) => typeof v === "bigint" ? String(v) : v);
          assert.ok(!text.includes(memberToken), `token stored in clear under ${e.key}`);
          if (text.includes(hash)) sawHash = true;
        }
        assert.ok(sawHash, "the token's hash is not stored");
      } finally {
        kv.close();
      }
    });

    await t.step("checks run in order: header, token, membership, title", async () => {
      const { memberToken } = await withToken();
      const noHeader = await capture(stack, null, { title: "" });
      assert.equal(noHeader.status, 401);
      assert.ok(noHeader.body.error);
      const unknown = await capture(stack, "not-a-real-token", { title: "" });
      assert.equal(unknown.status, 401);
      assert.ok(unknown.body.error);
      const blank = await capture(stack, memberToken, { title: "   " });
      assert.equal(blank.status, 400);
      assert.deepEqual(blank.body, { error: "title is required" });
      const missing = await capture(stack, memberToken, {});
      assert.deepEqual(missing.body, { error: "title is required" });
      const notJson = await capture(stack, memberToken, "not json");
      assert.deepEqual(notJson.body, { error: "title is required" });
    });

    await t.step(
      "a body that is not JSON is refused 415 only after header, token and membership",
      async () => {
        const { ws, memberToken } = await withToken();
        const send = (token: string | null) =>
          fetch(`${stack.url}/api/quick-capture`, {
            method: "POST",
            headers: {
              "content-type": "text/plain",
              ...(token ? { "X-Capture-Token": token } : {}),
            },
            body: JSON.stringify({ title: "Typed as text" }),
          }).then(async (res) => ({ status: res.status, body: await res.json() }));
        assert.deepEqual(await send(null), {
          status: 401,
          body: { error: "Missing X-Capture-Token header" },
        });
        assert.deepEqual(await send("not-a-real-token"), {
          status: 401,
          body: { error: "Invalid or revoked capture token" },
        });
        assert.deepEqual(await send(memberToken), {
          status: 415,
          body: { error: "Content-Type must be application/json" },
        });
        const removed = await api(
          stack,
          "DELETE",
          `/api/workspaces/${ws}/members/${member.user_id}`,
          {
            token: owner.access_token,
          },
        );
        assert.equal(removed.status, 204);
        assert.deepEqual(await send(memberToken), {
          status: 403,
          body: { error: "Not a workspace member" },
        });
        const ideas = await api(stack, "GET", `/api/ideas?workspaceId=${ws}`, {
          token: owner.access_token,
        });
        assert.equal(ideas.body.count, 0);
      },
    );

    await t.step(
      "an oversized or malformed body is judged only after header and token",
      async () => {
        const { memberToken } = await withToken();
        const post = (token: string | null, body: string) =>
          fetch(`${stack.url}/api/quick-capture`, {
            method: "POST",
            headers: {
              "content-type": "application/json",
              ...(token ? { "X-Capture-Token": token } : {}),
            },
            body,
          }).then(async (res) => ({ status: res.status, body: await res.json() }));
        const huge = JSON.stringify({ title: "x".repeat(1024 * 1024 + 10) });
        const lone = '{"title":"\\ud800 idea"}';
        for (const body of [huge, lone]) {
          assert.deepEqual(await post(null, body), {
            status: 401,
            body: { error: "Missing X-Capture-Token header" },
          });
          assert.deepEqual(await post("not-a-real-token", body), {
            status: 401,
            body: { error: "Invalid or revoked capture token" },
          });
        }
        assert.deepEqual(await post(memberToken, huge), {
          status: 413,
          body: { error: "Request body is larger than 1 MiB" },
        });
        assert.deepEqual(await post(memberToken, lone), {
          status: 400,
          body: { error: "title contains invalid characters" },
        });
        const ok = await post(memberToken, JSON.stringify({ title: "Still captures" }));
        assert.equal(ok.status, 201, JSON.stringify(ok.body));
      },
    );

    await t.step("a revoked token is refused with 401", async () => {
      const ws = await fresh();
      const { token } = await newToken(stack, owner, ws);
      const kv = await Deno.openKv(`${stack.dataDir}/ideas.kv`);
      try {
        const key = ["qc_tokens", await sha256Hex(token)];
        const entry = await kv.get<Record<string, unknown>>(key);
        assert.ok(entry.value);
        await kv.set(key, { ...entry.value, revoked: true });
      } finally {
        kv.close();
      }
      const res = await capture(stack, token, { title: "x" });
      assert.equal(res.status, 401);
    });

    await t.step(
      "a new token leaves earlier ones working; delete removes only the active one",
      async () => {
        const { ws, memberToken } = await withToken();
        const older = await newToken(stack, member, ws);
        const active = await newToken(stack, member, ws);
        assert.equal((await capture(stack, older.token, { title: "older works" })).status, 201);
        assert.equal((await capture(stack, active.token, { title: "active works" })).status, 201);
        const del = await api(stack, "DELETE", "/api/quick-capture/token", {
          token: member.access_token,
        });
        assert.equal(del.status, 204);
        assert.equal(del.body, null);
        assert.equal((await capture(stack, active.token, { title: "deleted" })).status, 401);
        assert.equal((await capture(stack, older.token, { title: "still works" })).status, 201);
        assert.equal((await capture(stack, memberToken, { title: "first one too" })).status, 201);
        const again = await api(stack, "DELETE", "/api/quick-capture/token", {
          token: member.access_token,
        });
        assert.equal(again.status, 204);
        assert.equal((await capture(stack, older.token, { title: "untouched" })).status, 201);
        const none = await api(stack, "DELETE", "/api/quick-capture/token", {
          token: outsider.access_token,
        });
        assert.equal(none.status, 204);
      },
    );

    await t.step(
      "a user lists their capture tokens and can revoke an older one, nobody else can",
      async () => {
        const writer = await createUser(stack, { name: "Writer" });
        const ws = await createWorkspace(stack, writer, "Tokens");
        const other = await createWorkspace(stack, writer, "Other");
        const older = await newToken(stack, writer, ws);
        const elsewhere = await newToken(stack, writer, other);
        const latest = await newToken(stack, writer, ws);
        const list = async (user: TestUser) => {
          const res = await api(stack, "GET", "/api/quick-capture/tokens", {
            token: user.access_token,
          });
          assert.equal(res.status, 200, JSON.stringify(res.body));
          return res.body as {
            items: {
              token_id: string;
              workspace_id: string;
              created_at: string;
              last_used_at: string | null;
              active: boolean;
            }[];
            count: number;
          };
        };
        const listed = await list(writer);
        assert.equal(listed.count, 3);
        assert.deepEqual(
          listed.items.map((i) => [i.token_id, i.workspace_id, i.active, i.last_used_at]),
          [
            [latest.token_id, ws, true, null],
            [elsewhere.token_id, other, false, null],
            [older.token_id, ws, false, null],
          ],
        );
        assert.deepEqual(Object.keys(listed.items[0]).sort(), [
          "active",
          "created_at",
          "last_used_at",
          "token_id",
          "workspace_id",
        ]);
        const text = JSON.stringify(listed);
        for (const { token } of [older, elsewhere, latest]) {
          assert.ok(!text.includes(token), "a listed token never shows its value");
          assert.ok(!text.includes(await sha256Hex(token)), "nor its hash");
        }
        assert.deepEqual((await list(outsider)).items, [], "only the caller's own tokens");

        // A capture notes the use; another right after does not write it again.
        assert.equal((await capture(stack, older.token, { title: "older in use" })).status, 201);
        const used = (await list(writer)).items.find((i) => i.token_id === older.token_id)!;
        assert.ok(used.last_used_at, "last_used_at is set by a capture");
        assert.ok(Date.now() - Date.parse(used.last_used_at) < 60_000);
        assert.match(used.created_at, TIMESTAMP);
        assert.match(used.last_used_at, TIMESTAMP);
        await new Promise((r) => setTimeout(r, 20));
        assert.equal((await capture(stack, older.token, { title: "again" })).status, 201);
        const again = (await list(writer)).items.find((i) => i.token_id === older.token_id)!;
        assert.equal(again.last_used_at, used.last_used_at, "written at most once a minute");

        const revoke = (user: TestUser, id: string) =>
          api(stack, "DELETE", `/api/quick-capture/tokens/${id}`, { token: user.access_token });
        const foreign = await revoke(outsider, older.token_id);
        assert.deepEqual([foreign.status, foreign.body], [404, {
          error: "Capture token not found",
        }]);
        assert.equal((await revoke(writer, "01UNKNOWNTOKEN")).status, 404);
        assert.equal(
          (await api(stack, "DELETE", `/api/quick-capture/tokens/${older.token_id}`)).status,
          401,
        );
        assert.equal((await capture(stack, older.token, { title: "still mine" })).status, 201);

        const revoked = await revoke(writer, older.token_id);
        assert.deepEqual([revoked.status, revoked.body], [200, { deleted: true }]);
        assert.equal((await capture(stack, older.token, { title: "revoked" })).status, 401);
        assert.equal((await revoke(writer, older.token_id)).status, 404, "revoked once");
        assert.equal((await capture(stack, latest.token, { title: "latest" })).status, 201);
        assert.equal((await capture(stack, elsewhere.token, { title: "other" })).status, 201);
        assert.deepEqual((await list(writer)).items.map((i) => i.token_id), [
          latest.token_id,
          elsewhere.token_id,
        ]);

        // Revoking the active token by id leaves no active one; DELETE .../token then has
        // nothing to delete and the remaining token keeps working.
        assert.equal((await revoke(writer, latest.token_id)).status, 200);
        assert.equal((await capture(stack, latest.token, { title: "gone" })).status, 401);
        const none = await api(stack, "DELETE", "/api/quick-capture/token", {
          token: writer.access_token,
        });
        assert.equal(none.status, 204);
        assert.equal((await capture(stack, elsewhere.token, { title: "kept" })).status, 201);
        const rest = await list(writer);
        assert.deepEqual(rest.items.map((i) => [i.token_id, i.active]), [
          [elsewhere.token_id, false],
        ]);

        // DELETE .../token takes the active token off the list too.
        const fresh = await newToken(stack, writer, ws);
        assert.equal(
          (await api(stack, "DELETE", "/api/quick-capture/token", {
            token: writer.access_token,
          })).status,
          204,
        );
        assert.ok(!(await list(writer)).items.some((i) => i.token_id === fresh.token_id));
      },
    );

    await t.step(
      "a capture succeeds with the fallback title while the AI backend errors",
      async () => {
        const { ws, memberToken } = await withToken();
        ai.reset();
        ai.setDefault({ status: 500 });
        const text = "The backend is down today. Still, this idea must survive.";
        const res = await capture(stack, memberToken, { title: text });
        assert.equal(res.status, 201);
        const idea = await getIdea(stack, owner, ws, res.body.idea_id);
        assert.equal(idea.title, "The backend is down today");
        assert.equal(idea.description, text);
        assert.ok(ai.requests.length >= 1);
        ai.setDefault({ status: 429 });
        const throttled = await capture(stack, memberToken, { title: "Throttled again. Yes." });
        assert.equal(throttled.status, 201);
        const t2 = await getIdea(stack, owner, ws, throttled.body.idea_id);
        assert.equal(t2.title, "Throttled again");
      },
    );

    await t.step(
      "a capture succeeds with the fallback title when the AI is slower than 5 s",
      async () => {
        const { ws, memberToken } = await withToken();
        ai.reset();
        ai.setDefault({ delayMs: 8_000, content: "Too late" });
        const started = Date.now();
        const res = await capture(stack, memberToken, { title: "Slow AI day! Keep going" });
        const elapsed = Date.now() - started;
        assert.equal(res.status, 201);
        assert.ok(elapsed < 6_500, `capture took ${elapsed} ms`);
        const idea = await getIdea(stack, owner, ws, res.body.idea_id);
        assert.equal(idea.title, "Slow AI day");
        ai.setDefault({ content: "fast again" });
      },
    );

    await t.step(
      "a token whose user left the workspace is refused with 403 before the title check",
      async () => {
        const ws = await fresh();
        const { token } = await newToken(stack, member, ws);
        const removed = await api(
          stack,
          "DELETE",
          `/api/workspaces/${ws}/members/${member.user_id}`,
          {
            token: owner.access_token,
          },
        );
        assert.equal(removed.status, 204, JSON.stringify(removed.body));
        const res = await capture(stack, token, { title: "" });
        assert.equal(res.status, 403);
        assert.deepEqual(res.body, { error: "Not a workspace member" });
      },
    );

    await t.step("the OpenAPI document lists the quick capture routes", async () => {
      const doc = await api(stack, "GET", "/api/openapi.json");
      assert.ok(doc.body.paths["/api/quick-capture"]?.post);
      assert.ok(doc.body.paths["/api/quick-capture/token"]?.post);
      assert.ok(doc.body.paths["/api/quick-capture/token"]?.delete);
      assert.ok(doc.body.paths["/api/quick-capture/tokens"]?.get);
      assert.ok(doc.body.paths["/api/quick-capture/tokens/{token_id}"]?.delete);
    });
  } finally {
    await stack.close();
    await ai.close();
  }
});
