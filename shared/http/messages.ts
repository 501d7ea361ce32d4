/**
 * The refusals many services answer word for word: one spelling, so every route (and its
 * OpenAPI document) says exactly the same.
 */
export const MESSAGES = {
  notMember: "Not a workspace member",
  postNotFound: "Post not found",
  adminRequired: "Admin access required",
  ownerOrEditorRequired: "Owner or editor role required",
} as const;
