import assert from "node:assert/strict";
import { newId } from "../../shared/crypto/ids.ts";
import type { CommentRecord } from "./schemas.ts";
import { postContentPrefix } from "./keys.ts";
import { CONTENT_CHUNK, PostsStore } from "./store.ts";
import { record } from "./_test_records.ts";

function comment(postId: string): CommentRecord {
  const now = "2026-01-01T00:00:00.000+00:00";
  return {
    comment_id: newId(),
    post_id: postId,
    workspace_id: "w1",
    body: "b",
    created_by: "u1",
    created_by_name: "U",
    created_at: now,
    updated_at: now,
    resolved_at: null,
    resolved_by: null,
  };
}

async function chunkCount(kv: Deno.Kv, postId: string): Promise<number> {
  let n = 0;
  for await (const _ of kv.list({ prefix: postContentPrefix(postId) })) n++;
  return n;
}

Deno.test("a 40,000-character two-byte text is stored in chunks and read back whole", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const store = new PostsStore(kv);
    const text = "é€🙂".repeat(10_000); // 40,000 UTF-16 units, none of them Latin-1 only
    const post = record("w1");
    await store.createPost(post, text);
    assert.equal(await store.storedContent(post.post_id), text);
    assert.equal(await chunkCount(kv, post.post_id), Math.ceil(text.length / CONTENT_CHUNK));
    // a shorter text leaves no stale chunk behind
    await store.updatePost("w1", post.post_id, { content: "short" }, post.created_at);
    assert.equal(await store.storedContent(post.post_id), "short");
    assert.equal(await chunkCount(kv, post.post_id), 1);
    await store.updatePost("w1", post.post_id, { content: "" }, post.created_at);
    assert.equal(await store.storedContent(post.post_id), "");
    assert.equal(await chunkCount(kv, post.post_id), 0);
  } finally {
    kv.close();
  }
});

Deno.test("the post count and the published index follow creates, status moves and deletes", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const store = new PostsStore(kv);
    const a = record("w1");
    const b = record("w2");
    await store.createPost(a, "a");
    await store.createPost(b, "b");
    assert.deepEqual(await store.stats("2000-01-01"), { total_posts: 2, published_since: 0 });
    const published = await store.updatePost(
      "w1",
      a.post_id,
      { status: "published" },
      "2026-05-01T00:00:00.000+00:00",
    );
    assert.equal(published?.after.published_at, "2026-05-01T00:00:00.000+00:00");
    // published again: the first stamp stays
    await store.updatePost(
      "w1",
      a.post_id,
      { status: "published" },
      "2026-06-01T00:00:00.000+00:00",
    );
    assert.equal(
      (await store.getPost("w1", a.post_id))?.published_at,
      "2026-05-01T00:00:00.000+00:00",
    );
    // A published label is not a LinkedIn publication ; the metric stays 0.
    assert.deepEqual(await store.stats("2026-04-01"), { total_posts: 2, published_since: 0 });
    assert.deepEqual(await store.stats("2026-05-02"), { total_posts: 2, published_since: 0 });
    await store.updatePost("w1", a.post_id, { status: "draft" }, "2026-06-02T00:00:00.000+00:00");
    assert.deepEqual(await store.stats("2026-04-01"), { total_posts: 2, published_since: 0 });
    await store.updatePost(
      "w1",
      a.post_id,
      { status: "published" },
      "2026-06-03T00:00:00.000+00:00",
    );
    assert.deepEqual(await store.stats("2026-06-03"), { total_posts: 2, published_since: 0 });
    assert.ok(await store.deletePost("w1", a.post_id));
    assert.equal(await store.deletePost("w1", a.post_id), null);
    assert.deepEqual(await store.stats("2000-01-01"), { total_posts: 1, published_since: 0 });
    assert.equal(await store.findPost(a.post_id), null);
    assert.equal(await store.storedContent(a.post_id), "");
  } finally {
    kv.close();
  }
});

Deno.test("a post is only found through its own workspace", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const store = new PostsStore(kv);
    const a = record("w1");
    await store.createPost(a, "");
    assert.equal(await store.getPost("w2", a.post_id), null);
    assert.equal(await store.updatePost("w2", a.post_id, { title: "x" }, a.created_at), null);
    assert.equal(await store.deletePost("w2", a.post_id), null);
    assert.equal((await store.findPost(a.post_id))?.workspace_id, "w1");
  } finally {
    kv.close();
  }
});

Deno.test("comments keep insertion order, replies group under them, purges remove everything", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const store = new PostsStore(kv);
    const post = record("w1");
    await store.createPost(post, "");
    const c1 = comment(post.post_id);
    const c2 = comment(post.post_id);
    assert.ok(await store.comments.addComment("w1", c1));
    assert.ok(await store.comments.addComment("w1", c2));
    const at = "2026-01-01T00:00:00.000+00:00";
    const reply = (id: string) => ({
      reply_id: id,
      body: "r",
      created_by: "u2",
      created_by_name: "V",
      created_at: at,
    });
    const r1 = newId();
    const r2 = newId();
    assert.ok(await store.comments.addReply(post.post_id, c1.comment_id, reply(r1)));
    assert.ok(await store.comments.addReply(post.post_id, c2.comment_id, reply(r2)));
    const listed = await store.comments.listComments(post.post_id);
    assert.deepEqual(listed.map((c) => c.comment_id), [c1.comment_id, c2.comment_id]);
    assert.deepEqual(listed.map((c) => c.replies.map((r) => r.reply_id)), [[r1], [r2]]);

    // a deleted comment's replies are never shown, and a reply to it is refused
    await store.comments.deleteComment(post.post_id, c1.comment_id);
    assert.deepEqual((await store.comments.listComments(post.post_id)).map((c) => c.comment_id), [
      c2.comment_id,
    ]);
    assert.equal(await store.comments.addReply(post.post_id, c1.comment_id, reply(newId())), null);
    assert.equal(await store.comments.purgeCommentReplies(post.post_id, c1.comment_id), 1);

    // toggling twice reopens
    const resolved = await store.comments.toggleResolved(post.post_id, c2.comment_id, "u3", at);
    assert.equal(resolved?.resolved_by, "u3");
    const reopened = await store.comments.toggleResolved(post.post_id, c2.comment_id, "u3", at);
    assert.equal(reopened?.resolved_at, null);

    // no comment on a post that is gone
    await store.deletePost("w1", post.post_id);
    assert.equal(await store.comments.addComment("w1", comment(post.post_id)), null);
    assert.equal(await store.comments.purgePostComments(post.post_id), 2);
    assert.deepEqual(await store.comments.listComments(post.post_id), []);
  } finally {
    kv.close();
  }
});

Deno.test("post pages give the whole filtered list once, newest first, and follow status moves and deletes", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const store = new PostsStore(kv);
    const statuses = ["draft", "in_review", "approved"] as const;
    const made = [];
    for (let n = 0; n < 17; n++) {
      const post = record("w1", { status: statuses[n % 3], author_id: n % 2 ? "u1" : "u2" });
      await store.createPost(post, `text ${n}`);
      made.push(post);
    }
    await store.createPost(record("w2"), "elsewhere");
    await store.updatePost("w1", made[0].post_id, { status: "published" }, made[0].created_at);
    await store.modifyPost("w1", made[1].post_id, (p) => ({ ...p, status: "scheduled" }));
    await store.deletePost("w1", made[2].post_id);
    const all = await store.listPosts("w1");
    const pages = async (
      filters: { status?: (typeof all)[number]["status"]; authorId?: string },
    ) => {
      const ids: string[] = [];
      let after: string | undefined;
      for (;;) {
        const page = await store.lists.page("w1", filters, { limit: 4, after });
        assert.ok(page.items.length <= 4);
        ids.push(...page.items.map((p) => p.post_id));
        if (page.next === null) return ids;
        after = page.next;
      }
    };
    for (
      const filters of [
        {},
        { status: "draft" as const },
        { status: "published" as const },
        { status: "scheduled" as const },
        { authorId: "u1" },
        { status: "in_review" as const, authorId: "u2" },
      ]
    ) {
      const expected = all.filter((p) =>
        (!filters.status || p.status === filters.status) &&
        (!filters.authorId || p.author_id === filters.authorId)
      ).map((p) => p.post_id);
      assert.deepEqual(await pages(filters), expected, JSON.stringify(filters));
    }
    assert.deepEqual(await pages({ status: "published" }), [made[0].post_id]);
  } finally {
    kv.close();
  }
});

Deno.test("comment pages hold each comment once, oldest first, with its own replies", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const store = new PostsStore(kv);
    const post = record("w1");
    await store.createPost(post, "text");
    const ids: string[] = [];
    for (let n = 0; n < 7; n++) {
      const c = await store.comments.addComment("w1", comment(post.post_id));
      ids.push(c!.comment_id);
    }
    const reply = (n: number) => ({
      reply_id: newId(),
      body: `reply to ${n}`,
      created_by: "u1",
      created_by_name: "U",
      created_at: "2026-01-01T00:00:00.000+00:00",
    });
    await store.comments.addReply(post.post_id, ids[2], reply(2));
    await store.comments.addReply(post.post_id, ids[3], reply(3));
    await store.comments.addReply(post.post_id, ids[3], reply(3));
    const seen: string[] = [];
    let after: string | undefined;
    for (;;) {
      const page = await store.comments.listCommentsPage(post.post_id, { limit: 3, after });
      for (const c of page.items) {
        seen.push(c.comment_id);
        const n = ids.indexOf(c.comment_id);
        assert.deepEqual(
          c.replies.map((r) => r.body),
          n === 2 ? ["reply to 2"] : n === 3 ? ["reply to 3", "reply to 3"] : [],
        );
      }
      if (page.next === null) break;
      after = page.next;
    }
    assert.deepEqual(seen, ids);
  } finally {
    kv.close();
  }
});
