import { createRoute, type RouteConfig } from "@hono/zod-openapi";
import { badRequest, conflict, forbidden, notFound } from "../../shared/http/app_error.ts";
import { bearer, body, errors, json } from "../../shared/http/openapi.ts";
import { requireCaller, type ServiceApp } from "../../shared/http/service_app.ts";
import { encodeCursor, pageRequest } from "../../shared/http/page_query.ts";
import type { WorkspacesClient } from "../workspaces/client.ts";
import type { LinkedInConnections } from "./linkedin_connections.ts";
import type { MediaOperations } from "./media.ts";
import type { PostOperations } from "./operations.ts";
import { canPublish, PUBLISH_MESSAGES } from "./publish_rules.ts";
import type { ReviewOperations } from "./review.ts";
import type { Scheduling } from "./scheduling.ts";
import {
  createPostBody,
  deletedSchema,
  listPostsQuery,
  postIdParam,
  postListSchema,
  POSTS_LIST,
  postSchema,
  postStatusBody,
  updatePostBody,
  workspaceQuery,
} from "./schemas.ts";
import type { PostsStore, StoredPost } from "./store.ts";
import type { PostRecord, PostStatus } from "./schemas.ts";
import { MESSAGES } from "../../shared/http/messages.ts";

export interface PostsRouteDeps {
  store: PostsStore;
  posts: PostOperations;
  workspaces: WorkspacesClient;
  /** the approval rules on status moves; absent for the example routes */
  review?: ReviewOperations;
  /** media download URLs on Get */
  media?: MediaOperations;
  /** the pages `publish_as` may name */
  connections?: LinkedInConnections;
  /** moving the `scheduled_at` of a scheduled post reschedules it */
  scheduling?: Scheduling;
}

const SCHEDULED_MEANWHILE =
  "The post was scheduled meanwhile: move it with POST /api/posts/{id}/schedule";

const postsTag = { tags: ["Posts"], security: bearer } satisfies Partial<RouteConfig>;

/** The posts API. Membership first (403), then the post (404). */
export function mountPostRoutes(app: ServiceApp, deps: PostsRouteDeps): void {
  const { store, posts, workspaces } = deps;

  app.openapi(
    createRoute({
      ...postsTag,
      method: "post",
      path: "/api/posts",
      summary: "Create a post (a `source_idea_id` idea becomes converted)",
      request: body(createPostBody),
      responses: { 201: json(postSchema, "The post"), ...errors(400, 401, 403, 404, 409) },
    }),
    async (c) => {
      const caller = requireCaller(c);
      const input = c.req.valid("json");
      await workspaces.requireMember(input.workspace_id, caller.user_id);
      const post = await posts.create({
        ...input,
        author_id: caller.user_id,
        author_name: caller.name,
      });
      return c.json(post, 201);
    },
  );

  app.openapi(
    createRoute({
      ...postsTag,
      method: "get",
      path: "/api/posts",
      summary: "List a workspace's posts, newest first; with `limit`, one page at a time",
      request: { query: listPostsQuery },
      responses: {
        200: json(postListSchema, "The posts (with `limit`: one page, and `next_cursor`)"),
        ...errors(400, 401, 403, 404),
      },
    }),
    async (c) => {
      const caller = requireCaller(c);
      const query = c.req.valid("query");
      const page = pageRequest(POSTS_LIST, query);
      await workspaces.requireMember(query.workspaceId, caller.user_id);
      if (page) {
        const { items, next } = await store.lists.page(query.workspaceId, {
          status: query.status as PostStatus | undefined,
          authorId: query.authorId,
        }, { limit: page.limit, after: page.after?.[0] });
        const withText = await posts.withLiveContent(items);
        const next_cursor = next === null ? null : encodeCursor(POSTS_LIST, [next]);
        return c.json({ items: withText, count: withText.length, next_cursor }, 200);
      }
      const records = (await store.listPosts(query.workspaceId)).filter((p) =>
        (query.status === undefined || p.status === query.status) &&
        (query.authorId === undefined || p.author_id === query.authorId)
      );
      const items = await posts.withLiveContent(records);
      return c.json({ items, count: items.length }, 200);
    },
  );

  app.openapi(
    createRoute({
      ...postsTag,
      method: "get",
      path: "/api/posts/{id}",
      summary: "Get a post with its current text (live edits included)",
      request: { params: postIdParam, query: workspaceQuery },
      responses: { 200: json(postSchema, "The post"), ...errors(400, 401, 403, 404) },
    }),
    async (c) => {
      const caller = requireCaller(c);
      const { id } = c.req.valid("param");
      const { workspaceId } = c.req.valid("query");
      await workspaces.requireMember(workspaceId, caller.user_id);
      const post = await posts.read(await posts.require(workspaceId, id));
      return c.json(deps.media ? await deps.media.withDownloadUrls(post) : post, 200);
    },
  );

  app.openapi(
    createRoute({
      ...postsTag,
      method: "put",
      path: "/api/posts/{id}",
      summary: "Update a post (a new `content` reaches every connected editor at once)",
      description: "`publish_as` needs the owner or editor role (403) and names `member` or " +
        "an organization of the workspace's LinkedIn connection (400 otherwise). A change of " +
        "the text or of `first_comment` withdraws an approval that covered the old ones. " +
        "Moving the `scheduled_at` of a scheduled post reschedules it (null unschedules it), " +
        "with the rules of `POST /api/posts/{id}/schedule`.",
      request: { params: postIdParam, ...body(updatePostBody) },
      responses: { 200: json(postSchema, "The post"), ...errors(400, 401, 403, 404, 409) },
    }),
    async (c) => {
      const caller = requireCaller(c);
      const { id } = c.req.valid("param");
      const { workspace_id, ...input } = c.req.valid("json");
      let changes = input;
      const membership = await workspaces.requireMember(workspace_id, caller.user_id);
      const before = await posts.require(workspace_id, id);
      if (changes.publish_as !== undefined) {
        if (!canPublish(membership.role)) throw forbidden(PUBLISH_MESSAGES.editorRole);
        if (changes.publish_as !== "member") {
          const connection = await deps.connections?.stored(workspace_id);
          if (!connection || !deps.connections!.authorUrn(connection, changes.publish_as)) {
            throw badRequest(PUBLISH_MESSAGES.unknownPage);
          }
        }
      }
      let guard: ((current: { status: PostStatus }) => void) | undefined;
      if (changes.scheduled_at !== undefined && deps.scheduling) {
        if (before.status === "scheduled") {
          // A scheduled post's `scheduled_at` is when its publish job runs: moving it is a
          // reschedule and clearing it an unschedule (owner or editor), never a label alone.
          const { scheduled_at: at, ...rest } = changes;
          if (at === null) await deps.scheduling.unschedule(caller, workspace_id, id);
          else if (Date.parse(at) !== Date.parse(before.scheduled_at ?? "")) {
            await deps.scheduling.schedule(caller, workspace_id, id, at);
          }
          changes = rest;
        } else {
          guard = (current) => {
            if (current.status === "scheduled") throw conflict(SCHEDULED_MEANWHILE);
          };
        }
      }
      const post = await posts.update(workspace_id, id, changes, {
        actorId: caller.user_id,
        guard,
      });
      const sentBack = changes.first_comment !== undefined
        ? await deps.review?.extrasChanged(workspace_id, id, caller.user_id)
        : null;
      return c.json(sentBack ?? post, 200);
    },
  );

  app.openapi(
    createRoute({
      ...postsTag,
      method: "put",
      path: "/api/posts/{id}/status",
      summary: "Change a post's status (any to any; `published` stamps `published_at`). " +
        "When the workspace requires approval: `approved` only through a review (409), " +
        "`scheduled` and `published` only from `approved` (409)",
      description: "Moving a post that is scheduled for publishing (it has a publish job) to " +
        "another status cancels its publication, so it needs the owner or editor role, as " +
        "unscheduling does (403 `Owner or editor role required`).",
      request: { params: postIdParam, ...body(postStatusBody) },
      responses: { 200: json(postSchema, "The post"), ...errors(400, 401, 403, 404, 409) },
    }),
    async (c) => {
      const caller = requireCaller(c);
      const { id } = c.req.valid("param");
      const { workspace_id, status } = c.req.valid("json");
      const membership = await workspaces.requireMember(workspace_id, caller.user_id);
      await posts.require(workspace_id, id);
      const approval = await deps.review?.statusGuard(workspace_id, status);
      const guard = (current: PostRecord, stored: StoredPost) => {
        // Moving a post with a publish job out of `scheduled` cancels its publication: that is
        // unscheduling (owner or editor), as DELETE /api/posts/{id}/schedule is.
        const leavesSchedule = current.status === "scheduled" && !!stored.schedule_id &&
          status !== "scheduled";
        if (leavesSchedule && !canPublish(membership.role)) {
          throw forbidden(PUBLISH_MESSAGES.editorRole);
        }
        approval?.(current);
      };
      return c.json(await posts.update(workspace_id, id, { status }, { guard }), 200);
    },
  );

  app.openapi(
    createRoute({
      ...postsTag,
      method: "delete",
      path: "/api/posts/{id}",
      summary: "Delete a post, its comments and its live document " +
        "(author, workspace owner or platform admin)",
      request: { params: postIdParam, query: workspaceQuery },
      responses: { 200: json(deletedSchema, "Deleted"), ...errors(400, 401, 403, 404) },
    }),
    async (c) => {
      const caller = requireCaller(c);
      const { id } = c.req.valid("param");
      const { workspaceId } = c.req.valid("query");
      const membership = await workspaces.requireMember(workspaceId, caller.user_id);
      const post = await posts.require(workspaceId, id);
      const allowed = post.author_id === caller.user_id || membership.role === "owner" ||
        caller.role === "admin";
      if (!allowed) throw forbidden("Not authorized to delete this post");
      if (!await posts.delete(workspaceId, id)) throw notFound(MESSAGES.postNotFound);
      return c.json({ deleted: true as const }, 200);
    },
  );
}
