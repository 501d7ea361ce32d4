import { z } from "zod";
import { type Deliverer, deliverJobSchema } from "../../shared/delivery/mod.ts";
import { errorMessage, type Logger } from "../../shared/log.ts";
import type { QueueHandlers } from "../../shared/queue/queue.ts";
import type { LiveDocs } from "./live_docs.ts";
import type { MediaOperations } from "./media.ts";
import { COMMENT_ACTIONS } from "./schemas.ts";
import type { PostsStore } from "./store.ts";

/**
 * The posts service's queue messages, each enqueued in the commit of the write that causes it:
 * - `deliver`: a direct message;
 * - `broadcast`: a comment event for every socket on the post, sent through collab;
 * - `purge_post`: a deleted post's comments, replies, live document and media bytes;
 * - `purge_comment`: a deleted comment's replies;
 * - `publish`: publish a scheduled post on LinkedIn (delayed until `scheduled_at`; a stale
 *   `schedule_id` is dropped), see `publish_job.ts`;
 * - `first_comment`: post a published post's first comment, once (`publish_job.ts`);
 * - `media_cleanup`: drop a media entry whose upload never arrived (`media.ts`).
 */
export const postsJobSchema = z.discriminatedUnion("type", [
  deliverJobSchema,
  z.object({
    type: z.literal("broadcast"),
    post_id: z.string(),
    action: z.enum(COMMENT_ACTIONS),
    comment_id: z.string(),
  }),
  z.object({
    type: z.literal("purge_post"),
    post_id: z.string(),
    workspace_id: z.string().optional(),
  }),
  z.object({ type: z.literal("purge_comment"), post_id: z.string(), comment_id: z.string() }),
  z.object({
    type: z.literal("publish"),
    post_id: z.string(),
    workspace_id: z.string(),
    schedule_id: z.string(),
  }),
  z.object({
    type: z.literal("first_comment"),
    post_id: z.string(),
    workspace_id: z.string(),
    /** the approved first comment, as it was when the post was created */
    text: z.string(),
    /** the author URN of the post: the comment's actor */
    actor: z.string(),
  }),
  z.object({
    type: z.literal("media_cleanup"),
    post_id: z.string(),
    workspace_id: z.string(),
    media_id: z.string(),
  }),
]);
export type PostsJob = z.infer<typeof postsJobSchema>;

export function postsJobHandlers(deps: {
  store: PostsStore;
  liveDocs: LiveDocs;
  deliverer: Deliverer;
  logger: Logger;
  publish: (job: Extract<PostsJob, { type: "publish" }>) => Promise<void>;
  firstComment: (job: Extract<PostsJob, { type: "first_comment" }>) => Promise<void>;
  media: Pick<MediaOperations, "cleanUp" | "removeOrphans">;
}): QueueHandlers<PostsJob> {
  const { store, liveDocs, deliverer, logger } = deps;
  return {
    publish: async (job) => {
      await deps.publish(job);
    },
    first_comment: async (job) => {
      await deps.firstComment(job);
    },
    media_cleanup: async (job) => {
      await deps.media.cleanUp(job);
    },
    deliver: async (job, id) => {
      await deliverer.deliver(job.message, id);
    },
    broadcast: async (job) => {
      // Best effort (spec, Events): a late event would only make clients re-fetch for nothing,
      // so a failure is logged and not retried.
      try {
        await liveDocs.broadcast(job.post_id, {
          type: "comment",
          action: job.action,
          postId: job.post_id,
          commentId: job.comment_id,
        });
      } catch (err) {
        logger.warn("comment broadcast failed", {
          post_id: job.post_id,
          action: job.action,
          error: errorMessage(err),
        });
      }
    },
    purge_post: async (job) => {
      await store.comments.purgePostComments(job.post_id);
      await store.versions.purge(job.post_id);
      await store.reviewLinks.purge(job.post_id);
      await liveDocs.deleteDoc(job.post_id);
      if (job.workspace_id) await deps.media.removeOrphans(job.workspace_id, job.post_id);
    },
    purge_comment: async (job) => {
      await store.comments.purgeCommentReplies(job.post_id, job.comment_id);
    },
  };
}
