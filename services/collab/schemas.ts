import { z } from "@hono/zod-openapi";
import { DEFAULT_LIMITS } from "./limits.ts";

/** Ids become KV key parts (2 KiB at most): anything longer is a 400, never a KV error. */
export const MAX_ID_LENGTH = 200;
/** The most post ids one contents lookup takes. */
export const MAX_CONTENT_IDS = 10_000;

const id = (name: string) =>
  z.string({ error: `${name} is required` }).min(1, `${name} is required`).max(
    MAX_ID_LENGTH,
    `${name} must be at most ${MAX_ID_LENGTH} characters`,
  );

/**
 * A ticket is whatever the client sends: one that is not a ticket (another credential, an
 * over-long value) is unknown, 401 like an expired one; only a missing ticket is a 400.
 */
export const wsQuerySchema = z.object({
  ticket: z.string({ error: "ticket is required" }).min(1, "ticket is required"),
  docId: id("docId"),
  workspaceId: id("workspaceId"),
}).openapi("CollabSocketQuery");

export const setContentBodySchema = z.object({
  workspace_id: id("workspace_id"),
  content: z.string({ error: "content must be a string" }).max(
    DEFAULT_LIMITS.maxTextChars,
    `content must be at most ${DEFAULT_LIMITS.maxTextChars} characters`,
  ),
});

export const contentsBodySchema = z.object({
  post_ids: z.array(id("post_ids[]"), { error: "post_ids must be an array" }).max(
    MAX_CONTENT_IDS,
    `post_ids must have at most ${MAX_CONTENT_IDS} ids`,
  ),
});

export const docWorkspacesBodySchema = z.object({
  docs: z.array(
    z.object({ post_id: id("docs[].post_id"), workspace_id: id("docs[].workspace_id") }),
  )
    .max(MAX_CONTENT_IDS, `docs must have at most ${MAX_CONTENT_IDS} entries`),
});

export const broadcastBodySchema = z.object({
  message: z.record(z.string(), z.unknown(), { error: "message must be an object" }),
});

/** The comment event the posts service broadcasts (spec, Events). */
export const commentEventSchema = z.object({
  type: z.literal("comment"),
  action: z.enum(["created", "deleted", "resolved", "unresolved", "reply_added", "reply_deleted"]),
  postId: z.string(),
  commentId: z.string(),
});
export type CommentEvent = z.infer<typeof commentEventSchema>;

export const contentSchema = z.object({ content: z.string() });
export const contentsSchema = z.object({ contents: z.record(z.string(), z.string()) });
export const fingerprintsSchema = z.object({ fingerprints: z.record(z.string(), z.string()) });
export const docStatsSchema = z.object({
  post_id: z.string(),
  seq: z.number(),
  snapshot_seq: z.number(),
  stored_updates: z.number(),
  update_records: z.number(),
  snapshot_bytes: z.number(),
  snapshot_parts: z.number(),
  compactions: z.number(),
  compacted_at: z.string().nullable(),
  connections: z.number(),
});
export type DocStats = z.infer<typeof docStatsSchema>;
