import type { z } from "zod";
import { deliverJobSchema } from "../../shared/delivery/message.ts";
import type { OutgoingMessage } from "../../shared/delivery/message.ts";
import type { QueueHandlers } from "../../shared/queue/queue.ts";

/** The auth queue carries only outgoing messages (confirm_email, user_approved). */
export const authJobSchema = deliverJobSchema;
export type AuthJob = z.infer<typeof authJobSchema>;

/** Delivery is idempotent per message id (the deliverer keeps what it sent). */
export function authJobHandlers(
  deliverer: { deliver(message: OutgoingMessage, messageId: string): Promise<void> },
): QueueHandlers<AuthJob> {
  return {
    deliver: async (job, id) => {
      await deliverer.deliver(job.message, id);
    },
  };
}
