/** A post's reviews: the list, asking members to review, and giving a decision. */
import { call, client, type Schemas } from "./api.ts";

type Post = Schemas["Post"];

export function loadReviews(workspaceId: string, postId: string) {
  return call(
    client().GET("/api/posts/{id}/reviews", {
      params: { path: { id: postId }, query: { workspaceId } },
    }),
  );
}

export function requestReview(post: Post, reviewerIds: string[], note: string | null) {
  return call(
    client().POST("/api/posts/{id}/review-requests", {
      params: { path: { id: post.post_id } },
      body: { workspace_id: post.workspace_id, reviewer_ids: reviewerIds, note },
    }),
  );
}

export function submitReview(
  post: Post,
  decision: "approve" | "request_changes",
  note: string | null,
) {
  return call(
    client().POST("/api/posts/{id}/reviews", {
      params: { path: { id: post.post_id } },
      body: { workspace_id: post.workspace_id, decision, note },
    }),
  );
}
