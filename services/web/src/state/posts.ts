/**
 * Posts of a workspace: the board (by status, a page at a time), the whole list (for pickers),
 * one post (the editor polls it to stay fresh), the writes (title and tags, status) and
 * publishing (schedule, unschedule, publish now).
 */
import { call, client, type Schemas } from "./api.ts";
import { BOARD_PAGE, pagedBoard } from "./paged.ts";

export type Post = Schemas["Post"];

export interface PostQuery {
  workspaceId: string;
  /** one status, or undefined for every post */
  status?: Post["status"];
}

/** The posts board: newest first, `BOARD_PAGE` at a time, the status tab sent to the server. */
export const postBoard = pagedBoard<Post, PostQuery>(
  (q, cursor) =>
    call(
      client().GET("/api/posts", {
        params: {
          query: {
            workspaceId: q.workspaceId,
            ...(q.status ? { status: q.status } : {}),
            limit: BOARD_PAGE,
            ...(cursor ? { cursor } : {}),
          },
        },
      }),
    ),
  (q) => JSON.stringify([q.workspaceId, q.status ?? ""]),
  (post) => post.post_id,
);

/** Every post of the workspace, newest first (a picker's choices). */
export async function loadPosts(workspaceId: string) {
  return await call(client().GET("/api/posts", { params: { query: { workspaceId } } }));
}

export function getPost(workspaceId: string, id: string): Promise<Post> {
  return call(
    client().GET("/api/posts/{id}", {
      params: { path: { id }, query: { workspaceId } },
    }),
  );
}

/** A new post, empty or written from an idea (`title` and `source_idea_id`). */
export function createPost(
  workspaceId: string,
  from: { title?: string; source_idea_id?: string } = {},
): Promise<Post> {
  return call(client().POST("/api/posts", { body: { workspace_id: workspaceId, ...from } }));
}

export function updatePost(post: Post, fields: { title: string; tags: string[] }): Promise<Post> {
  return call(
    client().PUT("/api/posts/{id}", {
      params: { path: { id: post.post_id } },
      body: { workspace_id: post.workspace_id, ...fields },
    }),
  );
}

/**
 * The first comment (null: none) or who the post is published as (`"member"` or an
 * organization URN of the workspace's LinkedIn connection).
 */
export function savePublishing(
  post: Pick<Post, "workspace_id" | "post_id">,
  fields: { first_comment: string | null } | { publish_as: string },
): Promise<Post> {
  return call(
    client().PUT("/api/posts/{id}", {
      params: { path: { id: post.post_id } },
      body: { workspace_id: post.workspace_id, ...fields },
    }),
  );
}

export function setPostStatus(post: Post, status: Post["status"]): Promise<Post> {
  return call(
    client().PUT("/api/posts/{id}/status", {
      params: { path: { id: post.post_id } },
      body: { workspace_id: post.workspace_id, status },
    }),
  );
}

/** Schedules at `at`, or at the workspace's next free slot without it. */
export function schedulePost(workspaceId: string, postId: string, at?: string) {
  return call(
    client().POST("/api/posts/{id}/schedule", {
      params: { path: { id: postId } },
      body: at ? { workspace_id: workspaceId, at } : { workspace_id: workspaceId },
    }),
  );
}

export function publishPost(workspaceId: string, postId: string) {
  return call(
    client().POST("/api/posts/{id}/publish", {
      params: { path: { id: postId } },
      body: { workspace_id: workspaceId },
    }),
  );
}

export function unschedulePost(workspaceId: string, postId: string) {
  return call(
    client().DELETE("/api/posts/{id}/schedule", {
      params: { path: { id: postId }, query: { workspaceId } },
    }),
  );
}

/**
 * The fields whose change the editor must show: the review bar's, the status select's, and
 * what is published beside the text (media without their download URLs, which a Get signs
 * anew each time, the first comment, who publishes).
 */
export function postSignature(p: Post): string {
  return JSON.stringify([
    p.status,
    p.scheduled_at,
    p.approved_by,
    p.approved_at,
    p.reviewer_ids,
    p.publish_error,
    p.linkedin_post_url,
    p.published_at,
    (p.media ?? []).map((m) => [m.media_id, m.alt_text, m.title]),
    p.first_comment,
    p.publish_as,
    p.first_comment_error,
    p.linkedin_first_comment_urn,
  ]);
}

export interface WatchPostOptions {
  workspaceId: string;
  postId: string;
  everyMs: number;
  /** The post as the screen shows it now. */
  current: () => Post;
  /** A fresh read whose signature differs from `current()`. */
  onChange: (fresh: Post, before: Post) => void;
  /** Reads only while this holds (the tab is visible). */
  isVisible?: () => boolean;
  /** Calls `wake` when a read should happen at once (focus, the tab shown); answers an unsubscribe. */
  subscribeWake?: (wake: () => void) => () => void;
}

function pageWake(wake: () => void): () => void {
  globalThis.addEventListener("focus", wake);
  document.addEventListener("visibilitychange", wake);
  return () => {
    globalThis.removeEventListener("focus", wake);
    document.removeEventListener("visibilitychange", wake);
  };
}

/**
 * Keeps a post fresh: a light poll while visible, and a read when the window regains focus;
 * one read at a time, a failed read changes nothing. Answers the function that stops it.
 */
export function watchPost(o: WatchPostOptions): () => void {
  const isVisible = o.isVisible ?? (() => document.visibilityState === "visible");
  let live = true;
  let busy = false;
  const refresh = async () => {
    if (busy || !isVisible()) return;
    busy = true;
    try {
      const fresh = await getPost(o.workspaceId, o.postId);
      if (!live) return;
      const before = o.current();
      // A read that started before a change the screen already shows (the answer to its own
      // write came first) is older than it: showing it would undo the change for a while.
      if (fresh.updated_at < before.updated_at) return;
      if (postSignature(fresh) !== postSignature(before)) o.onChange(fresh, before);
    } catch {
      // a failed background read changes nothing; the next tick tries again
    } finally {
      busy = false;
    }
  };
  const timer = setInterval(() => void refresh(), o.everyMs);
  const unsubscribe = (o.subscribeWake ?? pageWake)(() => void refresh());
  return () => {
    live = false;
    clearInterval(timer);
    unsubscribe();
  };
}
