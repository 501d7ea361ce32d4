/**
 * Outgoing emails and direct messages .
 *
 * A service queues a message on the write that causes it:
 * `queue.enqueue(op, { type: "deliver", message: buildMessage("dm", email, "action_created", data) })`
 * and its queue handler delivers it: `deliver: (job, id) => deliverer.deliver(job.message, id)`.
 */
export {
  type DeliverJob,
  deliverJobSchema,
  type OutgoingMessage,
  outgoingMessageSchema,
  TEMPLATE_NAMES,
  type TemplateName,
} from "./message.ts";
export {
  buildMessage,
  type RenderedMessage,
  renderMessage,
  type TemplateData,
} from "./templates.ts";
export { appendOutbox, type OutboxEntry, outboxEntry } from "./outbox.ts";
export {
  createDeliverer,
  type Deliverer,
  type DelivererOptions,
  DELIVERY_KEYS,
  DELIVERY_MARKER_TTL_MS,
  deliveryMarkerKey,
  type DeliveryStep,
} from "./deliverer.ts";
export {
  DEFAULT_MAIL_FROM,
  type DeliveryConfig,
  deliveryEnvShape,
  parseDeliveryConfig,
} from "./config.ts";
export { type Mail, parseSmtpUrl, sendMail, type SmtpOptions } from "./smtp.ts";
export { DEFAULT_SLACK_API_URL, SlackClient, type SlackDmResult, SlackError } from "./slack.ts";
