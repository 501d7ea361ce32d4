import { z } from "zod";
import { InternalClient, type PassedOnStatus } from "../../shared/service/internal_client.ts";
import type { Caller } from "../../shared/http/identity.ts";
import { exampleSchema, type Post, type PostRecord, postSchema } from "./schemas.ts";
import type { ServiceDirectory } from "../../shared/service/service_directory.ts";

export type { Post, PostRecord };

/** What collab needs at WebSocket connect: whose post it is and in which workspace. */
export const postInfoSchema = z.object({
  post_id: z.string(),
  workspace_id: z.string(),
  author_id: z.string(),
  title: z.string(),
});
export type PostInfo = z.infer<typeof postInfoSchema>;

/** The example post record, validated with the schema the posts routes answer with. */
export const examplePostSchema = exampleSchema;
export type ExamplePost = z.infer<typeof examplePostSchema>;

export const postStatsSchema = z.object({
  total_posts: z.number().int(),
  posts_published_last_30_days: z.number().int(),
});
export type PostStats = z.infer<typeof postStatsSchema>;

/** The asset key of a post's media bytes: its upload URLs are claimed from posts. */
export const POST_MEDIA_KEY = /^workspaces\/[^/]+\/posts\/[^/]+\/media\/[^/]+\.(jpg|png|gif|pdf)$/;

/** The posts service's refusals, as its REST routes answer them. */
const PASSED_ON: readonly PassedOnStatus[] = [400, 403, 404, 409];
const enc = encodeURIComponent;

/** The typed client other services (collab, genai, mcp, admin) use to reach posts' internals. */
export class PostsClient {
  readonly #client: InternalClient;

  constructor(directory: ServiceDirectory, secret: string) {
    this.#client = new InternalClient("posts", directory.handler("posts"), secret);
  }

  /**
   * Claims the single-use upload URL `uploadId` of a post's media `key` before its bytes are
   * taken: answers the most bytes the upload may have; the refusal (403, 404, 409) is thrown.
   */
  async claimMediaUpload(key: string, uploadId: string): Promise<{ maxBytes: number }> {
    const answer = await this.#client.call(
      z.object({ max_bytes: z.number().int() }),
      "POST",
      "/internal/media/claim",
      { body: { key, upload_id: uploadId }, passOn: [403, 404, 409] },
    );
    return { maxBytes: answer.max_bytes };
  }

  /**
   * The post's owner and workspace only, without asking collab for the live text: what collab
   * checks at WebSocket connect. Null when there is no such post.
   */
  getPostInfo(postId: string): Promise<PostInfo | null> {
    return this.#client.json(postInfoSchema, "GET", `/internal/posts/${enc(postId)}?live=false`);
  }

  /**
   * The whole post with its current text (the live collab document's when there is one).
   * With `workspaceId`, null unless the post belongs to that workspace.
   */
  getPost(postId: string, workspaceId?: string): Promise<Post | null> {
    const query = workspaceId ? `?workspaceId=${enc(workspaceId)}` : "";
    return this.#client.json(postSchema, "GET", `/internal/posts/${enc(postId)}${query}`);
  }

  /** The workspace's example posts, newest first (genai ranks them by tag overlap). */
  async listExamples(workspaceId: string): Promise<ExamplePost[]> {
    const found = await this.#client.json(
      z.object({ items: z.array(examplePostSchema) }),
      "GET",
      `/internal/examples?workspaceId=${enc(workspaceId)}`,
    );
    return found?.items ?? [];
  }

  /**
   * Creates a post as `author_id` (MCP generate_post; the caller has checked membership).
   * With `source_idea_id`, an idea the caller has just read and found `new`, the idea becomes
   * converted, as on REST create. AppError 400/404/409 are passed on as answered.
   */
  async createPost(input: {
    workspace_id: string;
    title?: string;
    content?: string;
    tags?: string[];
    author_id: string;
    author_name?: string;
    source_idea_id?: string | null;
  }): Promise<Post> {
    return await this.#post("POST", "/internal/posts", { body: input });
  }

  /**
   * Replaces the post's text (MCP iterate_post): stored, and sent to every connected editor.
   * With `workspaceId`, 404 unless the post belongs to that workspace. `actorId` makes the
   * change (nobody is told of their own).
   */
  async setContent(
    postId: string,
    content: string,
    workspaceId?: string,
    actorId?: string,
  ): Promise<Post> {
    return await this.#post("PUT", `/internal/posts/${enc(postId)}/content`, {
      body: {
        content,
        ...(workspaceId ? { workspace_id: workspaceId } : {}),
        ...(actorId ? { actor_id: actorId } : {}),
      },
    });
  }

  /** Sets a post's first comment (MCP set_first_comment); 404 unless in `workspaceId`. */
  async setFirstComment(
    postId: string,
    workspaceId: string,
    firstComment: string | null,
    actorId?: string,
  ): Promise<Post> {
    return await this.#post("PUT", `/internal/posts/${enc(postId)}/first-comment`, {
      body: {
        workspace_id: workspaceId,
        first_comment: firstComment,
        ...(actorId ? { actor_id: actorId } : {}),
      },
    });
  }

  /** A workspace's posts, newest first, optionally of one status (MCP list_posts). */
  async listPosts(workspaceId: string, status?: string): Promise<PostRecord[]> {
    const query = `workspaceId=${enc(workspaceId)}${status ? `&status=${enc(status)}` : ""}`;
    // The route answers stored records: a post never reviewed has no `approvals` at all.
    const found = await this.#client.call(
      z.object({ items: z.array(postSchema.omit({ content: true, approvals: true })) }),
      "GET",
      `/internal/posts?${query}`,
      { passOn: [400] },
    );
    return found.items;
  }

  /** Asks for a review, acting for `caller` (MCP request_review); REST's errors passed on. */
  async requestReview(
    caller: Caller,
    postId: string,
    input: { workspace_id: string; reviewer_ids: string[]; note?: string },
  ): Promise<Post> {
    return await this.#post("POST", `/internal/posts/${enc(postId)}/review-requests`, {
      body: input,
      caller,
    });
  }

  /** Schedules, acting for `caller` (MCP schedule_post); REST's errors passed on. */
  async schedule(
    caller: Caller,
    postId: string,
    input: { workspace_id: string; at?: string },
  ): Promise<Post> {
    return await this.#post("POST", `/internal/posts/${enc(postId)}/schedule`, {
      body: input,
      caller,
    });
  }

  /** The admin metrics figures. */
  async stats(): Promise<PostStats> {
    return await this.#client.json(postStatsSchema, "GET", "/internal/stats") ??
      { total_posts: 0, posts_published_last_30_days: 0 };
  }

  /** A post from a 2xx answer; the posts service's refusals passed on as answered. */
  #post(method: string, path: string, options: { body: unknown; caller?: Caller }) {
    return this.#client.call(postSchema, method, path, { ...options, passOn: PASSED_ON });
  }
}
