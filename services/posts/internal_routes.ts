import { AppError, notFound } from "../../shared/http/app_error.ts";
import { internalBody, internalQuery } from "../../shared/http/internal_input.ts";
import { requireCaller, type ServiceApp } from "../../shared/http/service_app.ts";
import { toIso } from "../../shared/time.ts";
import type { PostOperations } from "./operations.ts";
import type { Scheduling } from "./scheduling.ts";
import type { ReviewOperations } from "./review.ts";
import {
  ID_MAX,
  internalContentBody,
  internalCreatePostBody,
  internalFirstCommentBody,
  listPostsQuery,
  POST_NOT_FOUND,
  reviewRequestBody,
  scheduleBody,
} from "./schemas.ts";
import type { PostsStore } from "./store.ts";

/** Published within this many days counts for the admin metric. */
const PUBLISHED_WINDOW_DAYS = 30;

/** A path id; an over-long one names no post (and must not reach a key). */
function postId(value: string | undefined): string {
  if (!value || value.length > ID_MAX) throw notFound(POST_NOT_FOUND);
  return value;
}

/**
 * Routes for peers only (never routed by the gateway, left out of the public document):
 * collab checks a post at WebSocket connect, genai reads posts and examples, MCP creates posts
 * and replaces their text, admin reads the figures.
 */
export function mountPostsInternal(
  app: ServiceApp,
  deps: {
    store: PostsStore;
    posts: PostOperations;
    review: ReviewOperations;
    scheduling: Scheduling;
  },
): void {
  const { store, posts, review, scheduling } = deps;

  /** MCP list_posts: the workspace's posts (the caller's membership is MCP's check). */
  app.get("/internal/posts", async (c) => {
    const { workspaceId, status } = internalQuery(c, listPostsQuery);
    const records = (await store.listPosts(workspaceId)).filter((p) =>
      status === undefined || p.status === status
    );
    return c.json({ items: records, count: records.length });
  });

  /**
   * MCP request_review and schedule_post, acting for the caller in the caller header (MCP's
   * verified caller, whose membership these routes check like the REST routes do).
   */
  app.post("/internal/posts/:id/review-requests", async (c) => {
    const caller = requireCaller(c);
    const id = postId(c.req.param("id"));
    const input = await internalBody(c, reviewRequestBody);
    await review.requireMember(input.workspace_id, caller.user_id);
    return c.json(
      await review.requestReview(caller, input.workspace_id, id, input.reviewer_ids, input.note),
    );
  });

  app.post("/internal/posts/:id/schedule", async (c) => {
    const caller = requireCaller(c);
    const id = postId(c.req.param("id"));
    const input = await internalBody(c, scheduleBody);
    return c.json(await scheduling.schedule(caller, input.workspace_id, id, input.at));
  });

  /**
   * The post by id. `workspaceId`: 404 unless it is in that workspace. `live=false`: the four
   * fields peers need (genai), without asking collab for the text.
   */
  app.get("/internal/posts/:id", async (c) => {
    const record = await store.findPost(postId(c.req.param("id")));
    const ws = c.req.query("workspaceId");
    if (!record || (ws && record.workspace_id !== ws)) throw notFound(POST_NOT_FOUND);
    if (c.req.query("live") === "false") {
      return c.json({
        post_id: record.post_id,
        workspace_id: record.workspace_id,
        author_id: record.author_id,
        title: record.title,
      });
    }
    return c.json(await posts.read(record));
  });

  /**
   * MCP generate_post: a post by `author_id` (whose membership MCP has checked), from the idea
   * `source_idea_id` that MCP has just read and found `new`.
   */
  app.post("/internal/posts", async (c) => {
    const input = await internalBody(c, internalCreatePostBody);
    const post = await posts.create(
      { ...input, author_name: input.author_name ?? "" },
      { ideaChecked: true },
    );
    return c.json(post, 201);
  });

  /** MCP iterate_post: the text replaced, in the live document and the stored copy. */
  app.put("/internal/posts/:id/content", async (c) => {
    const id = postId(c.req.param("id"));
    const input = await internalBody(c, internalContentBody);
    const record = await store.findPost(id);
    if (!record || (input.workspace_id && record.workspace_id !== input.workspace_id)) {
      throw notFound(POST_NOT_FOUND);
    }
    return c.json(
      await posts.update(record.workspace_id, id, { content: input.content }, {
        actorId: input.actor_id,
      }),
    );
  });

  /** MCP set_first_comment: the comment posted once right after the post (null: none). */
  app.put("/internal/posts/:id/first-comment", async (c) => {
    const id = postId(c.req.param("id"));
    const input = await internalBody(c, internalFirstCommentBody);
    const record = await store.findPost(id);
    if (!record || record.workspace_id !== input.workspace_id) throw notFound(POST_NOT_FOUND);
    await posts.update(record.workspace_id, id, { first_comment: input.first_comment });
    const sentBack = await review.extrasChanged(record.workspace_id, id, input.actor_id);
    return c.json(sentBack ?? await posts.read((await store.findPost(id))!));
  });

  /** The workspace's example posts (genai). */
  app.get("/internal/examples", async (c) => {
    const ws = c.req.query("workspaceId") ?? "";
    if (!ws.trim()) throw new AppError(400, "workspaceId is required");
    const items = ws.length > ID_MAX ? [] : await store.examples.listExamples(ws);
    return c.json({ items, count: items.length });
  });

  /** Admin metrics: maintained count, and posts published in the last 30 days. */
  app.get("/internal/stats", async (c) => {
    const since = toIso(new Date(Date.now() - PUBLISHED_WINDOW_DAYS * 86_400_000));
    const stats = await store.stats(since);
    return c.json({
      total_posts: stats.total_posts,
      posts_published_last_30_days: stats.published_since,
    });
  });
}
