import { createRoute, type RouteConfig } from "@hono/zod-openapi";
import { buildMessage, type TemplateName } from "../../shared/delivery/mod.ts";
import { forbidden, notFound } from "../../shared/http/app_error.ts";
import type { Caller } from "../../shared/http/identity.ts";
import { requireCaller, type ServiceApp } from "../../shared/http/service_app.ts";
import { newId } from "../../shared/ids.ts";
import { errorMessage, type Logger } from "../../shared/log.ts";
import type { ServiceQueue } from "../../shared/queue.ts";
import { nowIso } from "../../shared/time.ts";
import type { AuthClient } from "../auth/client.ts";
import type { Membership } from "../workspaces/client.ts";
import type { WorkspacesClient } from "../workspaces/client.ts";
import type { PostsJob } from "./jobs.ts";
import { body, errors, json } from "./routes.ts";
import {
  COMMENT_NOT_FOUND,
  type CommentAction,
  commentListSchema,
  commentParams,
  type CommentRecord,
  commentSchema,
  createCommentBody,
  createReplyBody,
  deletedSchema,
  POST_NOT_FOUND,
  type PostRecord,
  type Reply,
  REPLY_NOT_FOUND,
  replyParams,
  workspaceBody,
  workspaceQuery,
} from "./schemas.ts";
import type { PostsStore } from "./store.ts";

export interface CommentRouteDeps {
  store: PostsStore;
  queue: ServiceQueue<PostsJob>;
  auth: AuthClient;
  workspaces: WorkspacesClient;
  logger: Logger;
  /** `PUBLIC_URL`: comment DMs link to the post with the thread open */
  publicUrl: string;
}

const commentsTag = {
  tags: ["Comments"],
  security: [{ bearer: [] }],
} satisfies Partial<RouteConfig>;

/**
 * The spec's Comments section. Every route: membership (403 `Not a workspace member`), then the
 * post in that workspace (404 `Post not found`); deletes then need the author or a privileged
 * caller (platform admin, or the workspace owner: the spec's workspace role `admin` does not
 * exist). Each mutation enqueues its broadcast, and any DM, in the commit of its write.
 */
export function mountCommentRoutes(app: ServiceApp, deps: CommentRouteDeps): void {
  const { store, queue, auth, workspaces, logger, publicUrl } = deps;
  const threadUrl = (post: PostRecord, commentId: string) =>
    `${publicUrl}/workspaces/${post.workspace_id}/posts/${post.post_id}?comment=${commentId}`;

  const access = async (
    caller: Caller,
    workspaceId: string,
    postId: string,
  ): Promise<{ membership: Membership; post: PostRecord }> => {
    const membership = await workspaces.requireMember(workspaceId, caller.user_id);
    const post = await store.getPost(workspaceId, postId);
    if (!post) throw notFound(POST_NOT_FOUND);
    return { membership, post };
  };

  const requireComment = async (postId: string, commentId: string) => {
    const comment = await store.getComment(postId, commentId);
    if (!comment) throw notFound(COMMENT_NOT_FOUND);
    return comment;
  };

  const privileged = (caller: Caller, membership: Membership) =>
    caller.role === "admin" || membership.role === "owner";

  const broadcast = (
    op: Deno.AtomicOperation,
    postId: string,
    action: CommentAction,
    commentId: string,
  ) => {
    queue.enqueue(op, { type: "broadcast", post_id: postId, action, comment_id: commentId });
  };

  /** The recipient's email; a failed lookup costs the DM, never the request. */
  const emailOf = async (userId: string): Promise<string | null> => {
    try {
      return (await auth.getUser(userId))?.email || null;
    } catch (err) {
      logger.warn("could not look up a comment DM recipient; no DM sent", {
        user_id: userId,
        error: errorMessage(err),
      });
      return null;
    }
  };

  const dm = (
    op: Deno.AtomicOperation,
    to: string | null,
    template: TemplateName,
    data: Record<string, unknown>,
  ) => {
    if (to) queue.enqueue(op, { type: "deliver", message: buildMessage("dm", to, template, data) });
  };

  app.openapi(
    createRoute({
      ...commentsTag,
      method: "post",
      path: "/api/posts/{id}/comments",
      summary: "Add a comment (DMs the post's author; broadcasts `created`)",
      request: { params: commentParams.pick({ id: true }), ...body(createCommentBody) },
      responses: { 201: json(commentSchema, "The comment"), ...errors(400, 401, 403, 404) },
    }),
    async (c) => {
      const caller = requireCaller(c);
      const { id } = c.req.valid("param");
      const input = c.req.valid("json");
      const { post } = await access(caller, input.workspace_id, id);
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
      const authorEmail = await emailOf(post.author_id);
      const stored = await store.addComment(input.workspace_id, comment, (op) => {
        broadcast(op, post.post_id, "created", comment.comment_id);
        dm(op, authorEmail, "post_comment_added", {
          post_id: post.post_id,
          workspace_id: post.workspace_id,
          comment_id: comment.comment_id,
          post_title: post.title,
          commenter_name: caller.name || caller.email,
          excerpt: comment.body,
          url: threadUrl(post, comment.comment_id),
        });
      });
      if (!stored) throw notFound(POST_NOT_FOUND);
      return c.json({ ...stored, replies: [] }, 201);
    },
  );

  app.openapi(
    createRoute({
      ...commentsTag,
      method: "get",
      path: "/api/posts/{id}/comments",
      summary: "List a post's comments with their replies, in insertion order",
      request: { params: commentParams.pick({ id: true }), query: workspaceQuery },
      responses: { 200: json(commentListSchema, "The comments"), ...errors(400, 401, 403, 404) },
    }),
    async (c) => {
      const caller = requireCaller(c);
      const { id } = c.req.valid("param");
      const { workspaceId } = c.req.valid("query");
      await access(caller, workspaceId, id);
      const items = await store.listComments(id);
      return c.json({ items, count: items.length }, 200);
    },
  );

  app.openapi(
    createRoute({
      ...commentsTag,
      method: "delete",
      path: "/api/posts/{id}/comments/{comment_id}",
      summary: "Delete a comment and its replies (author or privileged; broadcasts `deleted`)",
      request: { params: commentParams, query: workspaceQuery },
      responses: { 200: json(deletedSchema, "Deleted"), ...errors(400, 401, 403, 404) },
    }),
    async (c) => {
      const caller = requireCaller(c);
      const { id, comment_id } = c.req.valid("param");
      const { workspaceId } = c.req.valid("query");
      const { membership } = await access(caller, workspaceId, id);
      const comment = await requireComment(id, comment_id);
      if (comment.created_by !== caller.user_id && !privileged(caller, membership)) {
        throw forbidden("Not authorized to delete this comment");
      }
      const deleted = await store.deleteComment(id, comment_id, (op) => {
        broadcast(op, id, "deleted", comment_id);
        queue.enqueue(op, { type: "purge_comment", post_id: id, comment_id });
      });
      if (!deleted) throw notFound(COMMENT_NOT_FOUND);
      return c.json({ deleted: true as const }, 200);
    },
  );

  app.openapi(
    createRoute({
      ...commentsTag,
      method: "post",
      path: "/api/posts/{id}/comments/{comment_id}/resolve",
      summary: "Toggle a comment resolved (broadcasts `resolved` or `unresolved`; no DM)",
      request: { params: commentParams, ...body(workspaceBody) },
      responses: { 200: json(commentSchema, "The comment"), ...errors(400, 401, 403, 404) },
    }),
    async (c) => {
      const caller = requireCaller(c);
      const { id, comment_id } = c.req.valid("param");
      const { workspace_id } = c.req.valid("json");
      await access(caller, workspace_id, id);
      const updated = await store.toggleResolved(
        id,
        comment_id,
        caller.user_id,
        nowIso(),
        (op, resolved) => broadcast(op, id, resolved ? "resolved" : "unresolved", comment_id),
      );
      if (!updated) throw notFound(COMMENT_NOT_FOUND);
      const full = await store.getCommentWithReplies(id, comment_id);
      return c.json(full ?? { ...updated, replies: [] }, 200);
    },
  );

  app.openapi(
    createRoute({
      ...commentsTag,
      method: "post",
      path: "/api/posts/{id}/comments/{comment_id}/replies",
      summary: "Reply to a comment (DMs the comment's author unless it is them; " +
        "broadcasts `reply_added`)",
      request: { params: commentParams, ...body(createReplyBody) },
      responses: {
        200: json(commentSchema, "The comment with the reply appended"),
        ...errors(400, 401, 403, 404),
      },
    }),
    async (c) => {
      const caller = requireCaller(c);
      const { id, comment_id } = c.req.valid("param");
      const input = c.req.valid("json");
      const { post } = await access(caller, input.workspace_id, id);
      const comment = await requireComment(id, comment_id);
      const reply: Reply = {
        reply_id: newId(),
        body: input.body,
        created_by: caller.user_id,
        created_by_name: caller.name,
        created_at: nowIso(),
      };
      const notify = comment.created_by !== caller.user_id;
      const authorEmail = notify ? await emailOf(comment.created_by) : null;
      const stored = await store.addReply(id, comment_id, reply, (op) => {
        broadcast(op, id, "reply_added", comment_id);
        dm(op, authorEmail, "post_comment_reply", {
          post_id: post.post_id,
          workspace_id: post.workspace_id,
          comment_id,
          reply_id: reply.reply_id,
          post_title: post.title,
          replier_name: caller.name || caller.email,
          excerpt: reply.body,
          url: threadUrl(post, comment_id),
        });
      });
      if (!stored) throw notFound(COMMENT_NOT_FOUND);
      const full = await store.getCommentWithReplies(id, comment_id);
      if (!full) throw notFound(COMMENT_NOT_FOUND);
      return c.json(full, 200);
    },
  );

  app.openapi(
    createRoute({
      ...commentsTag,
      method: "delete",
      path: "/api/posts/{id}/comments/{comment_id}/replies/{reply_id}",
      summary: "Delete a reply (its author or privileged; broadcasts `reply_deleted`)",
      request: { params: replyParams, query: workspaceQuery },
      responses: { 200: json(deletedSchema, "Deleted"), ...errors(400, 401, 403, 404) },
    }),
    async (c) => {
      const caller = requireCaller(c);
      const { id, comment_id, reply_id } = c.req.valid("param");
      const { workspaceId } = c.req.valid("query");
      const { membership } = await access(caller, workspaceId, id);
      await requireComment(id, comment_id);
      const reply = await store.getReply(id, comment_id, reply_id);
      if (!reply) throw notFound(REPLY_NOT_FOUND);
      if (reply.created_by !== caller.user_id && !privileged(caller, membership)) {
        throw forbidden("Not authorized to delete this reply");
      }
      const deleted = await store.deleteReply(id, comment_id, reply_id, (op) => {
        broadcast(op, id, "reply_deleted", comment_id);
      });
      if (!deleted) throw notFound(REPLY_NOT_FOUND);
      return c.json({ deleted: true as const }, 200);
    },
  );
}
