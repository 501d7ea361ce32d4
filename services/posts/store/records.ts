/**
 * A stored post as the API shows it: without its private publishing fields, with the fields an
 * older record lacks defaulted, and (on the wire) with its text and current approvals.
 */
import type { Post, PostRecord } from "../schemas.ts";
import { approvalKey, textFingerprintSync } from "../fingerprints.ts";
import type { StoredPost } from "../store.ts";

/** The post as answered: the record without its private publishing fields. */
export function publicRecord(stored: StoredPost): PostRecord {
  const {
    content_chunks: _chunks,
    approved_fingerprint: _fp,
    scheduled_by: _by,
    scheduled_by_name: _byName,
    schedule_id: _sid,
    publish_attempt: _attempt,
    publish_first_try: _first,
    publish_retries: _retries,
    approved_extras_fingerprint: _extras,
    first_comment_attempt: _commentAttempt,
    first_comment_retries: _commentRetries,
    ...record
  } = stored;
  return {
    ...record,
    media: record.media ?? [],
    first_comment: record.first_comment ?? null,
    publish_as: record.publish_as ?? "member",
    linkedin_first_comment_urn: record.linkedin_first_comment_urn ?? null,
    first_comment_error: record.first_comment_error ?? null,
    reviewer_ids: record.reviewer_ids ?? [],
    approved_by: record.approved_by ?? null,
    approved_at: record.approved_at ?? null,
    linkedin_post_urn: record.linkedin_post_urn ?? null,
    linkedin_post_url: record.linkedin_post_url ?? null,
    publish_error: record.publish_error ?? null,
  };
}

/** A stored post with the review and publishing fields an older record lacks. */
export function upgraded(stored: StoredPost): StoredPost {
  return { ...stored, ...publicRecord(stored) };
}

/** A post as the wire shows it: the record with its text. */
export function withContent(record: PostRecord, content: string): Post {
  return {
    post_id: record.post_id,
    workspace_id: record.workspace_id,
    title: record.title,
    content,
    status: record.status,
    author_id: record.author_id,
    author_name: record.author_name,
    source_idea_id: record.source_idea_id,
    tags: record.tags,
    scheduled_at: record.scheduled_at,
    published_at: record.published_at,
    created_at: record.created_at,
    updated_at: record.updated_at,
    reviewer_ids: record.reviewer_ids ?? [],
    approved_by: record.approved_by ?? null,
    approved_at: record.approved_at ?? null,
    linkedin_post_urn: record.linkedin_post_urn ?? null,
    linkedin_post_url: record.linkedin_post_url ?? null,
    publish_error: record.publish_error ?? null,
    media: record.media ?? [],
    first_comment: record.first_comment ?? null,
    publish_as: record.publish_as ?? "member",
    linkedin_first_comment_urn: record.linkedin_first_comment_urn ?? null,
    first_comment_error: record.first_comment_error ?? null,
    approvals: currentApprovals(record, content),
  };
}

/** The approvals of `record` that hold for `content` and its media and first comment. */
function currentApprovals(record: PostRecord, content: string) {
  if (!record.approvals?.length) return [];
  const holds = approvalKey(textFingerprintSync(content), record);
  return record.approvals.filter((a) => a.content === holds).map(({ content: _, ...a }) => a);
}
