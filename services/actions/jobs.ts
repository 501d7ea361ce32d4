import { z } from "zod";
import type { AssetStore } from "../../shared/assets/store.ts";
import { type Deliverer, deliverJobSchema } from "../../shared/delivery/mod.ts";
import type { Logger } from "../../shared/log.ts";
import type { QueueHandlers } from "../../shared/queue/queue.ts";

/**
 * The actions service's queue messages:
 * - `deliver`: a direct message, enqueued with the write that causes it;
 * - `attachment_cleanup`: sent with a delay of the upload URL's lifetime plus a margin; removes
 *   the attachment entry if its upload never arrived (and the entry is still that request's),
 *   and the action's stored bytes that have no entry;
 * - `delete_assets`: removes the stored objects of a deleted action.
 */
export const actionsJobSchema = z.discriminatedUnion("type", [
  deliverJobSchema,
  z.object({
    type: z.literal("attachment_cleanup"),
    workspace_id: z.string(),
    action_id: z.string(),
    key: z.string(),
    uploaded_at: z.string(),
  }),
  z.object({ type: z.literal("delete_assets"), keys: z.array(z.string()).max(1000) }),
]);
export type ActionsJob = z.infer<typeof actionsJobSchema>;
/** One upload URL request, identified by its key and time (the `attachment_cleanup` job). */
export type PendingUpload = Omit<Extract<ActionsJob, { type: "attachment_cleanup" }>, "type">;

export function actionsJobHandlers(deps: {
  /** `AttachmentOperations`: drops an entry whose upload never arrived, and bytes with no entry */
  attachments: {
    cleanUp(upload: PendingUpload): Promise<{ dropped: boolean; orphans: string[] }>;
  };
  assets: AssetStore | null;
  deliverer: Deliverer;
  logger: Logger;
}): QueueHandlers<ActionsJob> {
  const { attachments, assets, deliverer, logger } = deps;
  return {
    deliver: async (job, id) => {
      await deliverer.deliver(job.message, id);
    },
    attachment_cleanup: async (job) => {
      const { dropped, orphans } = await attachments.cleanUp(job);
      if (dropped) {
        logger.info("removed an attachment whose upload never arrived", {
          action_id: job.action_id,
          key: job.key,
        });
      }
      if (orphans.length > 0) {
        logger.info("removed stored attachment bytes that had no entry", {
          action_id: job.action_id,
          keys: orphans,
        });
      }
    },
    delete_assets: async (job) => {
      if (!assets) return;
      for (const key of job.keys) await assets.delete(key);
    },
  };
}
