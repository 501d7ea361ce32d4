import { z } from "zod";

/** The message templates. */
export const TEMPLATE_NAMES = [
  "confirm_email",
  "action_created",
  "action_assigned",
  "action_completed",
  "action_response",
  "user_approved",
  "post_comment_added",
  "post_comment_reply",
  "password_reset",
  "review_requested",
  "review_decided",
  "post_published",
  "publish_failed",
  "linkedin_expiring",
  "mentioned",
  "member_added",
  "account_pending",
] as const;
export type TemplateName = typeof TEMPLATE_NAMES[number];

/**
 * An email or direct message waiting for delivery. It travels on the sending service's KV
 * queue as `{type: "deliver", message}`; `subject` and `text` are rendered when it is queued.
 */
export const outgoingMessageSchema = z.object({
  channel: z.enum(["email", "dm"]),
  to: z.string().min(1).max(320),
  template: z.enum(TEMPLATE_NAMES),
  subject: z.string(),
  text: z.string(),
  data: z.record(z.string(), z.unknown()),
});
export type OutgoingMessage = z.infer<typeof outgoingMessageSchema>;

/** The queue message every service uses to send one. */
export const deliverJobSchema = z.object({
  type: z.literal("deliver"),
  message: outgoingMessageSchema,
});
export type DeliverJob = z.infer<typeof deliverJobSchema>;
