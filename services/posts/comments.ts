import { buildMessage, type TemplateName } from "../../shared/delivery/mod.ts";
import { badRequest, forbidden, notFound } from "../../shared/http/app_error.ts";
import type { Caller } from "../../shared/http/identity.ts";
import { newId } from "../../shared/crypto/ids.ts";
import type { KvPage } from "../../shared/kv/kv_pages.ts";
import { errorMessage, type Logger } from "../../shared/log.ts";
import type { ServiceQueue } from "../../shared/queue/queue.ts";
import { nowIso } from "../../shared/time.ts";
import type { AuthClient } from "../auth/client.ts";
import type { Membership, WorkspacesClient } from "../workspaces/client.ts";
import type { PostsJob } from "./jobs.ts";
import {
  type Comment,
  COMMENT_NOT_FOUND,
  type CommentAction,
  type CommentRecord,
  POST_NOT_FOUND,
  type PostRecord,
  type Reply,
  REPLY_NOT_FOUND,
} from "./schemas.ts";
import type { PostsStore } from "./store.ts";

export interface CommentDeps {
  store: PostsStore;
  queue: ServiceQueue<PostsJob>;
  auth: AuthClient;
  workspaces: WorkspacesClient;
  logger: Logger;
  /** `PUBLIC_URL`: comment DMs link to the post with the thread open */
  publicUrl: string;
}

/**
 * The comment threads of the spec's Comments section. Every operation: membership (403
 * `Not a workspace member`), then the post in that workspace (404 `Post not found`); deletes
 * then need the author or a privileged caller (platform admin, or the workspace owner: the
 * spec's workspace role `admin` does not exist). Each mutation enqueues its broadcast, and any
 * DM, in the commit of its write.
 */
export class CommentOperations {
  constructor(private readonly deps: CommentDeps) {}

  /** Adds a comment; the post's author gets a DM, everyone a `created` broadcast. */
  async add(
    caller: Caller,
    postId: string,
    input: {
      workspace_id: string;
      body: string;
      mark_id?: string;
      text_excerpt?: string;
      mentions?: string[];
    },
  ): Promise<Comment> {
    const { post } = await this.#access(caller, input.workspace_id, postId);
    const mentioned = await this.#mentioned(caller, input.workspace_id, input.mentions);
    const now = nowIso();
    const comment: CommentRecord = {
      comment_id: newId(),
      post_id: post.post_id,
      workspace_id: post.workspace_id,
      ...(input.mark_id !== undefined ? { mark_id: input.mark_id } : {}),
      ...(input.text_excerpt !== undefined ? { text_excerpt: input.text_excerpt } : {}),
      body: input.body,
      created_by: caller.user_id,
      created_by_name: caller.name,
      created_at: now,
      updated_at: now,
      resolved_at: null,
      resolved_by: null,
    };
    // Nobody is told of their own comment.
    const authorEmail = post.author_id === caller.user_id
      ? null
      : await this.#emailOf(post.author_id);
    const stored = await this.deps.store.comments.addComment(input.workspace_id, comment, (op) => {
      this.#broadcast(op, post.post_id, "created", comment.comment_id);
      this.#mention(op, mentioned, caller, post, comment.comment_id, comment.body);
      this.#dm(op, authorEmail, "post_comment_added", {
        post_id: post.post_id,
        workspace_id: post.workspace_id,
        comment_id: comment.comment_id,
        post_title: post.title,
        commenter_name: caller.name || caller.email,
        excerpt: comment.body,
        url: this.#threadUrl(post, comment.comment_id),
      });
    });
    if (!stored) throw notFound(POST_NOT_FOUND);
    return { ...stored, replies: [] };
  }

  /** The post's comments with their replies, in insertion order. */
  async list(caller: Caller, workspaceId: string, postId: string): Promise<Comment[]> {
    await this.#access(caller, workspaceId, postId);
    return await this.deps.store.comments.listComments(postId);
  }

  /** One page of the comments, in insertion order, after the comment `after`. */
  async listPage(
    caller: Caller,
    workspaceId: string,
    postId: string,
    page: { limit: number; after?: string },
  ): Promise<KvPage<Comment>> {
    await this.#access(caller, workspaceId, postId);
    return await this.deps.store.comments.listCommentsPage(postId, page);
  }

  /** Deletes a comment and its replies (author or privileged); broadcasts `deleted`. */
  async delete(caller: Caller, workspaceId: string, postId: string, commentId: string) {
    const { store, queue } = this.deps;
    const { membership } = await this.#access(caller, workspaceId, postId);
    const comment = await this.#requireComment(postId, commentId);
    if (comment.created_by !== caller.user_id && !privileged(caller, membership)) {
      throw forbidden("Not authorized to delete this comment");
    }
    const deleted = await store.comments.deleteComment(postId, commentId, (op) => {
      this.#broadcast(op, postId, "deleted", commentId);
      queue.enqueue(op, { type: "purge_comment", post_id: postId, comment_id: commentId });
    });
    if (!deleted) throw notFound(COMMENT_NOT_FOUND);
  }

  /** Toggles a comment resolved; broadcasts `resolved` or `unresolved` (no DM). */
  async toggleResolved(
    caller: Caller,
    workspaceId: string,
    postId: string,
    commentId: string,
  ): Promise<Comment> {
    const { store } = this.deps;
    await this.#access(caller, workspaceId, postId);
    const updated = await store.comments.toggleResolved(
      postId,
      commentId,
      caller.user_id,
      nowIso(),
      (op, resolved) =>
        this.#broadcast(op, postId, resolved ? "resolved" : "unresolved", commentId),
    );
    if (!updated) throw notFound(COMMENT_NOT_FOUND);
    return await store.comments.getCommentWithReplies(postId, commentId) ??
      { ...updated, replies: [] };
  }

  /**
   * Replies to a comment: the comment's author gets a DM unless it is them, everyone a
   * `reply_added` broadcast. Answers the comment with the reply appended.
   */
  async reply(
    caller: Caller,
    postId: string,
    commentId: string,
    input: { workspace_id: string; body: string; mentions?: string[] },
  ): Promise<Comment> {
    const { store } = this.deps;
    const { post } = await this.#access(caller, input.workspace_id, postId);
    const comment = await this.#requireComment(postId, commentId);
    const mentioned = await this.#mentioned(caller, input.workspace_id, input.mentions);
    const reply: Reply = {
      reply_id: newId(),
      body: input.body,
      created_by: caller.user_id,
      created_by_name: caller.name,
      created_at: nowIso(),
    };
    const notify = comment.created_by !== caller.user_id;
    const authorEmail = notify ? await this.#emailOf(comment.created_by) : null;
    const stored = await store.comments.addReply(postId, commentId, reply, (op) => {
      this.#broadcast(op, postId, "reply_added", commentId);
      this.#mention(op, mentioned, caller, post, commentId, reply.body);
      this.#dm(op, authorEmail, "post_comment_reply", {
        post_id: post.post_id,
        workspace_id: post.workspace_id,
        comment_id: commentId,
        reply_id: reply.reply_id,
        post_title: post.title,
        replier_name: caller.name || caller.email,
        excerpt: reply.body,
        url: this.#threadUrl(post, commentId),
      });
    });
    if (!stored) throw notFound(COMMENT_NOT_FOUND);
    const full = await store.comments.getCommentWithReplies(postId, commentId);
    if (!full) throw notFound(COMMENT_NOT_FOUND);
    return full;
  }

  /** Deletes a reply (its author or privileged); broadcasts `reply_deleted`. */
  async deleteReply(
    caller: Caller,
    workspaceId: string,
    postId: string,
    commentId: string,
    replyId: string,
  ) {
    const { store } = this.deps;
    const { membership } = await this.#access(caller, workspaceId, postId);
    await this.#requireComment(postId, commentId);
    const reply = await store.comments.getReply(postId, commentId, replyId);
    if (!reply) throw notFound(REPLY_NOT_FOUND);
    if (reply.created_by !== caller.user_id && !privileged(caller, membership)) {
      throw forbidden("Not authorized to delete this reply");
    }
    const deleted = await store.comments.deleteReply(postId, commentId, replyId, (op) => {
      this.#broadcast(op, postId, "reply_deleted", commentId);
    });
    if (!deleted) throw notFound(REPLY_NOT_FOUND);
  }

  /**
   * The emails of the members `mentions` names, but the writer's: 400 naming any id that is
   * not a member of the workspace.
   */
  async #mentioned(
    caller: Caller,
    workspaceId: string,
    mentions: string[] | undefined,
  ): Promise<string[]> {
    const ids = [...new Set(mentions ?? [])];
    if (ids.length === 0) return [];
    const roles = await Promise.all(
      ids.map((id) => this.deps.workspaces.membership(workspaceId, id)),
    );
    const strangers = ids.filter((_, i) => !roles[i].role);
    if (strangers.length > 0) {
      throw badRequest(`mentions must name workspace members: ${strangers.join(", ")}`);
    }
    const others = ids.filter((id) => id !== caller.user_id);
    if (others.length === 0) return [];
    const emails = await this.deps.auth.getUsers(others).catch((err) => {
      this.deps.logger.warn("could not look up mentioned members; no DM sent", {
        error: errorMessage(err),
      });
      return new Map();
    });
    return others.map((id) => emails.get(id)?.email).filter((e): e is string => !!e);
  }

  /** Adds a `mentioned` DM to each of `emails` to the commit `op`. */
  #mention(
    op: Deno.AtomicOperation,
    emails: string[],
    caller: Caller,
    post: PostRecord,
    commentId: string,
    body: string,
  ): void {
    for (const email of emails) {
      this.#dm(op, email, "mentioned", {
        post_id: post.post_id,
        workspace_id: post.workspace_id,
        comment_id: commentId,
        post_title: post.title,
        actor_name: caller.name || caller.email,
        excerpt: body,
        url: this.#threadUrl(post, commentId),
      });
    }
  }

  async #access(
    caller: Caller,
    workspaceId: string,
    postId: string,
  ): Promise<{ membership: Membership; post: PostRecord }> {
    const membership = await this.deps.workspaces.requireMember(workspaceId, caller.user_id);
    const post = await this.deps.store.getPost(workspaceId, postId);
    if (!post) throw notFound(POST_NOT_FOUND);
    return { membership, post };
  }

  async #requireComment(postId: string, commentId: string): Promise<CommentRecord> {
    const comment = await this.deps.store.comments.getComment(postId, commentId);
    if (!comment) throw notFound(COMMENT_NOT_FOUND);
    return comment;
  }

  #threadUrl(post: PostRecord, commentId: string): string {
    return `${this.deps.publicUrl}/workspaces/${post.workspace_id}/posts/${post.post_id}` +
      `?comment=${commentId}`;
  }

  #broadcast(op: Deno.AtomicOperation, postId: string, action: CommentAction, commentId: string) {
    this.deps.queue.enqueue(op, {
      type: "broadcast",
      post_id: postId,
      action,
      comment_id: commentId,
    });
  }

  /** The recipient's email; a failed lookup costs the DM, never the request. */
  async #emailOf(userId: string): Promise<string | null> {
    try {
      return (await this.deps.auth.getUser(userId))?.email || null;
    } catch (err) {
      this.deps.logger.warn("could not look up a comment DM recipient; no DM sent", {
        user_id: userId,
        error: errorMessage(err),
      });
      return null;
    }
  }

  #dm(
    op: Deno.AtomicOperation,
    to: string | null,
    template: TemplateName,
    data: Record<string, unknown>,
  ) {
    if (!to) return;
    this.deps.queue.enqueue(op, {
      type: "deliver",
      message: buildMessage("dm", to, template, data),
    });
  }
}

/** Platform admins and the workspace owner may delete anyone's comments and replies. */
function privileged(caller: Caller, membership: Membership): boolean {
  return caller.role === "admin" || membership.role === "owner";
}
