import { retryCommit } from "../../../shared/kv/kv.ts";
import { type KvPage, readRangePage } from "../../../shared/kv/kv_pages.ts";
import type { Comment, CommentRecord, Reply } from "../schemas.ts";
import {
  commentKey,
  commentRepliesPrefix,
  postCommentsPrefix,
  postKey,
  postRepliesPrefix,
  postReviewsPrefix,
  replyKey,
} from "../keys.ts";
import type { Also, Attempt, StoredPost } from "../store.ts";

/** Comment threads (comments and their replies) of posts, and their purge with a post. */
export class CommentStore {
  constructor(private readonly kv: Deno.Kv) {}

  // ------------------------------------------------------------ comments

  /** Stores a comment on a post that, checked in the same commit, still exists; else null. */
  async addComment(
    workspaceId: string,
    comment: CommentRecord,
    also?: Also,
  ): Promise<CommentRecord | null> {
    const key = commentKey(comment.post_id, comment.comment_id);
    return await retryCommit(async (): Attempt<CommentRecord | null> => {
      const post = await this.kv.get<StoredPost>(postKey(workspaceId, comment.post_id));
      if (!post.value) return { ok: true, value: null };
      const op = this.kv.atomic().check(post).check({ key, versionstamp: null }).set(key, comment);
      also?.(op);
      const res = await op.commit();
      return res.ok ? { ok: true, value: comment } : { ok: false };
    });
  }

  async getComment(postId: string, commentId: string): Promise<CommentRecord | null> {
    return (await this.kv.get<CommentRecord>(commentKey(postId, commentId))).value;
  }

  /** The comment with its replies, oldest reply first. */
  async getCommentWithReplies(postId: string, commentId: string): Promise<Comment | null> {
    const comment = await this.getComment(postId, commentId);
    if (!comment) return null;
    const replies: Reply[] = [];
    for await (
      const entry of this.kv.list<Reply>({ prefix: commentRepliesPrefix(postId, commentId) })
    ) {
      replies.push(entry.value);
    }
    return { ...comment, replies };
  }

  /** Every comment on the post, in insertion order, each with its replies. */
  async listComments(postId: string): Promise<Comment[]> {
    const comments: Comment[] = [];
    const byId = new Map<string, Comment>();
    for await (const entry of this.kv.list<CommentRecord>({ prefix: postCommentsPrefix(postId) })) {
      const comment: Comment = { ...entry.value, replies: [] };
      comments.push(comment);
      byId.set(comment.comment_id, comment);
    }
    for await (const entry of this.kv.list<Reply>({ prefix: postRepliesPrefix(postId) })) {
      // Replies of a deleted comment wait for their purge job; they are never shown.
      byId.get(String(entry.key[2]))?.replies.push(entry.value);
    }
    return comments;
  }

  /**
   * One page of the post's comments in insertion order, after the comment `after`, each with
   * its replies (one range read: the replies of the page's comments lie between its first and
   * its last).
   */
  async listCommentsPage(
    postId: string,
    page: { limit: number; after?: string },
  ): Promise<KvPage<Comment>> {
    const result = await readRangePage<CommentRecord>(this.kv, {
      prefix: postCommentsPrefix(postId),
      reverse: false,
      limit: page.limit,
      after: page.after,
    });
    const comments: Comment[] = result.items.map((c) => ({ ...c, replies: [] }));
    if (comments.length > 0) {
      const byId = new Map(comments.map((c) => [c.comment_id, c]));
      const replies = postRepliesPrefix(postId);
      const last = comments[comments.length - 1].comment_id;
      for await (
        const entry of this.kv.list<Reply>({
          start: [...replies, comments[0].comment_id],
          // every key under the last comment sorts before its id with one more character
          end: [...replies, `${last}\0`],
        })
      ) {
        byId.get(String(entry.key[2]))?.replies.push(entry.value);
      }
    }
    return { items: comments, next: result.next };
  }

  /** Removes the comment (its replies go with the purge job `also` enqueues); null if none. */
  async deleteComment(
    postId: string,
    commentId: string,
    also?: Also,
  ): Promise<CommentRecord | null> {
    const key = commentKey(postId, commentId);
    return await retryCommit(async (): Attempt<CommentRecord | null> => {
      const entry = await this.kv.get<CommentRecord>(key);
      if (!entry.value) return { ok: true, value: null };
      const op = this.kv.atomic().check(entry).delete(key);
      also?.(op);
      const res = await op.commit();
      return res.ok ? { ok: true, value: entry.value } : { ok: false };
    });
  }

  /**
   * Toggles resolution: an open comment becomes resolved by `userId` now, a resolved one opens
   * again. `also` learns which way it went. Null when there is no such comment.
   */
  async toggleResolved(
    postId: string,
    commentId: string,
    userId: string,
    now: string,
    also?: (op: Deno.AtomicOperation, resolved: boolean) => void,
  ): Promise<CommentRecord | null> {
    const key = commentKey(postId, commentId);
    return await retryCommit(async (): Attempt<CommentRecord | null> => {
      const entry = await this.kv.get<CommentRecord>(key);
      if (!entry.value) return { ok: true, value: null };
      const resolving = entry.value.resolved_at === null;
      const next: CommentRecord = {
        ...entry.value,
        resolved_at: resolving ? now : null,
        resolved_by: resolving ? userId : null,
        updated_at: now,
      };
      const op = this.kv.atomic().check(entry).set(key, next);
      also?.(op, resolving);
      const res = await op.commit();
      return res.ok ? { ok: true, value: next } : { ok: false };
    });
  }

  /** Adds a reply to a comment that, checked in the same commit, still exists; else null. */
  async addReply(
    postId: string,
    commentId: string,
    reply: Reply,
    also?: Also,
  ): Promise<Reply | null> {
    const key = replyKey(postId, commentId, reply.reply_id);
    return await retryCommit(async (): Attempt<Reply | null> => {
      const comment = await this.kv.get<CommentRecord>(commentKey(postId, commentId));
      if (!comment.value) return { ok: true, value: null };
      const op = this.kv.atomic().check(comment).check({ key, versionstamp: null }).set(key, reply);
      also?.(op);
      const res = await op.commit();
      return res.ok ? { ok: true, value: reply } : { ok: false };
    });
  }

  async getReply(postId: string, commentId: string, replyId: string): Promise<Reply | null> {
    return (await this.kv.get<Reply>(replyKey(postId, commentId, replyId))).value;
  }

  async deleteReply(
    postId: string,
    commentId: string,
    replyId: string,
    also?: Also,
  ): Promise<Reply | null> {
    const key = replyKey(postId, commentId, replyId);
    return await retryCommit(async (): Attempt<Reply | null> => {
      const entry = await this.kv.get<Reply>(key);
      if (!entry.value) return { ok: true, value: null };
      const op = this.kv.atomic().check(entry).delete(key);
      also?.(op);
      const res = await op.commit();
      return res.ok ? { ok: true, value: entry.value } : { ok: false };
    });
  }

  /** Deletes everything under `prefix` in commits of at most 500 keys (idempotent). */
  async #purge(prefix: Deno.KvKey): Promise<number> {
    let removed = 0;
    while (true) {
      const keys: Deno.KvKey[] = [];
      for await (const entry of this.kv.list({ prefix }, { limit: 500 })) keys.push(entry.key);
      if (keys.length === 0) return removed;
      const op = this.kv.atomic();
      for (const key of keys) op.delete(key);
      await op.commit();
      removed += keys.length;
    }
  }

  /** The replies of a deleted comment. */
  purgeCommentReplies(postId: string, commentId: string): Promise<number> {
    return this.#purge(commentRepliesPrefix(postId, commentId));
  }

  /** Every comment, reply and review of a deleted post. */
  async purgePostComments(postId: string): Promise<number> {
    return await this.#purge(postCommentsPrefix(postId)) +
      await this.#purge(postRepliesPrefix(postId)) +
      await this.#purge(postReviewsPrefix(postId));
  }
}
