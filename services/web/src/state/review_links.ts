/**
 * Review links: a post's links for reviewers without an account (made, listed and revoked by
 * the workspace's owners and editors), and the outside reviewer's side, which needs no session:
 * the token in the link is the only credential.
 */
import { call, client, type Schemas } from "./api.ts";

export type ReviewLink = Schemas["ReviewLink"];
export type ReviewLinkView = Schemas["ReviewLinkView"];
export type ReviewDecision = "approve" | "request_changes";

/** The hours a new link lives unless the maker says otherwise. */
export const DEFAULT_LINK_HOURS = 72;
export const MAX_LINK_HOURS = 336;

export function loadReviewLinks(workspaceId: string, postId: string) {
  return call(
    client().GET("/api/posts/{id}/review-links", {
      params: { path: { id: postId }, query: { workspaceId } },
    }),
  );
}

/** A new link for `reviewerName`; its `url` is shown once (only a hash is kept). */
export function createReviewLink(
  workspaceId: string,
  postId: string,
  reviewerName: string,
  expiresInHours: number,
) {
  return call(
    client().POST("/api/posts/{id}/review-links", {
      params: { path: { id: postId } },
      body: {
        workspace_id: workspaceId,
        reviewer_name: reviewerName,
        expires_in_hours: expiresInHours,
      },
    }),
  );
}

export async function revokeReviewLink(
  workspaceId: string,
  postId: string,
  linkId: string,
): Promise<void> {
  await call(
    client().DELETE("/api/posts/{id}/review-links/{link_id}", {
      params: { path: { id: postId, link_id: linkId }, query: { workspaceId } },
    }),
  );
}

/** What the outside reviewer sees: 404 once the link is expired, revoked or outdated. */
export function openReviewLink(token: string): Promise<ReviewLinkView> {
  return call(client().GET("/api/review-links/{token}", { params: { path: { token } } }));
}

/** The outside reviewer's one decision (409 when the link already has one). */
export function decideReviewLink(token: string, decision: ReviewDecision, note: string | null) {
  return call(
    client().POST("/api/review-links/{token}/decision", {
      params: { path: { token } },
      body: { decision, note },
    }),
  );
}
