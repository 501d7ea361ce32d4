import { newId } from "../../shared/crypto/ids.ts";
import type { PostRecord } from "./schemas.ts";

/** A draft post record of `workspaceId` for store tests, with `overrides`. */
export function record(workspaceId: string, overrides: Partial<PostRecord> = {}): PostRecord {
  const now = "2026-01-01T00:00:00.000+00:00";
  return {
    post_id: newId(),
    workspace_id: workspaceId,
    title: "t",
    status: "draft",
    author_id: "u1",
    author_name: "U",
    source_idea_id: null,
    tags: [],
    scheduled_at: null,
    published_at: null,
    created_at: now,
    updated_at: now,
    reviewer_ids: [],
    approved_by: null,
    approved_at: null,
    linkedin_post_urn: null,
    linkedin_post_url: null,
    publish_error: null,
    media: [],
    first_comment: null,
    publish_as: "member",
    linkedin_first_comment_urn: null,
    first_comment_error: null,
    ...overrides,
  };
}
