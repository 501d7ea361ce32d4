import { z } from "zod";
import { type BaseConfig, emptyToUndefined, httpUrl, parseEnv } from "../config.ts";
import { DEFAULT_SLACK_API_URL } from "./slack.ts";
import { parseMailbox, parseSmtpUrl } from "./smtp.ts";

export const DEFAULT_MAIL_FROM = "Content Pipeline <no-reply@localhost>";

const smtpUrl = z.string().superRefine((value, ctx) => {
  try {
    parseSmtpUrl(value);
  } catch (err) {
    ctx.addIssue({ code: "custom", message: (err as Error).message });
  }
});

const mailFrom = z.string().superRefine((value, ctx) => {
  if (/[\r\n]/.test(value)) {
    ctx.addIssue({ code: "custom", message: "must be one line" });
    return;
  }
  const { address } = parseMailbox(value);
  if (!/^[^\s@<>]+@[^\s@<>]+$/.test(address)) {
    ctx.addIssue({
      code: "custom",
      message:
        "must be an address or `Name <address>`, like Content Pipeline <no-reply@example.com>",
    });
  }
});

/** The delivery settings (SMTP, Slack, outbox), for a service's `parseEnv` shape. */
export const deliveryEnvShape = {
  SMTP_URL: z.preprocess(emptyToUndefined, smtpUrl.optional()),
  MAIL_FROM: z.preprocess(emptyToUndefined, mailFrom.optional()),
  SLACK_BOT_TOKEN: z.preprocess(emptyToUndefined, z.string().optional()),
  SLACK_API_URL: z.preprocess(emptyToUndefined, httpUrl.optional()),
};

/** What `createDeliverer` takes besides the KV handle and the logger. */
export interface DeliveryConfig {
  outboxFile: string;
  smtpUrl?: string;
  mailFrom: string;
  slackToken?: string;
  slackApiUrl: string;
}

/** Reads the delivery settings; a malformed one throws a ConfigError naming the variable. */
export function parseDeliveryConfig(
  env: Record<string, string | undefined>,
  base: Pick<BaseConfig, "outboxFile">,
): DeliveryConfig {
  const raw = parseEnv(deliveryEnvShape, env);
  return {
    outboxFile: base.outboxFile,
    smtpUrl: raw.SMTP_URL,
    mailFrom: raw.MAIL_FROM ?? DEFAULT_MAIL_FROM,
    slackToken: raw.SLACK_BOT_TOKEN,
    slackApiUrl: (raw.SLACK_API_URL ?? DEFAULT_SLACK_API_URL).replace(/\/+$/, ""),
  };
}
