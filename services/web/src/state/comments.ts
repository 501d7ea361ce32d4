/**
 * Comments of a post: the list and the writes (comment, reply, resolve, delete). The panel
 * refetches the list after each write and when the post's comment marks change.
 */
import { signal } from "@preact/signals";
import { call, client, type Schemas } from "./api.ts";

export type Comment = Schemas["Comment"];

/** The last list loaded, with the post it belongs to. */
export const comments = signal<{ postId: string; items: Comment[] } | null>(null);

export async function loadComments(workspaceId: string, postId: string) {
  const data = await call(
    client().GET("/api/posts/{id}/comments", {
      params: { path: { id: postId }, query: { workspaceId } },
    }),
  );
  comments.value = { postId, items: data.items };
  return data;
}

/**
 * A new comment, anchored to a mark in the text when `anchor` is given; each member in
 * `mentions` (user ids) is told they were mentioned.
 */
export function addComment(
  workspaceId: string,
  postId: string,
  body: string,
  anchor?: { markId: string; excerpt: string },
  mentions: string[] = [],
) {
  return call(
    client().POST("/api/posts/{id}/comments", {
      params: { path: { id: postId } },
      body: {
        workspace_id: workspaceId,
        body,
        ...(anchor ? { mark_id: anchor.markId, text_excerpt: anchor.excerpt } : {}),
        ...(mentions.length > 0 ? { mentions } : {}),
      },
    }),
  );
}

export function toggleResolved(workspaceId: string, postId: string, commentId: string) {
  return call(
    client().POST("/api/posts/{id}/comments/{comment_id}/resolve", {
      params: { path: { id: postId, comment_id: commentId } },
      body: { workspace_id: workspaceId },
    }),
  );
}

export function deleteComment(workspaceId: string, postId: string, commentId: string) {
  return call(
    client().DELETE("/api/posts/{id}/comments/{comment_id}", {
      params: { path: { id: postId, comment_id: commentId }, query: { workspaceId } },
    }),
  );
}

export function addReply(
  workspaceId: string,
  postId: string,
  commentId: string,
  body: string,
  mentions: string[] = [],
) {
  return call(
    client().POST("/api/posts/{id}/comments/{comment_id}/replies", {
      params: { path: { id: postId, comment_id: commentId } },
      body: { workspace_id: workspaceId, body, ...(mentions.length > 0 ? { mentions } : {}) },
    }),
  );
}

export function deleteReply(
  workspaceId: string,
  postId: string,
  commentId: string,
  replyId: string,
) {
  return call(
    client().DELETE("/api/posts/{id}/comments/{comment_id}/replies/{reply_id}", {
      params: {
        path: { id: postId, comment_id: commentId, reply_id: replyId },
        query: { workspaceId },
      },
    }),
  );
}
