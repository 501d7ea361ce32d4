import assert from "node:assert/strict";
import { ConfigError } from "../config.ts";
import { DEFAULT_MAIL_FROM, parseDeliveryConfig } from "./config.ts";

const base = { outboxFile: "/tmp/data/outbox.jsonl" };

Deno.test("delivery config defaults: no SMTP, no Slack, the default sender, the real Slack API", () => {
  assert.deepEqual(parseDeliveryConfig({}, base), {
    outboxFile: "/tmp/data/outbox.jsonl",
    smtpUrl: undefined,
    mailFrom: DEFAULT_MAIL_FROM,
    slackToken: undefined,
    slackApiUrl: "https://slack.com/api",
  });
  assert.equal(DEFAULT_MAIL_FROM, "Content Pipeline <no-reply@localhost>");
  assert.equal(parseDeliveryConfig({ SMTP_URL: "", SLACK_BOT_TOKEN: "" }, base).smtpUrl, undefined);
});

Deno.test("delivery config reads SMTP_URL, MAIL_FROM, SLACK_BOT_TOKEN and SLACK_API_URL", () => {
  const config = parseDeliveryConfig({
    SMTP_URL: "smtps://user:pw@mail.example.com:465",
    MAIL_FROM: "Team <team@example.com>",
    SLACK_BOT_TOKEN: "xoxb-1",
    SLACK_API_URL: "http://127.0.0.1:9999/api/",
  }, base);
  assert.equal(config.smtpUrl, "smtps://user:pw@mail.example.com:465");
  assert.equal(config.mailFrom, "Team <team@example.com>");
  assert.equal(config.slackToken, "xoxb-1");
  assert.equal(config.slackApiUrl, "http://127.0.0.1:9999/api");
});

Deno.test("a malformed delivery variable is a ConfigError naming it", () => {
  const cases: [Record<string, string>, string][] = [
    [{ SMTP_URL: "mail.example.com:25" }, "SMTP_URL"],
    [{ SMTP_URL: "http://mail.example.com" }, "SMTP_URL"],
    [{ SMTP_URL: "smtp://mail.example.com:99999" }, "SMTP_URL"],
    [{ MAIL_FROM: "not an address" }, "MAIL_FROM"],
    [{ SLACK_API_URL: "slack.com/api" }, "SLACK_API_URL"],
  ];
  for (const [env, name] of cases) {
    assert.throws(
      () => parseDeliveryConfig(env, base),
      (err: unknown) => err instanceof ConfigError && err.message.includes(name),
      JSON.stringify(env),
    );
  }
});
