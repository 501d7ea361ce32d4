import { createRoute, type RouteConfig } from "@hono/zod-openapi";
import { bearer, body, errors, json } from "../../shared/http/openapi.ts";
import { requireCaller, type ServiceApp } from "../../shared/http/service_app.ts";
import type { WorkspacesClient } from "../workspaces/client.ts";
import type { PostOperations } from "./operations.ts";
import type { ReviewOperations } from "./review.ts";
import {
  postIdParam,
  postSchema,
  reviewDecisionBody,
  reviewListSchema,
  reviewRequestBody,
  workspaceQuery,
} from "./schemas.ts";
import type { PostsStore } from "./store.ts";

const reviewTag = { tags: ["Review"], security: bearer } satisfies Partial<RouteConfig>;

/**
 * The review routes. Every route: membership (403 `Not a workspace member`),
 * then the post in that workspace (404 `Post not found`), then the rule of the route.
 */
export function mountReviewRoutes(app: ServiceApp, deps: {
  store: PostsStore;
  posts: PostOperations;
  review: ReviewOperations;
  workspaces: WorkspacesClient;
}): void {
  const { store, posts, review, workspaces } = deps;

  app.openapi(
    createRoute({
      ...reviewTag,
      method: "post",
      path: "/api/posts/{id}/review-requests",
      summary: "Ask 1 to 10 owners or editors (not the author) to review the post; " +
        "it becomes `in_review` and each reviewer gets a `review_requested` DM",
      request: { params: postIdParam, ...body(reviewRequestBody) },
      responses: {
        200: json(postSchema, "The post, in review"),
        ...errors(400, 401, 403, 404, 409),
      },
    }),
    async (c) => {
      const caller = requireCaller(c);
      const { id } = c.req.valid("param");
      const input = c.req.valid("json");
      await workspaces.requireMember(input.workspace_id, caller.user_id);
      const post = await review.requestReview(
        caller,
        input.workspace_id,
        id,
        input.reviewer_ids,
        input.note,
      );
      return c.json(post, 200);
    },
  );

  app.openapi(
    createRoute({
      ...reviewTag,
      method: "post",
      path: "/api/posts/{id}/reviews",
      summary: "Approve or request changes (owner or editor, never the author; the post must " +
        "be `in_review`); the author gets a `review_decided` DM",
      request: { params: postIdParam, ...body(reviewDecisionBody) },
      responses: { 200: json(postSchema, "The post"), ...errors(400, 401, 403, 404, 409) },
    }),
    async (c) => {
      const caller = requireCaller(c);
      const { id } = c.req.valid("param");
      const input = c.req.valid("json");
      const membership = await workspaces.requireMember(input.workspace_id, caller.user_id);
      const post = await review.decide(
        caller,
        membership.role,
        input.workspace_id,
        id,
        input.decision,
        input.note,
      );
      return c.json(post, 200);
    },
  );

  app.openapi(
    createRoute({
      ...reviewTag,
      method: "get",
      path: "/api/posts/{id}/reviews",
      summary: "The post's review decisions, oldest first",
      request: { params: postIdParam, query: workspaceQuery },
      responses: { 200: json(reviewListSchema, "The reviews"), ...errors(400, 401, 403, 404) },
    }),
    async (c) => {
      const caller = requireCaller(c);
      const { id } = c.req.valid("param");
      const { workspaceId } = c.req.valid("query");
      await workspaces.requireMember(workspaceId, caller.user_id);
      await posts.require(workspaceId, id);
      const items = await store.listReviews(id);
      return c.json({ items, count: items.length }, 200);
    },
  );
}
