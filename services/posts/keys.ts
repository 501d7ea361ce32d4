import { DELIVERY_KEYS } from "../../shared/delivery/mod.ts";
import { declareKeys } from "../../shared/kv/kv_keys.ts";
import { QUEUE_KEYS } from "../../shared/queue/queue.ts";

// Key builders: the only place the posts KV layout is spelled out (store.ts and
// linkedin_connections.ts use them).
export function postKey(workspaceId: string, postId: string): Deno.KvKey {
  return ["posts", workspaceId, postId];
}
export function workspacePostsPrefix(workspaceId: string): Deno.KvKey {
  return ["posts", workspaceId];
}
// The indexes of the paged list, one per filter; each entry's key ends in the post's id, so a
// range of one is newest first read backwards, like `["posts", ws]` itself.
export function postsByStatus(workspaceId: string, status: string): Deno.KvKey {
  return ["posts_by_status", workspaceId, status];
}
export function postsByAuthor(workspaceId: string, authorId: string): Deno.KvKey {
  return ["posts_by_author", workspaceId, authorId];
}
/** The index entries of one post. */
export function postIndexKeys(
  post: { workspace_id: string; post_id: string; status: string; author_id: string },
): Deno.KvKey[] {
  return [
    [...postsByStatus(post.workspace_id, post.status), post.post_id],
    [...postsByAuthor(post.workspace_id, post.author_id), post.post_id],
  ];
}
/** Set once every post is in the indexes above (start-up, and after a restore). */
export const POST_INDEXES_BUILT: Deno.KvKey = ["index_builds", "post_lists"];

/** An approved or scheduled post's approved fingerprint: what posts compares live texts with. */
export function approvedTextKey(postId: string): Deno.KvKey {
  return ["approved_texts", postId];
}
export function postWorkspaceKey(postId: string): Deno.KvKey {
  return ["post_workspaces", postId];
}
export function postContentKey(postId: string, chunk: number): Deno.KvKey {
  return ["post_content", postId, chunk];
}
export function postContentPrefix(postId: string): Deno.KvKey {
  return ["post_content", postId];
}
export function postCountKey(): Deno.KvKey {
  return ["post_counters", "total"];
}
export function exampleKey(workspaceId: string, exampleId: string): Deno.KvKey {
  return ["examples", workspaceId, exampleId];
}
export function workspaceExamplesPrefix(workspaceId: string): Deno.KvKey {
  return ["examples", workspaceId];
}
export function commentKey(postId: string, commentId: string): Deno.KvKey {
  return ["comments", postId, commentId];
}
export function postCommentsPrefix(postId: string): Deno.KvKey {
  return ["comments", postId];
}
export function replyKey(postId: string, commentId: string, replyId: string): Deno.KvKey {
  return ["comment_replies", postId, commentId, replyId];
}
export function commentRepliesPrefix(postId: string, commentId: string): Deno.KvKey {
  return ["comment_replies", postId, commentId];
}
export function postRepliesPrefix(postId: string): Deno.KvKey {
  return ["comment_replies", postId];
}

export function reviewKey(postId: string, reviewId: string): Deno.KvKey {
  return ["post_reviews", postId, reviewId];
}
export function postReviewsPrefix(postId: string): Deno.KvKey {
  return ["post_reviews", postId];
}
export function linkedinPublicationKey(publishedAt: string, postId: string): Deno.KvKey {
  return ["linkedin_publications", publishedAt, postId];
}
export function linkedinPublicationsPrefix(): Deno.KvKey {
  return ["linkedin_publications"];
}
/** A workspace's LinkedIn connection (linkedin_connections.ts) */
export const linkedinConnectionKey = (
  workspaceId: string,
): Deno.KvKey => ["linkedin_connections", workspaceId];
/** A LinkedIn OAuth state, by the SHA-256 of the state (linkedin_connections.ts) */
export const linkedinStateKey = (hash: string): Deno.KvKey => ["linkedin_states", hash];

/** A snapshot of what a post would publish (store/versions.ts) */
export const postVersionKey = (postId: string, versionId: string): Deno.KvKey => [
  "post_versions",
  postId,
  versionId,
];
export const postVersionsPrefix = (postId: string): Deno.KvKey => ["post_versions", postId];

/** A review link, by the SHA-256 of its token (review_links.ts) */
export const reviewLinkKey = (tokenHash: string): Deno.KvKey => ["review_links", tokenHash];
/** A post's review links: link id → the token hash */
export const postReviewLinkKey = (postId: string, linkId: string): Deno.KvKey => [
  "post_review_links",
  postId,
  linkId,
];
export const postReviewLinksPrefix = (postId: string): Deno.KvKey => ["post_review_links", postId];
/** Every post's review links */
export const allPostReviewLinksPrefix: Deno.KvKey = ["post_review_links"];
/** Requests to one review link in one minute */
export const reviewLinkHitsKey = (tokenHash: string, minute: number): Deno.KvKey => [
  "review_link_hits",
  tokenHash,
  minute,
];

/** The grant of a post media upload URL, by its upload id (store/media_uploads.ts) */
export const mediaUploadKey = (uploadId: string): Deno.KvKey => ["media_uploads", uploadId];

/**
 * Every key family the posts service writes, with its backup class: the one list its backup
 * and restore read.
 */
export const KEY_FAMILIES = declareKeys(
  {
    posts: "data",
    // an index of posts' approved fingerprints (rebuilt after a restore) and its marker
    approved_texts: "data",
    approved_texts_indexed: "data",
    post_workspaces: "data",
    post_content: "data",
    post_counters: "data",
    post_reviews: "data",
    comments: "data",
    comment_replies: "data",
    examples: "data",
    linkedin_publications: "data",
    post_versions: "data",
    // review links for reviewers without an account (only the token's hash is kept)
    review_links: "data",
    post_review_links: "data",
    // a review link's requests per minute: a restore neither brings old ones back nor resets them
    review_link_hits: "local",
    // the access token is sealed with a key that is not in this KV
    linkedin_connections: "data",
    // a LinkedIn connection's OAuth state: bound to a browser, single use
    linkedin_states: "session",
    // a single-use upload URL of a post's media: an hour at most, useless after a restore
    media_uploads: "session",
    // the paged list's indexes, built from the posts (start-up and after a restore)
    posts_by_status: "derived",
    posts_by_author: "derived",
    index_builds: "derived",
  },
  QUEUE_KEYS,
  DELIVERY_KEYS,
);
