import assert from "node:assert/strict";
import { readOutbox, settledOutboxLength, waitForOutbox } from "./helpers/outbox.ts";
import { api, e2e, startTestStack, type TestStack } from "./helpers/stack.ts";
import { createUser, loginAdmin, type TestUser } from "./helpers/users.ts";
import { createWorkspace } from "./helpers/workspaces.ts";
import { waitFor } from "./helpers/wait.ts";

const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}\+00:00$/;

interface Frame {
  type: string;
  action: string;
  postId: string;
  commentId: string;
}

/**
 * A plain WebSocket on the post, as a browser tab would hold one: it keeps every JSON text frame
 * (the comment events) and ignores the binary Yjs traffic.
 */
async function listenToPost(stack: TestStack, user: TestUser, postId: string, workspaceId: string) {
  const ticket = await api(stack, "POST", "/api/ws/ticket", { token: user.access_token });
  assert.equal(ticket.status, 200, JSON.stringify(ticket.body));
  const query = new URLSearchParams({ ticket: ticket.body.ticket, docId: postId, workspaceId });
  const socket = new WebSocket(`${stack.url.replace(/^http/, "ws")}/ws?${query}`);
  socket.binaryType = "arraybuffer";
  const frames: Frame[] = [];
  socket.onmessage = (e) => {
    if (typeof e.data === "string") frames.push(JSON.parse(e.data));
  };
  await new Promise<void>((resolve, reject) => {
    socket.onopen = () => resolve();
    socket.onerror = () => reject(new Error("socket failed to open"));
  });
  return {
    frames,
    /** Waits for the `nth` frame of `action` on `commentId`, and answers it. */
    async expect(action: string, commentId: string, nth = 1, timeoutMs = 5_000): Promise<Frame> {
      return await waitFor(
        () => {
          const found = frames.filter((f) => f.action === action && f.commentId === commentId);
          return found.length >= nth && found[nth - 1];
        },
        `a "${action}" frame for ${commentId}`,
        timeoutMs,
      ).catch(() => {
        throw new Error(`no "${action}" frame for ${commentId}; got ${JSON.stringify(frames)}`);
      });
    },
    close: () => socket.close(),
  };
}

Deno.test("comments and replies: threads, DMs and live events", e2e, async (t) => {
  const stack = await startTestStack();
  const listeners: { close(): void }[] = [];
  try {
    const owner = await createUser(stack, { name: "Olga Owner" });
    const author = await createUser(stack, { name: "Anna Author" });
    const commenter = await createUser(stack, { name: "Carl Commenter" });
    const other = await createUser(stack, { name: "Otto Other" });
    const outsider = await createUser(stack, { name: "Oscar Outsider" });
    const admin = await loginAdmin(stack);

    /**
     * A fresh workspace (author editor, commenter and other viewers) and another one of the
     * owner's, the author's post with `other` listening on it, and the comment routes bound to
     * that post: each step starts from its own.
     */
    const fresh = async () => {
      const ws = await createWorkspace(stack, owner, "Comments workspace", [
        [author, "editor"],
        [commenter, "viewer"],
        [other, "viewer"],
      ]);
      const otherWs = await createWorkspace(stack, owner, "Elsewhere");
      const postRes = await api(stack, "POST", "/api/posts", {
        token: author.access_token,
        body: { workspace_id: ws, title: "Commented post", content: "Some text to discuss" },
      });
      assert.equal(postRes.status, 201);
      const postId: string = postRes.body.post_id;
      const base = `/api/posts/${postId}/comments`;
      const live = await listenToPost(stack, other, postId, ws);
      listeners.push(live);

      const addComment = (user: TestUser, body: Record<string, unknown>, path = base) =>
        api(stack, "POST", path, { token: user.access_token, body });
      const list = (user: TestUser, workspaceId = ws) =>
        api(stack, "GET", `${base}?workspaceId=${workspaceId}`, { token: user.access_token });
      const resolve = (user: TestUser, commentId: string) =>
        api(stack, "POST", `${base}/${commentId}/resolve`, {
          token: user.access_token,
          body: { workspace_id: ws },
        });
      const reply = (user: TestUser, commentId: string, body: unknown) =>
        api(stack, "POST", `${base}/${commentId}/replies`, {
          token: user.access_token,
          body: { workspace_id: ws, body },
        });
      const delComment = (user: TestUser, commentId: string, path = base) =>
        api(stack, "DELETE", `${path}/${commentId}?workspaceId=${ws}`, {
          token: user.access_token,
        });
      const delReply = (user: TestUser, commentId: string, replyId: string) =>
        api(stack, "DELETE", `${base}/${commentId}/replies/${replyId}?workspaceId=${ws}`, {
          token: user.access_token,
        });
      /** Adds a comment and answers its id. */
      const commented = async (user: TestUser, body: Record<string, unknown>) => {
        const res = await addComment(user, { workspace_id: ws, ...body });
        assert.equal(res.status, 201, JSON.stringify(res.body));
        return res.body.comment_id as string;
      };
      /** Replies and answers the new reply's id. */
      const replied = async (user: TestUser, commentId: string, body: string) => {
        const res = await reply(user, commentId, body);
        assert.equal(res.status, 200, JSON.stringify(res.body));
        return res.body.replies.at(-1).reply_id as string;
      };
      return {
        ws,
        otherWs,
        postId,
        base,
        live,
        addComment,
        list,
        resolve,
        reply,
        delComment,
        delReply,
        commented,
        replied,
      };
    };
    /** `fresh()` with the commenter's comment anchored on "Some text" (mark-1). */
    const withComment = async () => {
      const fixture = await fresh();
      const commentId = await fixture.commented(commenter, {
        body: "Could this be shorter?",
        mark_id: "mark-1",
        text_excerpt: "Some text",
      });
      return { ...fixture, commentId };
    };
    const PAGE_COMMENT = { body: "Overall: good" };

    await t.step(
      "add answers 201 with the comment, broadcasts `created`, DMs the post's author",
      async () => {
        const { ws, postId, live, addComment } = await fresh();
        const res = await addComment(commenter, {
          workspace_id: ws,
          body: "Could this be shorter?",
          mark_id: "mark-1",
          text_excerpt: "Some text",
        });
        assert.equal(res.status, 201, JSON.stringify(res.body));
        const c = res.body;
        const commentId = c.comment_id;
        assert.equal(c.post_id, postId);
        assert.equal(c.workspace_id, ws);
        assert.equal(c.mark_id, "mark-1");
        assert.equal(c.text_excerpt, "Some text");
        assert.equal(c.body, "Could this be shorter?");
        assert.equal(c.created_by, commenter.user_id);
        assert.equal(c.created_by_name, "Carl Commenter");
        assert.match(c.created_at, TIMESTAMP);
        assert.equal(c.updated_at, c.created_at);
        assert.equal(c.resolved_at, null);
        assert.equal(c.resolved_by, null);
        assert.deepEqual(c.replies, []);
        assert.deepEqual(await live.expect("created", commentId), {
          type: "comment",
          action: "created",
          postId,
          commentId,
        });
        const dm = await waitForOutbox(
          stack.outboxFile,
          (l) => l.template === "post_comment_added" && l.data.comment_id === commentId,
        );
        assert.equal(dm.channel, "dm");
        assert.equal(dm.to, author.email);
        assert.equal(dm.data.post_title, "Commented post");
        assert.match(dm.text, /Carl Commenter/);
        assert.match(dm.text, /Could this be shorter\?/);
        // The DM opens the post with the thread (a deep link).
        const link = `${stack.url}/workspaces/${dm.data.workspace_id}/posts/${dm.data.post_id}` +
          `?comment=${commentId}`;
        assert.equal(dm.data.url, link);
        assert.ok(dm.text.includes(link));
      },
    );

    await t.step("a page-level comment has no anchor", async () => {
      const { ws, live, addComment } = await fresh();
      const res = await addComment(author, { workspace_id: ws, ...PAGE_COMMENT });
      assert.equal(res.status, 201);
      const pageComment = res.body.comment_id;
      assert.equal("mark_id" in res.body, false);
      assert.equal("text_excerpt" in res.body, false);
      await live.expect("created", pageComment);
    });

    await t.step(
      "add refuses bad input (400), non-members (403) then unknown posts (404)",
      async () => {
        const { ws, otherWs, addComment } = await fresh();
        const noBody = await addComment(commenter, { workspace_id: ws });
        assert.deepEqual([noBody.status, noBody.body], [400, { error: "body is required" }]);
        const blank = await addComment(commenter, { workspace_id: ws, body: "   " });
        assert.deepEqual([blank.status, blank.body], [400, { error: "body is required" }]);
        const noWs = await addComment(commenter, { body: "x" });
        assert.deepEqual([noWs.status, noWs.body], [400, { error: "workspace_id is required" }]);
        const outsiderUnknown = await addComment(
          outsider,
          { workspace_id: ws, body: "x" },
          "/api/posts/nope/comments",
        );
        assert.deepEqual(outsiderUnknown.body, { error: "Not a workspace member" });
        assert.equal(outsiderUnknown.status, 403);
        const unknown = await addComment(
          commenter,
          { workspace_id: ws, body: "x" },
          "/api/posts/nope/comments",
        );
        assert.deepEqual([unknown.status, unknown.body], [404, { error: "Post not found" }]);
        // the post exists, but not in that workspace
        const cross = await addComment(owner, { workspace_id: otherWs, body: "x" });
        assert.deepEqual([cross.status, cross.body], [404, { error: "Post not found" }]);
      },
    );

    await t.step("list answers every comment in insertion order with {items, count}", async () => {
      const { ws, otherWs, base, commentId, commented, list } = await withComment();
      const pageComment = await commented(author, PAGE_COMMENT);
      const res = await list(other);
      assert.equal(res.status, 200);
      assert.equal(res.body.count, 2);
      assert.deepEqual(res.body.items.map((c: { comment_id: string }) => c.comment_id), [
        commentId,
        pageComment,
      ]);
      const noWs = await api(stack, "GET", base, { token: other.access_token });
      assert.deepEqual([noWs.status, noWs.body], [400, { error: "workspaceId is required" }]);
      const blankWs = await api(stack, "GET", `${base}?workspaceId=`, {
        token: other.access_token,
      });
      assert.equal(blankWs.status, 400);
      assert.deepEqual((await list(outsider)).body, { error: "Not a workspace member" });
      const unknown = await api(stack, "GET", `/api/posts/nope/comments?workspaceId=${ws}`, {
        token: other.access_token,
      });
      assert.deepEqual([unknown.status, unknown.body], [404, { error: "Post not found" }]);
      assert.equal((await list(owner, otherWs)).status, 404);
    });

    await t.step(
      "resolve toggles, broadcasts `resolved` then `unresolved`, and sends no DM",
      async () => {
        const { base, commentId, live, list, resolve } = await withComment();
        const linesBefore = await settledOutboxLength(stack.outboxFile);
        const resolved = await resolve(other, commentId);
        assert.equal(resolved.status, 200, JSON.stringify(resolved.body));
        assert.equal(resolved.body.comment_id, commentId);
        assert.match(resolved.body.resolved_at, TIMESTAMP);
        assert.equal(resolved.body.resolved_by, other.user_id);
        assert.deepEqual(resolved.body.replies, []);
        await live.expect("resolved", commentId);
        // resolved comments stay in the list
        assert.equal((await list(other)).body.items[0].resolved_by, other.user_id);
        const reopened = await resolve(commenter, commentId);
        assert.equal(reopened.status, 200);
        assert.equal(reopened.body.resolved_at, null);
        assert.equal(reopened.body.resolved_by, null);
        await live.expect("unresolved", commentId);
        assert.equal(await settledOutboxLength(stack.outboxFile), linesBefore);
        const unknown = await resolve(other, "no-such-comment");
        assert.deepEqual([unknown.status, unknown.body], [404, { error: "Comment not found" }]);
        const noWs = await api(stack, "POST", `${base}/${commentId}/resolve`, {
          token: other.access_token,
          body: {},
        });
        assert.deepEqual([noWs.status, noWs.body], [400, { error: "workspace_id is required" }]);
        assert.equal((await resolve(outsider, commentId)).status, 403);
      },
    );

    await t.step(
      "reply answers the whole comment, broadcasts `reply_added`, DMs the comment's author",
      async () => {
        const { commentId, live, list, reply } = await withComment();
        const res = await reply(other, commentId, "Agreed, trim it");
        assert.equal(res.status, 200, JSON.stringify(res.body));
        assert.equal(res.body.comment_id, commentId);
        assert.equal(res.body.body, "Could this be shorter?");
        assert.equal(res.body.replies.length, 1);
        const r = res.body.replies[0];
        const replyId = r.reply_id;
        assert.deepEqual(Object.keys(r).sort(), [
          "body",
          "created_at",
          "created_by",
          "created_by_name",
          "reply_id",
        ]);
        assert.equal(r.body, "Agreed, trim it");
        assert.equal(r.created_by, other.user_id);
        assert.equal(r.created_by_name, "Otto Other");
        assert.match(r.created_at, TIMESTAMP);
        await live.expect("reply_added", commentId);
        const dm = await waitForOutbox(
          stack.outboxFile,
          (l) => l.template === "post_comment_reply" && l.data.reply_id === replyId,
        );
        assert.equal(dm.channel, "dm");
        assert.equal(dm.to, commenter.email);
        assert.match(dm.text, /Otto Other/);
        const listed = (await list(other)).body.items[0];
        assert.deepEqual(listed.replies.map((x: { reply_id: string }) => x.reply_id), [replyId]);
      },
    );

    await t.step("the comment's author replying to their own comment gets no DM", async () => {
      const { commentId, live, reply, replied } = await withComment();
      await replied(other, commentId, "Agreed, trim it");
      const res = await reply(commenter, commentId, "Will do");
      assert.equal(res.status, 200);
      assert.equal(res.body.replies.length, 2);
      const ownReply = res.body.replies[1].reply_id;
      await live.expect("reply_added", commentId, 2);
      // Whatever the reply queued has landed once the outbox stops growing.
      await settledOutboxLength(stack.outboxFile);
      const lines = await readOutbox(stack.outboxFile);
      assert.equal(lines.some((l) => l.data.reply_id === ownReply), false);
      const blank = await reply(other, commentId, "");
      assert.deepEqual([blank.status, blank.body], [400, { error: "body is required" }]);
      const unknown = await reply(other, "no-such-comment", "x");
      assert.deepEqual([unknown.status, unknown.body], [404, { error: "Comment not found" }]);
      assert.deepEqual((await reply(outsider, commentId, "x")).body, {
        error: "Not a workspace member",
      });
    });

    await t.step("a reply is deleted by its own author or a privileged caller only", async () => {
      const { postId, commentId, live, list, delReply, replied } = await withComment();
      const replyId = await replied(other, commentId, "Agreed, trim it");
      await replied(commenter, commentId, "Will do");
      // The comment's author is not the reply's author.
      const byCommentAuthor = await delReply(commenter, commentId, replyId);
      assert.deepEqual([byCommentAuthor.status, byCommentAuthor.body], [403, {
        error: "Not authorized to delete this reply",
      }]);
      const byEditor = await delReply(author, commentId, replyId);
      assert.equal(byEditor.status, 403);
      assert.deepEqual((await delReply(outsider, commentId, replyId)).body, {
        error: "Not a workspace member",
      });
      const unknown = await delReply(other, commentId, "no-such-reply");
      assert.deepEqual([unknown.status, unknown.body], [404, { error: "Reply not found" }]);
      const res = await delReply(other, commentId, replyId);
      assert.equal(res.status, 200);
      assert.deepEqual(res.body, { deleted: true });
      const frame = await live.expect("reply_deleted", commentId);
      assert.deepEqual(frame, { type: "comment", action: "reply_deleted", postId, commentId });
      const remaining = (await list(other)).body.items[0].replies;
      assert.equal(remaining.length, 1);
      assert.equal(remaining.some((x: { reply_id: string }) => x.reply_id === replyId), false);
      // the workspace owner may delete anyone's reply
      const byOwner = await delReply(owner, commentId, remaining[0].reply_id);
      assert.equal(byOwner.status, 200);
      assert.equal((await delReply(owner, commentId, remaining[0].reply_id)).status, 404);
    });

    await t.step(
      "a comment is deleted by its author or a privileged caller, with its replies",
      async () => {
        const { commentId, live, list, reply, delComment, commented } = await withComment();
        const pageComment = await commented(author, PAGE_COMMENT);
        await reply(author, commentId, "one more reply");
        const refused = await delComment(other, commentId);
        assert.deepEqual([refused.status, refused.body], [403, {
          error: "Not authorized to delete this comment",
        }]);
        // the post's author is not privileged over others' comments
        assert.equal((await delComment(author, commentId)).status, 403);
        const outsiderUnknown = await delComment(outsider, "nope", "/api/posts/nope/comments");
        assert.deepEqual(outsiderUnknown.body, { error: "Not a workspace member" });
        const unknownPost = await delComment(other, "nope", "/api/posts/nope/comments");
        assert.deepEqual([unknownPost.status, unknownPost.body], [404, {
          error: "Post not found",
        }]);
        const unknown = await delComment(other, "nope");
        assert.deepEqual([unknown.status, unknown.body], [404, { error: "Comment not found" }]);
        const res = await delComment(commenter, commentId);
        assert.deepEqual([res.status, res.body], [200, { deleted: true }]);
        await live.expect("deleted", commentId);
        const items = (await list(other)).body.items;
        assert.deepEqual(items.map((c: { comment_id: string }) => c.comment_id), [pageComment]);
        assert.equal((await delComment(commenter, commentId)).status, 404);
        assert.equal((await reply(other, commentId, "late")).status, 404);
      },
    );

    await t.step(
      "the workspace owner and a platform admin who is a member may delete any comment",
      async () => {
        const { ws, live, list, addComment, reply, delComment, delReply, commented } =
          await fresh();
        const pageComment = await commented(author, PAGE_COMMENT);
        const byOwner = await delComment(owner, pageComment);
        assert.deepEqual([byOwner.status, byOwner.body], [200, { deleted: true }]);
        await live.expect("deleted", pageComment);
        const added = await api(stack, "POST", `/api/workspaces/${ws}/members`, {
          token: owner.access_token,
          body: { email: admin.email, role: "viewer" },
        });
        assert.equal(added.status, 201);
        const c = await addComment(other, { workspace_id: ws, body: "admin will remove this" });
        const withReply = await reply(other, c.body.comment_id, "and this reply");
        const r = withReply.body.replies[0].reply_id;
        assert.equal((await delReply(admin, c.body.comment_id, r)).status, 200);
        assert.equal((await delComment(admin, c.body.comment_id)).status, 200);
        assert.deepEqual((await list(other)).body, { items: [], count: 0 });
      },
    );
  } finally {
    for (const listener of listeners) listener.close();
    await stack.close();
  }
});
