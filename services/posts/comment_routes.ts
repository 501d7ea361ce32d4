import { createRoute, type RouteConfig } from "@hono/zod-openapi";
import { bearer, body, errors, json } from "../../shared/http/openapi.ts";
import { requireCaller, type ServiceApp } from "../../shared/http/service_app.ts";
import { encodeCursor, pageRequest } from "../../shared/http/page_query.ts";
import { type CommentDeps, CommentOperations } from "./comments.ts";
import {
  commentListSchema,
  commentParams,
  COMMENTS_LIST,
  commentSchema,
  createCommentBody,
  createReplyBody,
  deletedSchema,
  listCommentsQuery,
  replyParams,
  workspaceBody,
  workspaceQuery,
} from "./schemas.ts";

const commentsTag = { tags: ["Comments"], security: bearer } satisfies Partial<RouteConfig>;

/** The spec's Comments section; the rules of each route are `CommentOperations`'. */
export function mountCommentRoutes(app: ServiceApp, deps: CommentDeps): void {
  const comments = new CommentOperations(deps);

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
      return c.json(await comments.add(caller, id, c.req.valid("json")), 201);
    },
  );

  app.openapi(
    createRoute({
      ...commentsTag,
      method: "get",
      path: "/api/posts/{id}/comments",
      summary: "List a post's comments with their replies, in insertion order; " +
        "with `limit`, one page at a time",
      request: { params: commentParams.pick({ id: true }), query: listCommentsQuery },
      responses: {
        200: json(commentListSchema, "The comments (with `limit`: one page, and `next_cursor`)"),
        ...errors(400, 401, 403, 404),
      },
    }),
    async (c) => {
      const caller = requireCaller(c);
      const { id } = c.req.valid("param");
      const query = c.req.valid("query");
      const { workspaceId } = query;
      const page = pageRequest(COMMENTS_LIST, query);
      if (page) {
        const { items, next } = await comments.listPage(caller, workspaceId, id, {
          limit: page.limit,
          after: page.after?.[0],
        });
        const next_cursor = next === null ? null : encodeCursor(COMMENTS_LIST, [next]);
        return c.json({ items, count: items.length, next_cursor }, 200);
      }
      const items = await comments.list(caller, workspaceId, id);
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
      await comments.delete(caller, workspaceId, id, comment_id);
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
      return c.json(await comments.toggleResolved(caller, workspace_id, id, comment_id), 200);
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
      return c.json(await comments.reply(caller, id, comment_id, c.req.valid("json")), 200);
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
      await comments.deleteReply(caller, workspaceId, id, comment_id, reply_id);
      return c.json({ deleted: true as const }, 200);
    },
  );
}
