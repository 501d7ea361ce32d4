import assert from "node:assert/strict";
import { api, e2e, startTestStack } from "./helpers/stack.ts";
import { createUser, type TestUser } from "./helpers/users.ts";
import { createWorkspace } from "./helpers/workspaces.ts";
import { startFakeChatCompletions } from "./fakes/chat_completions.ts";

Deno.test("ideas", e2e, async (t) => {
  const ai = startFakeChatCompletions({ defaultAnswer: { content: "AI made this title" } });
  const stack = await startTestStack({
    OPENAI_BASE_URL: ai.baseUrl,
    OPENAI_API_KEY: "fake-key",
    OPENAI_MODEL: "fake-model",
  });
  try {
    const owner = await createUser(stack, { name: "Owner" });
    const member = await createUser(stack, { name: "Member" });
    const outsider = await createUser(stack, { name: "Outsider" });
    const as = (u: TestUser) => u.access_token;

    /** A fresh workspace of the owner's with the member in it: each step starts from its own. */
    const fresh = () => createWorkspace(stack, owner, "Ideas WS", [[member, "editor"]]);
    /** `fresh()` with the owner's first idea, titled by the fake AI "AI made this title". */
    const withFirst = async () => {
      const ws = await fresh();
      ai.reset();
      ai.setDefault({ content: "AI made this title" });
      const res = await api(stack, "POST", "/api/ideas", {
        token: as(owner),
        body: { workspace_id: ws, title: "We should write about remote work. It matters." },
      });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      return { ws, first: res.body };
    };

    await t.step("create stores the text as description and the AI's title as title", async () => {
      const { ws, first } = await withFirst();
      assert.equal(first.title, "AI made this title");
      assert.equal(first.description, "We should write about remote work. It matters.");
      assert.equal(first.status, "new");
      assert.equal(first.linked_post_id, null);
      assert.deepEqual(first.tags, []);
      assert.equal(first.source_url, "");
      assert.equal(first.workspace_id, ws);
      assert.equal(first.created_by, owner.user_id);
      assert.match(first.created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+00:00$/);
      assert.equal(ai.requests.length, 1);
      const sent = ai.requests[0].messages.map((m) => m.content).join("\n");
      assert.match(sent, /remote work/);
      assert.equal(ai.requests[0].model, "fake-model");
    });

    await t.step(
      "every idea route answers 403 to a non-member, even for an unknown workspace",
      async () => {
        const { ws, first } = await withFirst();
        const id = first.idea_id as string;
        const calls: [string, string, unknown?][] = [
          ["POST", "/api/ideas", { workspace_id: ws, title: "x" }],
          ["GET", `/api/ideas?workspaceId=${ws}`],
          ["GET", `/api/ideas/${id}?workspaceId=${ws}`],
          ["PUT", `/api/ideas/${id}`, { workspace_id: ws, title: "t" }],
          ["DELETE", `/api/ideas/${id}?workspaceId=${ws}`],
          ["PUT", `/api/ideas/${id}/status`, { workspace_id: ws, status: "converted" }],
          ["GET", `/api/ideas/nope?workspaceId=no-such-workspace`],
        ];
        for (const [method, path, body] of calls) {
          const res = await api(stack, method, path, { token: as(outsider), body });
          assert.equal(res.status, 403, `${method} ${path}`);
          assert.deepEqual(res.body, { error: "Not a workspace member" });
        }
        const unauth = await api(stack, "GET", `/api/ideas?workspaceId=${ws}`);
        assert.equal(unauth.status, 401);
      },
    );

    await t.step(
      "list filters by status, tags (all of them) and author, newest first",
      async () => {
        const { ws, first } = await withFirst();
        const mk = async (u: TestUser, title: string, tags: string[]) =>
          (await api(stack, "POST", "/api/ideas", {
            token: as(u),
            body: { workspace_id: ws, title, tags, source_url: "https://example.test/a" },
          })).body;
        const a = await mk(owner, "Alpha idea", ["ai", "ops"]);
        const b = await mk(member, "Beta idea", ["ai"]);
        const c = await mk(member, "Gamma idea", ["ops", "ai"]);
        assert.equal(b.source_url, "https://example.test/a");
        await api(stack, "PUT", `/api/ideas/${c.idea_id}/status`, {
          token: as(member),
          body: { workspace_id: ws, status: "converted" },
        });
        const all = await api(stack, "GET", `/api/ideas?workspaceId=${ws}`, { token: as(member) });
        assert.equal(all.status, 200);
        assert.equal(all.body.count, 4);
        assert.deepEqual(all.body.items.map((i: { idea_id: string }) => i.idea_id), [
          c.idea_id,
          b.idea_id,
          a.idea_id,
          first.idea_id,
        ]);
        const ids = async (query: string) =>
          (await api(stack, "GET", `/api/ideas?workspaceId=${ws}&${query}`, { token: as(owner) }))
            .body.items.map((i: { idea_id: string }) => i.idea_id);
        assert.deepEqual(await ids("tags=ai,ops"), [c.idea_id, a.idea_id]);
        assert.deepEqual(await ids("tags=ai&authorId=" + member.user_id), [c.idea_id, b.idea_id]);
        assert.deepEqual(await ids("status=new&tags=ai"), [b.idea_id, a.idea_id]);
        assert.deepEqual(await ids(`status=converted&authorId=${owner.user_id}`), []);
        const missing = await api(stack, "GET", "/api/ideas", { token: as(owner) });
        assert.equal(missing.status, 400);
        assert.match(missing.body.error, /workspaceId/);
        const badStatus = await api(stack, "GET", `/api/ideas?workspaceId=${ws}&status=old`, {
          token: as(owner),
        });
        assert.equal(badStatus.status, 400);
        // A blank filter is no filter, like an absent one.
        const everything = [c.idea_id, b.idea_id, a.idea_id, first.idea_id];
        assert.deepEqual(await ids("status="), everything);
        assert.deepEqual(await ids("status=%20&authorId=&tags="), everything);
        assert.deepEqual(await ids(`status=&authorId=${member.user_id}`), [c.idea_id, b.idea_id]);
      },
    );

    await t.step(
      "get answers the idea, 400 without workspaceId, 404 for an unknown id",
      async () => {
        const { ws, first } = await withFirst();
        const id = first.idea_id as string;
        const res = await api(stack, "GET", `/api/ideas/${id}?workspaceId=${ws}`, {
          token: as(member),
        });
        assert.equal(res.status, 200);
        assert.deepEqual(res.body, first);
        assert.equal(
          (await api(stack, "GET", `/api/ideas/${id}`, { token: as(member) })).status,
          400,
        );
        const unknown = await api(stack, "GET", `/api/ideas/nope?workspaceId=${ws}`, {
          token: as(member),
        });
        assert.equal(unknown.status, 404);
        assert.deepEqual(unknown.body, { error: "Idea not found" });
      },
    );

    await t.step("an idea addressed through another workspace is not found", async () => {
      const { first } = await withFirst();
      const other = await createWorkspace(stack, owner, "Ideas WS");
      const res = await api(stack, "GET", `/api/ideas/${first.idea_id}?workspaceId=${other}`, {
        token: as(owner),
      });
      assert.equal(res.status, 404);
    });

    await t.step(
      "a tag of 200 characters is kept; one longer is a 400 naming the tag once",
      async () => {
        const ws = await fresh();
        const kept = await api(stack, "POST", "/api/ideas", {
          token: as(owner),
          body: { workspace_id: ws, title: "Tagged", tags: ["ok", "a".repeat(200)] },
        });
        assert.equal(kept.status, 201, JSON.stringify(kept.body));
        assert.deepEqual(kept.body.tags, ["ok", "a".repeat(200)]);
        const long = await api(stack, "POST", "/api/ideas", {
          token: as(owner),
          body: { workspace_id: ws, title: "Tagged", tags: ["ok", "a".repeat(201)] },
        });
        assert.deepEqual([long.status, long.body], [400, {
          error: "tags.1: each tag is at most 200 characters",
        }]);
        const update = await api(stack, "PUT", `/api/ideas/${kept.body.idea_id}`, {
          token: as(owner),
          body: { workspace_id: ws, tags: ["b".repeat(201)] },
        });
        assert.deepEqual([update.status, update.body], [400, {
          error: "tags.0: each tag is at most 200 characters",
        }]);
      },
    );

    await t.step(
      "update changes the given fields, trims the title and ignores status",
      async () => {
        const { ws, first } = await withFirst();
        const id = first.idea_id as string;
        const res = await api(stack, "PUT", `/api/ideas/${id}`, {
          token: as(member),
          body: {
            workspace_id: ws,
            title: "  New title  ",
            description: "New description",
            source_url: "https://example.test/s",
            tags: ["x", "y"],
            status: "converted",
          },
        });
        assert.equal(res.status, 200, JSON.stringify(res.body));
        assert.equal(res.body.title, "New title");
        assert.equal(res.body.description, "New description");
        assert.equal(res.body.source_url, "https://example.test/s");
        assert.deepEqual(res.body.tags, ["x", "y"]);
        assert.equal(res.body.status, "new");
        assert.ok(res.body.updated_at >= (first.updated_at as string));
        const partial = await api(stack, "PUT", `/api/ideas/${id}`, {
          token: as(member),
          body: { workspace_id: ws, tags: [] },
        });
        assert.equal(partial.body.title, "New title");
        assert.deepEqual(partial.body.tags, []);
      },
    );

    await t.step(
      "update answers 400 for a blank or over-500 title or blank workspace_id, 404 unknown",
      async () => {
        const { ws, first } = await withFirst();
        const id = first.idea_id as string;
        for (const title of ["   ", "x".repeat(501)]) {
          const res = await api(stack, "PUT", `/api/ideas/${id}`, {
            token: as(owner),
            body: { workspace_id: ws, title },
          });
          assert.equal(res.status, 400);
          assert.match(res.body.error, /title/);
        }
        const ok500 = await api(stack, "PUT", `/api/ideas/${id}`, {
          token: as(owner),
          body: { workspace_id: ws, title: "y".repeat(500) },
        });
        assert.equal(ok500.status, 200);
        const noWs = await api(stack, "PUT", `/api/ideas/${id}`, {
          token: as(owner),
          body: { title: "t" },
        });
        assert.equal(noWs.status, 400);
        assert.match(noWs.body.error, /workspace_id/);
        const unknown = await api(stack, "PUT", `/api/ideas/nope`, {
          token: as(owner),
          body: { workspace_id: ws, title: "t" },
        });
        assert.equal(unknown.status, 404);
      },
    );

    await t.step(
      "status moves only from new to converted; other moves are 409 with the message",
      async () => {
        const ws = await fresh();
        const idea = (await api(stack, "POST", "/api/ideas", {
          token: as(owner),
          body: { workspace_id: ws, title: "Status idea" },
        })).body;
        const put = (status: unknown, extra: Record<string, unknown> = {}) =>
          api(stack, "PUT", `/api/ideas/${idea.idea_id}/status`, {
            token: as(owner),
            body: { workspace_id: ws, status, ...extra },
          });
        const same = await put("new");
        assert.equal(same.status, 409);
        assert.deepEqual(same.body, { error: "Transition from 'new' to 'new' is not allowed" });
        const blank = await put("  ");
        assert.equal(blank.status, 400);
        assert.match(blank.body.error, /status/);
        const bad = await put("archived");
        assert.equal(bad.status, 400);
        assert.match(bad.body.error, /status/);
        const noWs = await api(stack, "PUT", `/api/ideas/${idea.idea_id}/status`, {
          token: as(owner),
          body: { status: "converted" },
        });
        assert.equal(noWs.status, 400);
        const ok = await put("converted");
        assert.equal(ok.status, 200);
        assert.equal(ok.body.status, "converted");
        assert.equal(ok.body.linked_post_id, null);
        const back = await put("new");
        assert.equal(back.status, 409);
        assert.deepEqual(back.body, {
          error: "Transition from 'converted' to 'new' is not allowed",
        });
        const again = await put("converted");
        assert.deepEqual(again.body, {
          error: "Transition from 'converted' to 'converted' is not allowed",
        });
        const unknown = await api(stack, "PUT", `/api/ideas/nope/status`, {
          token: as(owner),
          body: { workspace_id: ws, status: "converted" },
        });
        assert.equal(unknown.status, 404);
      },
    );

    await t.step("delete removes the idea for good, any status; 404 the second time", async () => {
      const { ws, first } = await withFirst();
      const id = first.idea_id as string;
      const before = await (await stack.internal("ideas", "GET", "/internal/stats")).json();
      const res = await api(stack, "DELETE", `/api/ideas/${id}?workspaceId=${ws}`, {
        token: as(member),
      });
      assert.equal(res.status, 200);
      assert.deepEqual(res.body, { deleted: true });
      const gone = await api(stack, "GET", `/api/ideas/${id}?workspaceId=${ws}`, {
        token: as(member),
      });
      assert.equal(gone.status, 404);
      const again = await api(stack, "DELETE", `/api/ideas/${id}?workspaceId=${ws}`, {
        token: as(member),
      });
      assert.equal(again.status, 404);
      assert.equal(
        (await api(stack, "DELETE", `/api/ideas/${id}`, { token: as(member) })).status,
        400,
      );
      const after = await (await stack.internal("ideas", "GET", "/internal/stats")).json();
      assert.equal(after.total_ideas, before.total_ideas - 1);
    });

    await t.step(
      "internal routes: get, create literally, convert idempotently, MCP update, stats",
      async () => {
        const ws = await fresh();
        const before = await (await stack.internal("ideas", "GET", "/internal/stats")).json();
        const created = await stack.internal("ideas", "POST", "/internal/ideas", {
          workspace_id: ws,
          title: "Literal MCP title",
          description: "d",
          tags: ["m"],
          created_by: member.user_id,
        });
        assert.equal(created.status, 201);
        const idea = await created.json();
        assert.equal(idea.title, "Literal MCP title");
        assert.equal(idea.status, "new");
        const got = await stack.internal("ideas", "GET", `/internal/ideas/${idea.idea_id}`);
        assert.equal((await got.json()).idea_id, idea.idea_id);
        const unknown = await stack.internal("ideas", "GET", "/internal/ideas/nope");
        assert.equal(unknown.status, 404);
        await unknown.body?.cancel();
        const conv = await stack.internal(
          "ideas",
          "POST",
          `/internal/ideas/${idea.idea_id}/convert`,
          {
            post_id: "post-1",
          },
        );
        const converted = await conv.json();
        assert.equal(converted.status, "converted");
        assert.equal(converted.linked_post_id, "post-1");
        const same = await stack.internal(
          "ideas",
          "POST",
          `/internal/ideas/${idea.idea_id}/convert`,
          {
            post_id: "post-1",
          },
        );
        assert.equal(same.status, 200);
        await same.body?.cancel();
        const other = await stack.internal(
          "ideas",
          "POST",
          `/internal/ideas/${idea.idea_id}/convert`,
          { post_id: "post-2" },
        );
        assert.equal(other.status, 409);
        assert.deepEqual(await other.json(), {
          error: "Transition from 'converted' to 'converted' is not allowed",
        });
        const mcp = await stack.internal("ideas", "PUT", `/internal/ideas/${idea.idea_id}/mcp`, {
          workspace_id: ws,
          status: "new",
        });
        const updated = await mcp.json();
        assert.equal(updated.status, "new");
        assert.deepEqual(updated.tags, ["m"]);
        const badStatus = await stack.internal(
          "ideas",
          "PUT",
          `/internal/ideas/${idea.idea_id}/mcp`,
          {
            workspace_id: ws,
            status: "whatever",
          },
        );
        assert.equal(badStatus.status, 400);
        await badStatus.body?.cancel();
        const missing = await stack.internal("ideas", "PUT", "/internal/ideas/nope/mcp", {
          workspace_id: ws,
          tags: [],
        });
        assert.equal(missing.status, 404);
        await missing.body?.cancel();
        const stats = await (await stack.internal("ideas", "GET", "/internal/stats")).json();
        const listed = await api(stack, "GET", `/api/ideas?workspaceId=${ws}`, {
          token: as(owner),
        });
        assert.equal(stats.total_ideas, before.total_ideas + listed.body.count);
      },
    );

    await t.step("the public OpenAPI document lists the idea routes", async () => {
      const doc = await api(stack, "GET", "/api/openapi.json");
      for (const path of ["/api/ideas", "/api/ideas/{id}", "/api/ideas/{id}/status"]) {
        assert.ok(doc.body.paths[path], `${path} missing`);
      }
    });
  } finally {
    await stack.close();
    await ai.close();
  }
});
