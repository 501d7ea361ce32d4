import type { KeyFamilies } from "../kv/kv_keys.ts";
import type { Logger } from "../log.ts";
import { countMetric } from "../service/metrics.ts";
import type { OutgoingMessage } from "./message.ts";
import { appendOutbox } from "./outbox.ts";
import { SlackClient } from "./slack.ts";
import { sendMail, type SmtpOptions } from "./smtp.ts";

export interface DelivererOptions {
  /** The sending service's own KV: it keeps the per-step markers. */
  kv: Deno.Kv;
  outboxFile: string;
  smtpUrl?: string;
  mailFrom: string;
  slackToken?: string;
  slackApiUrl?: string;
  logger: Logger;
  /** Transport tuning (timeouts, extra CA certificates); tests use it. */
  smtpOptions?: SmtpOptions;
  /**
   * Keeps a DM for its recipient (the notifications they read in the app), under the queue
   * message's id; it may be asked twice for one message and must keep it once.
   */
  keep?: (message: OutgoingMessage, messageId: string) => Promise<void>;
}

export interface Deliverer {
  /**
   * Delivers `message` (the queue message `messageId`): outbox line, then SMTP for an email or
   * Slack for a DM when configured. Each step that succeeded is remembered, so a retry after a
   * failure repeats only what did not go through. A failing transport throws (the queue retries).
   */
  deliver(message: OutgoingMessage, messageId: string): Promise<void>;
}

export type DeliveryStep = "outbox" | "smtp" | "slack";

/** How long a step's marker is kept: longer than the queue's whole retry schedule. */
export const DELIVERY_MARKER_TTL_MS = 7 * 24 * 60 * 60 * 1000;

/** The marker saying that `step` of message `messageId` went through. */
export function deliveryMarkerKey(messageId: string, step: DeliveryStep): Deno.KvKey {
  return ["deliveries", messageId, step];
}

/**
 * The key family a deliverer writes into its service's KV: the per-step markers belong to this
 * deployment's queue, so a backup neither takes nor restores them.
 */
export const DELIVERY_KEYS: KeyFamilies = { deliveries: "local" };

/** Slack's mrkdwn needs `&`, `<` and `>` escaped. */
function slackEscape(text: string): string {
  return text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;");
}

/** The DM text: the subject in bold above the message. */
export function slackText(message: OutgoingMessage): string {
  return `*${slackEscape(message.subject)}*\n\n${slackEscape(message.text)}`;
}

export function createDeliverer(options: DelivererOptions): Deliverer {
  const { kv, logger } = options;
  const slack = options.slackToken
    ? new SlackClient({ token: options.slackToken, apiUrl: options.slackApiUrl })
    : undefined;

  async function once(
    messageId: string,
    step: DeliveryStep,
    run: () => Promise<void>,
  ): Promise<void> {
    const key = deliveryMarkerKey(messageId, step);
    if ((await kv.get(key)).versionstamp !== null) return;
    await run();
    await kv.set(key, { at: Date.now() }, { expireIn: DELIVERY_MARKER_TTL_MS });
  }

  return {
    async deliver(message, messageId) {
      const fields = {
        message_id: messageId,
        channel: message.channel,
        template: message.template,
      };

      await once(messageId, "outbox", async () => {
        await appendOutbox(options.outboxFile, message);
      });

      // Keeping is idempotent by the message id: no marker needed.
      if (message.channel === "dm" && options.keep) await options.keep(message, messageId);

      if (message.channel === "email" && options.smtpUrl) {
        const smtpUrl = options.smtpUrl;
        await once(messageId, "smtp", async () => {
          try {
            await sendMail(smtpUrl, {
              from: options.mailFrom,
              to: message.to,
              subject: message.subject,
              text: message.text,
            }, options.smtpOptions);
          } catch (err) {
            countMetric("MessageDeliveryFailed", 1, { transport: "smtp" });
            throw err;
          }
          countMetric("MessageDelivered", 1, { transport: "smtp" });
          logger.info("email sent", fields);
        });
      }

      if (message.channel === "dm" && slack) {
        await once(messageId, "slack", async () => {
          let result;
          try {
            result = await slack.sendDirectMessage(message.to, slackText(message));
          } catch (err) {
            countMetric("MessageDeliveryFailed", 1, { transport: "slack" });
            throw err;
          }
          if (result.status === "user_not_found") {
            // Permanent: retrying cannot make the user appear. The outbox line stays.
            logger.warn("no Slack user for the recipient; direct message not sent", fields);
            return;
          }
          countMetric("MessageDelivered", 1, { transport: "slack" });
          logger.info("direct message sent", fields);
        });
      }
    },
  };
}
