import assert from "node:assert/strict";
import type { WebsocketProvider } from "y-websocket";
import { openEditor } from "./helpers/live_editor.ts";
import { api, e2e, startTestStack, type TestStack } from "./helpers/stack.ts";
import { createUser, loginAdmin, type TestUser } from "./helpers/users.ts";
import { createWorkspace } from "./helpers/workspaces.ts";
import { waitFor } from "./helpers/wait.ts";

const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}\+00:00$/;

async function addMember(
  stack: TestStack,
  owner: TestUser,
  workspaceId: string,
  user: TestUser,
  role: "editor" | "viewer",
) {
  const res = await api(stack, "POST", `/api/workspaces/${workspaceId}/members`, {
    token: owner.access_token,
    body: { email: user.email, role },
  });
  assert.equal(res.status, 201, JSON.stringify(res.body));
}

async function stats(stack: TestStack) {
  const res = await stack.internal("posts", "GET", "/internal/stats");
  assert.equal(res.status, 200);
  return await res.json() as { total_posts: number; posts_published_last_30_days: number };
}

Deno.test("posts API: create, list, get, update, delete and their errors", e2e, async (t) => {
  const stack = await startTestStack();
  const providers: WebsocketProvider[] = [];
  try {
    const owner = await createUser(stack, { name: "Olga Owner" });
    const editor = await createUser(stack, { name: "Eddie Editor" });
    const viewer = await createUser(stack, { name: "Vera Viewer" });
    const outsider = await createUser(stack, { name: "Oscar Outsider" });
    const admin = await loginAdmin(stack);

    const create = (user: TestUser, body: Record<string, unknown>) =>
      api(stack, "POST", "/api/posts", { token: user.access_token, body });
    const put = (user: TestUser, id: string, body: Record<string, unknown>) =>
      api(stack, "PUT", `/api/posts/${id}`, { token: user.access_token, body });

    /**
     * A fresh workspace of the owner's (editor and viewer members) and another one, with the
     * routes that address a post through the first by default: each step starts from its own.
     */
    const team = async () => {
      const ws = await createWorkspace(stack, owner, "Posts workspace", [
        [editor, "editor"],
        [viewer, "viewer"],
      ]);
      const otherWs = await createWorkspace(stack, owner, "Other workspace");
      const get = (user: TestUser, id: string, workspaceId = ws) =>
        api(stack, "GET", `/api/posts/${id}?workspaceId=${workspaceId}`, {
          token: user.access_token,
        });
      const setStatus = (user: TestUser, id: string, status: unknown, workspaceId = ws) =>
        api(stack, "PUT", `/api/posts/${id}/status`, {
          token: user.access_token,
          body: { workspace_id: workspaceId, status },
        });
      const del = (user: TestUser, id: string, workspaceId = ws) =>
        api(stack, "DELETE", `/api/posts/${id}?workspaceId=${workspaceId}`, {
          token: user.access_token,
        });
      return { ws, otherWs, get, setStatus, del };
    };
    /** `team()` with the editor's draft "First post" ("Hello, network.") in it. */
    const withPost = async () => {
      const fixture = await team();
      const res = await create(editor, {
        workspace_id: fixture.ws,
        title: "First post",
        content: "Hello, network.",
        tags: ["ai", "devops"],
      });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      return { ...fixture, postId: res.body.post_id as string };
    };
    /** A synced live editor on the post, destroyed at the end at the latest. */
    const liveEditor = async (user: TestUser, ws: string, postId: string) => {
      const editor = await openEditor(stack, user, ws, postId);
      providers.push(editor.provider);
      return editor;
    };

    await t.step("create answers 201 with every field of a draft post", async () => {
      const { ws } = await team();
      const res = await create(editor, {
        workspace_id: ws,
        title: "First post",
        content: "Hello, network.",
        tags: ["ai", "devops"],
      });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      const post = res.body;
      assert.deepEqual(Object.keys(post).sort(), [
        "approvals",
        "approved_at",
        "approved_by",
        "author_id",
        "author_name",
        "content",
        "created_at",
        "first_comment",
        "first_comment_error",
        "linkedin_first_comment_urn",
        "linkedin_post_url",
        "linkedin_post_urn",
        "media",
        "post_id",
        "publish_as",
        "publish_error",
        "published_at",
        "reviewer_ids",
        "scheduled_at",
        "source_idea_id",
        "status",
        "tags",
        "title",
        "updated_at",
        "workspace_id",
      ]);
      assert.equal(post.workspace_id, ws);
      assert.equal(post.title, "First post");
      assert.equal(post.content, "Hello, network.");
      assert.equal(post.status, "draft");
      assert.equal(post.author_id, editor.user_id);
      assert.equal(post.author_name, "Eddie Editor");
      assert.equal(post.source_idea_id, null);
      assert.deepEqual(post.tags, ["ai", "devops"]);
      assert.equal(post.scheduled_at, null);
      assert.equal(post.published_at, null);
      assert.match(post.created_at, TIMESTAMP);
      assert.equal(post.updated_at, post.created_at);
    });

    await t.step("create with only workspace_id makes an empty draft", async () => {
      const { ws } = await team();
      const res = await create(viewer, { workspace_id: ws });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      assert.equal(res.body.title, "");
      assert.equal(res.body.content, "");
      assert.deepEqual(res.body.tags, []);
    });

    await t.step("create refuses bad input with 400 naming the field", async () => {
      const { ws } = await team();
      const missing = await create(editor, { title: "x" });
      assert.equal(missing.status, 400);
      assert.equal(missing.body.error, "workspace_id is required");
      const tags = await create(editor, { workspace_id: ws, tags: "ai" });
      assert.equal(tags.status, 400);
      assert.match(tags.body.error, /tags/);
      const longTag = await create(editor, { workspace_id: ws, tags: ["ok", "t".repeat(101)] });
      assert.deepEqual([longTag.status, longTag.body], [400, {
        error: "tags.1: each tag is at most 100 characters",
      }]);
      const title = await create(editor, { workspace_id: ws, title: "t".repeat(501) });
      assert.equal(title.status, 400);
      assert.match(title.body.error, /title/);
      const content = await create(editor, { workspace_id: ws, content: "c".repeat(40_001) });
      assert.equal(content.status, 400);
      assert.match(content.body.error, /content/);
      const longWs = await create(editor, { workspace_id: "w".repeat(3000) });
      assert.equal(longWs.status, 400);
      assert.match(longWs.body.error, /workspace_id/);
    });

    await t.step("create refuses non-members and unknown workspaces with 403", async () => {
      const { ws } = await team();
      const res = await create(outsider, { workspace_id: ws, title: "x" });
      assert.equal(res.status, 403);
      assert.deepEqual(res.body, { error: "Not a workspace member" });
      const unknown = await create(editor, { workspace_id: "no-such-workspace" });
      assert.equal(unknown.status, 403);
      assert.deepEqual(unknown.body, { error: "Not a workspace member" });
      // A platform admin who is not a member is refused like anyone else.
      const byAdmin = await create(admin, { workspace_id: ws });
      assert.equal(byAdmin.status, 403);
    });

    await t.step("get answers the post; membership is checked before existence", async () => {
      const { postId, get } = await withPost();
      const res = await get(viewer, postId);
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.equal(res.body.post_id, postId);
      assert.equal(res.body.content, "Hello, network.");
      const outsiderUnknown = await get(outsider, "no-such-post");
      assert.equal(outsiderUnknown.status, 403);
      assert.deepEqual(outsiderUnknown.body, { error: "Not a workspace member" });
      const unknown = await get(viewer, "no-such-post");
      assert.equal(unknown.status, 404);
      assert.deepEqual(unknown.body, { error: "Post not found" });
      const noWs = await api(stack, "GET", `/api/posts/${postId}`, { token: viewer.access_token });
      assert.equal(noWs.status, 400);
      assert.equal(noWs.body.error, "workspaceId is required");
    });

    await t.step("a post addressed through another workspace is not found", async () => {
      const { otherWs, postId, get, setStatus, del } = await withPost();
      assert.equal((await get(owner, postId, otherWs)).status, 404);
      assert.equal((await put(owner, postId, { workspace_id: otherWs, title: "x" })).status, 404);
      assert.equal((await setStatus(owner, postId, "approved", otherWs)).status, 404);
      assert.equal((await del(owner, postId, otherWs)).status, 404);
      assert.equal((await get(owner, postId)).body.title, "First post");
    });

    await t.step(
      "list answers {items, count} newest first, filtered by status and author",
      async () => {
        const { ws, otherWs, postId } = await withPost();
        assert.equal((await create(viewer, { workspace_id: ws })).status, 201);
        const third = await create(owner, { workspace_id: ws, title: "Third" });
        assert.equal(third.status, 201);
        const res = await api(stack, "GET", `/api/posts?workspaceId=${ws}`, {
          token: viewer.access_token,
        });
        assert.equal(res.status, 200);
        assert.equal(res.body.count, 3);
        assert.equal(res.body.items.length, 3);
        assert.equal(res.body.items[0].post_id, third.body.post_id);
        assert.equal(res.body.items[2].post_id, postId);
        assert.equal(res.body.items[2].content, "Hello, network.");
        const byAuthor = await api(
          stack,
          "GET",
          `/api/posts?workspaceId=${ws}&authorId=${owner.user_id}`,
          {
            token: viewer.access_token,
          },
        );
        assert.deepEqual(byAuthor.body.items.map((p: { post_id: string }) => p.post_id), [
          third.body.post_id,
        ]);
        assert.equal(byAuthor.body.count, 1);
        const drafts = await api(stack, "GET", `/api/posts?workspaceId=${ws}&status=published`, {
          token: viewer.access_token,
        });
        assert.deepEqual(drafts.body, { items: [], count: 0 });
        const bad = await api(stack, "GET", `/api/posts?workspaceId=${ws}&status=bogus`, {
          token: viewer.access_token,
        });
        assert.equal(bad.status, 400);
        assert.match(bad.body.error, /status/);
        const unfiltered = await api(
          stack,
          "GET",
          `/api/posts?workspaceId=${ws}&status=&authorId=`,
          {
            token: viewer.access_token,
          },
        );
        assert.equal(unfiltered.body.count, 3);
        const outsiderList = await api(stack, "GET", `/api/posts?workspaceId=${ws}`, {
          token: outsider.access_token,
        });
        assert.equal(outsiderList.status, 403);
        const noWs = await api(stack, "GET", "/api/posts", { token: viewer.access_token });
        assert.equal(noWs.status, 400);
        assert.equal(noWs.body.error, "workspaceId is required");
        const otherList = await api(stack, "GET", `/api/posts?workspaceId=${otherWs}`, {
          token: owner.access_token,
        });
        assert.deepEqual(otherList.body, { items: [], count: 0 });
      },
    );

    await t.step("update changes title, tags and scheduled_at; any member may edit", async () => {
      const { ws, postId } = await withPost();
      await new Promise((r) => setTimeout(r, 5));
      const res = await put(viewer, postId, {
        workspace_id: ws,
        title: "Renamed",
        tags: ["x"],
        scheduled_at: "2027-01-02T03:04:05Z",
        status: "published",
        author_id: viewer.user_id,
      });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.equal(res.body.title, "Renamed");
      assert.deepEqual(res.body.tags, ["x"]);
      assert.equal(res.body.scheduled_at, "2027-01-02T03:04:05.000+00:00");
      // status and author are not changed by an update
      assert.equal(res.body.status, "draft");
      assert.equal(res.body.author_id, editor.user_id);
      assert.equal(res.body.content, "Hello, network.");
      assert.ok(res.body.updated_at > res.body.created_at);
      const cleared = await put(viewer, postId, { workspace_id: ws, scheduled_at: null });
      assert.equal(cleared.body.scheduled_at, null);
      const bad = await put(viewer, postId, { workspace_id: ws, scheduled_at: "next tuesday" });
      assert.equal(bad.status, 400);
      assert.match(bad.body.error, /scheduled_at/);
      const noWs = await put(viewer, postId, { title: "x" });
      assert.equal(noWs.status, 400);
      assert.equal(noWs.body.error, "workspace_id is required");
      assert.equal((await put(outsider, postId, { workspace_id: ws, title: "x" })).status, 403);
      const unknown = await put(viewer, "nope", { workspace_id: ws, title: "x" });
      assert.deepEqual([unknown.status, unknown.body], [404, { error: "Post not found" }]);
    });

    await t.step("a REST content change is what GET answers afterwards", async () => {
      const { ws, postId, get } = await withPost();
      const res = await put(editor, postId, { workspace_id: ws, content: "Rewritten text" });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.equal(res.body.content, "Rewritten text");
      assert.equal((await get(viewer, postId)).body.content, "Rewritten text");
      const list = await api(stack, "GET", `/api/posts?workspaceId=${ws}`, {
        token: viewer.access_token,
      });
      const listed = list.body.items.find((p: { post_id: string }) => p.post_id === postId);
      assert.equal(listed.content, "Rewritten text");
    });

    await t.step(
      "a PUT of content reaches a connected editor, and its edits reach GET",
      async () => {
        const { ws, postId, get, setStatus } = await withPost();
        assert.equal(
          (await put(editor, postId, { workspace_id: ws, content: "Rewritten text" })).status,
          200,
        );
        const { provider, text } = await liveEditor(editor, ws, postId);
        assert.equal(text.toString(), "Rewritten text");
        const res = await put(owner, postId, { workspace_id: ws, content: "Pushed from REST" });
        assert.equal(res.status, 200);
        await waitFor(() => text.toString() === "Pushed from REST", "the REST text in the editor");
        text.insert(text.length, " + typed live");
        await waitFor(
          async () => (await get(viewer, postId)).body.content === "Pushed from REST + typed live",
          "the live edit in GET",
        );
        // A status change answers the live text.
        const published = await setStatus(viewer, postId, "published");
        assert.equal(published.body.content, "Pushed from REST + typed live");
        provider.destroy();
      },
    );

    await t.step("status moves any to any; published stamps published_at", async () => {
      const { ws, postId, get, setStatus } = await withPost();
      for (const status of ["in_review", "approved", "scheduled", "draft"]) {
        const res = await setStatus(viewer, postId, status);
        assert.equal(res.status, 200, JSON.stringify(res.body));
        assert.equal(res.body.status, status);
        assert.equal(res.body.published_at, null);
      }
      const published = await setStatus(viewer, postId, "published");
      assert.equal(published.status, 200);
      assert.equal(published.body.status, "published");
      assert.match(published.body.published_at, TIMESTAMP);
      assert.equal(published.body.content, "Hello, network.");
      assert.equal((await get(viewer, postId)).body.published_at, published.body.published_at);
      const bad = await setStatus(viewer, postId, "archived");
      assert.equal(bad.status, 400);
      assert.equal(
        bad.body.error,
        "status must be one of: draft, in_review, approved, scheduled, published",
      );
      const missing = await api(stack, "PUT", `/api/posts/${postId}/status`, {
        token: viewer.access_token,
        body: { workspace_id: ws },
      });
      assert.equal(missing.status, 400);
      assert.equal(missing.body.error, "status is required");
      assert.equal((await setStatus(outsider, postId, "draft")).status, 403);
      const unknown = await setStatus(viewer, "nope", "draft");
      assert.deepEqual([unknown.status, unknown.body], [404, { error: "Post not found" }]);
    });

    await t.step("admin stats count posts; a published label is not a publication", async () => {
      const before = await stats(stack);
      const { postId, setStatus } = await withPost();
      assert.equal((await setStatus(viewer, postId, "published")).status, 200);
      const now = await stats(stack);
      assert.equal(now.total_posts, before.total_posts + 1);
      // Only LinkedIn publications count (tests/publishing_test.ts).
      assert.equal(now.posts_published_last_30_days, before.posts_published_last_30_days);
      await setStatus(viewer, postId, "draft");
      assert.equal(
        (await stats(stack)).posts_published_last_30_days,
        before.posts_published_last_30_days,
      );
      await setStatus(viewer, postId, "published");
    });

    await t.step("delete: author, owner or platform admin; 403 for anyone else", async () => {
      const { ws, postId, get, setStatus, del } = await withPost();
      (await liveEditor(editor, ws, postId)).provider.destroy();
      assert.equal((await setStatus(viewer, postId, "published")).status, 200);
      const before = await stats(stack);
      const live = await stack.internal("collab", "GET", `/internal/docs/${postId}/stats`);
      await live.body?.cancel();
      assert.equal(live.status, 200, "the post has a live document");
      const refused = await del(viewer, postId);
      assert.equal(refused.status, 403);
      assert.deepEqual(refused.body, { error: "Not authorized to delete this post" });
      assert.equal((await del(outsider, postId)).status, 403);
      // A platform admin must still be a member.
      const adminRefused = await del(admin, postId);
      assert.deepEqual(adminRefused.body, { error: "Not a workspace member" });
      const comment = await api(stack, "POST", `/api/posts/${postId}/comments`, {
        token: viewer.access_token,
        body: { workspace_id: ws, body: "About to go" },
      });
      assert.equal(comment.status, 201);
      const total = (await stats(stack)).total_posts;
      const byAuthor = await del(editor, postId);
      assert.equal(byAuthor.status, 200, JSON.stringify(byAuthor.body));
      assert.deepEqual(byAuthor.body, { deleted: true });
      assert.deepEqual((await get(viewer, postId)).body, { error: "Post not found" });
      const comments = await api(stack, "GET", `/api/posts/${postId}/comments?workspaceId=${ws}`, {
        token: viewer.access_token,
      });
      assert.equal(comments.status, 404);
      assert.equal((await del(editor, postId)).status, 404);
      const after = await stats(stack);
      assert.equal(after.total_posts, total - 1);
      assert.equal(after.posts_published_last_30_days, before.posts_published_last_30_days);
      // the live document goes too
      await waitFor(async () => {
        const res = await stack.internal("collab", "GET", `/internal/docs/${postId}/stats`);
        await res.body?.cancel();
        return res.status === 404;
      }, "the live document to be deleted");

      const byOwner = await create(editor, { workspace_id: ws, title: "Owner removes" });
      assert.equal((await del(owner, byOwner.body.post_id)).status, 200);
      await addMember(stack, owner, ws, admin, "viewer");
      const byAdmin = await create(editor, { workspace_id: ws, title: "Admin removes" });
      assert.equal((await del(admin, byAdmin.body.post_id)).status, 200);
    });

    await t.step("source_idea_id converts the idea and links it to the post", async () => {
      const { ws, otherWs } = await team();
      const idea = await api(stack, "POST", "/api/ideas", {
        token: editor.access_token,
        body: { workspace_id: ws, title: "An idea worth a post" },
      });
      assert.equal(idea.status, 201, JSON.stringify(idea.body));
      const ideaId = idea.body.idea_id;
      const res = await create(editor, {
        workspace_id: ws,
        title: "From idea",
        source_idea_id: ideaId,
      });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      assert.equal(res.body.source_idea_id, ideaId);
      const after = await api(stack, "GET", `/api/ideas/${ideaId}?workspaceId=${ws}`, {
        token: editor.access_token,
      });
      assert.equal(after.body.status, "converted");
      assert.equal(after.body.linked_post_id, res.body.post_id);

      const count = (await stats(stack)).total_posts;
      const again = await create(editor, { workspace_id: ws, source_idea_id: ideaId });
      assert.equal(again.status, 409);
      assert.deepEqual(again.body, {
        error: "Transition from 'converted' to 'converted' is not allowed",
      });
      const unknown = await create(editor, { workspace_id: ws, source_idea_id: "no-such-idea" });
      assert.equal(unknown.status, 404);
      assert.deepEqual(unknown.body, { error: "Idea not found" });
      // An idea of another workspace is not found through this one.
      const foreign = await api(stack, "POST", "/api/ideas", {
        token: owner.access_token,
        body: { workspace_id: otherWs, title: "Elsewhere" },
      });
      const cross = await create(owner, { workspace_id: ws, source_idea_id: foreign.body.idea_id });
      assert.equal(cross.status, 404);
      const foreignAfter = await api(
        stack,
        "GET",
        `/api/ideas/${foreign.body.idea_id}?workspaceId=${otherWs}`,
        { token: owner.access_token },
      );
      assert.equal(foreignAfter.body.status, "new");
      // No post was left behind by the refused creates.
      assert.equal((await stats(stack)).total_posts, count);
    });

    await t.step(
      "every public posts, comments and examples route is in the OpenAPI document",
      async () => {
        const doc = await api(stack, "GET", "/api/openapi.json");
        assert.equal(doc.status, 200);
        const expected: Record<string, string[]> = {
          "/api/posts": ["get", "post"],
          "/api/posts/{id}": ["delete", "get", "put"],
          "/api/posts/{id}/status": ["put"],
          "/api/posts/{id}/comments": ["get", "post"],
          "/api/posts/{id}/comments/{comment_id}": ["delete"],
          "/api/posts/{id}/comments/{comment_id}/resolve": ["post"],
          "/api/posts/{id}/comments/{comment_id}/replies": ["post"],
          "/api/posts/{id}/comments/{comment_id}/replies/{reply_id}": ["delete"],
          "/api/examples": ["get", "post"],
          "/api/examples/{id}": ["delete", "get", "put"],
        };
        for (const [path, methods] of Object.entries(expected)) {
          assert.deepEqual(Object.keys(doc.body.paths[path] ?? {}).sort(), methods, path);
        }
      },
    );

    await t.step("peers read a post by id, and MCP creates and rewrites posts", async () => {
      const { ws, get } = await team();
      const created = await stack.internal("posts", "POST", "/internal/posts", {
        workspace_id: ws,
        title: "By MCP",
        content: "Generated draft",
        author_id: editor.user_id,
        author_name: "Eddie Editor",
      });
      assert.equal(created.status, 201);
      const post = await created.json();
      assert.equal(post.author_id, editor.user_id);
      const info = await stack.internal(
        "posts",
        "GET",
        `/internal/posts/${post.post_id}?live=false`,
      );
      assert.deepEqual(await info.json(), {
        post_id: post.post_id,
        workspace_id: ws,
        author_id: editor.user_id,
        title: "By MCP",
      });
      const rewritten = await stack.internal(
        "posts",
        "PUT",
        `/internal/posts/${post.post_id}/content`,
        { content: "Iterated draft" },
      );
      assert.equal(rewritten.status, 200);
      await rewritten.body?.cancel();
      const full = await stack.internal("posts", "GET", `/internal/posts/${post.post_id}`);
      assert.equal((await full.json()).content, "Iterated draft");
      assert.equal((await get(viewer, post.post_id)).body.content, "Iterated draft");
      const missing = await stack.internal("posts", "GET", "/internal/posts/nope");
      assert.equal(missing.status, 404);
      await missing.body?.cancel();
    });
  } finally {
    for (const p of providers) p.destroy();
    await stack.close();
  }
});
