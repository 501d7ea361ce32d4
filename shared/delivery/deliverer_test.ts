import assert from "node:assert/strict";
import { startFakeSlack } from "../../tests/fakes/slack.ts";
import { startFakeSmtp } from "../../tests/fakes/smtp.ts";
import type { Logger } from "../log.ts";
import { createDeliverer, type DelivererOptions, deliveryMarkerKey } from "./deliverer.ts";
import type { OutgoingMessage } from "./message.ts";
import { buildMessage } from "./templates.ts";

const opts = { sanitizeOps: false, sanitizeResources: false } as const;
const MAIL_FROM = "Content Pipeline <no-reply@pipeline.test>";
const SLACK_TOKEN = "xoxb-test-token";

interface LogRecord {
  level: string;
  msg: string;
  fields?: Record<string, unknown>;
}

function recordingLogger(records: LogRecord[] = []): Logger {
  const log = (level: string) => (msg: string, fields?: Record<string, unknown>) =>
    void records.push({ level, msg, fields });
  const logger: Logger = {
    debug: log("debug"),
    info: log("info"),
    warn: log("warn"),
    error: log("error"),
    child: () => logger,
  };
  return logger;
}

async function setup(extra: Partial<DelivererOptions> = {}) {
  const dir = await Deno.makeTempDir({ prefix: "cps-delivery-" });
  const kv = await Deno.openKv(":memory:");
  const logs: LogRecord[] = [];
  const outboxFile = `${dir}/nested/outbox.jsonl`;
  const deliverer = createDeliverer({
    kv,
    outboxFile,
    mailFrom: MAIL_FROM,
    logger: recordingLogger(logs),
    ...extra,
  });
  const outbox = async () => {
    try {
      return (await Deno.readTextFile(outboxFile)).split("\n").filter(Boolean).map((l) =>
        JSON.parse(l)
      );
    } catch {
      return [];
    }
  };
  return {
    kv,
    logs,
    deliverer,
    outboxFile,
    outbox,
    async close() {
      kv.close();
      await Deno.remove(dir, { recursive: true });
    },
  };
}

async function rejection(fn: () => Promise<unknown>): Promise<Error> {
  try {
    await fn();
  } catch (err) {
    assert.ok(err instanceof Error);
    return err;
  }
  throw new assert.AssertionError({ message: "expected a rejection" });
}

const confirm: OutgoingMessage = buildMessage("email", " Alice@Example.TEST ", "confirm_email", {
  code: "123456",
  name: "Alice",
});

Deno.test(
  "an email goes to the outbox and through SMTP, with the rendered subject and text",
  opts,
  async () => {
    const smtp = await startFakeSmtp();
    const t = await setup({ smtpUrl: smtp.url() });
    try {
      await t.deliverer.deliver(confirm, "msg-1");
      const lines = await t.outbox();
      assert.equal(lines.length, 1);
      assert.equal(smtp.received.length, 1);
      const mail = smtp.received[0];
      assert.deepEqual(mail.to, ["alice@example.test"]);
      assert.equal(mail.from, "no-reply@pipeline.test");
      assert.equal(mail.headers.get("subject"), confirm.subject);
      assert.equal(mail.body.replaceAll("\r\n", "\n"), confirm.text);
      assert.ok(mail.body.includes("123456"));
    } finally {
      await t.close();
      await smtp.close();
    }
  },
);

Deno.test("the outbox line has exactly the documented keys, in order", opts, async () => {
  const t = await setup();
  try {
    const before = Date.now();
    await t.deliverer.deliver(confirm, "msg-shape");
    const raw = await Deno.readTextFile(t.outboxFile);
    assert.ok(raw.endsWith("\n"));
    assert.equal(raw.split("\n").length, 2, "one line and the final newline");
    const line = JSON.parse(raw);
    assert.deepEqual(Object.keys(line), [
      "channel",
      "to",
      "template",
      "subject",
      "text",
      "data",
      "at",
    ]);
    assert.equal(line.channel, "email");
    assert.equal(line.to, "alice@example.test");
    assert.equal(line.template, "confirm_email");
    assert.equal(line.subject, confirm.subject);
    assert.equal(line.text, confirm.text);
    assert.deepEqual(line.data, { code: "123456", name: "Alice" });
    assert.match(line.at, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}\+00:00$/);
    assert.ok(Date.parse(line.at) >= before - 5 && Date.parse(line.at) <= Date.now() + 5);
  } finally {
    await t.close();
  }
});

Deno.test(
  "an SMTP failure throws, and the retry sends once without a second outbox line",
  opts,
  async () => {
    const smtp = await startFakeSmtp({ failRcpt: 1 });
    const t = await setup({ smtpUrl: smtp.url() });
    try {
      const err = await rejection(() => t.deliverer.deliver(confirm, "msg-retry"));
      assert.match(err.message, /RCPT TO failed: 451/);
      assert.equal((await t.outbox()).length, 1, "the outbox step went through before SMTP");
      assert.equal(smtp.received.length, 0);
      assert.equal((await t.kv.get(deliveryMarkerKey("msg-retry", "smtp"))).versionstamp, null);

      await t.deliverer.deliver(confirm, "msg-retry");
      assert.equal(smtp.received.length, 1);
      assert.equal((await t.outbox()).length, 1);

      // At-least-once queues may hand the same message over again: nothing is repeated.
      await t.deliverer.deliver(confirm, "msg-retry");
      assert.equal(smtp.received.length, 1);
      assert.equal((await t.outbox()).length, 1);

      // A different message id is a different message.
      await t.deliverer.deliver(confirm, "msg-other");
      assert.equal(smtp.received.length, 2);
      assert.equal((await t.outbox()).length, 2);
    } finally {
      await t.close();
      await smtp.close();
    }
  },
);

Deno.test(
  "a step marker is set once its step succeeded, and not for steps that did not run",
  opts,
  async () => {
    const t = await setup();
    try {
      assert.equal((await t.kv.get(deliveryMarkerKey("msg-m", "outbox"))).versionstamp, null);
      await t.deliverer.deliver(confirm, "msg-m");
      assert.notEqual((await t.kv.get(deliveryMarkerKey("msg-m", "outbox"))).versionstamp, null);
      assert.equal((await t.kv.get(deliveryMarkerKey("msg-m", "smtp"))).versionstamp, null);
    } finally {
      await t.close();
    }
  },
);

Deno.test(
  "an email with no SMTP_URL and a DM with no Slack token go to the outbox only",
  opts,
  async () => {
    const t = await setup();
    try {
      const dm = buildMessage("dm", "bob@example.test", "user_approved", { name: "Bob" });
      await t.deliverer.deliver(confirm, "a");
      await t.deliverer.deliver(dm, "b");
      assert.deepEqual((await t.outbox()).map((l) => [l.channel, l.template]), [
        ["email", "confirm_email"],
        ["dm", "user_approved"],
      ]);
    } finally {
      await t.close();
    }
  },
);

Deno.test(
  "a DM looks the recipient up by email and posts to that user with the bot token",
  opts,
  async () => {
    const slack = startFakeSlack({ token: SLACK_TOKEN, users: { "bob@example.test": "U0BOB" } });
    const t = await setup({ slackToken: SLACK_TOKEN, slackApiUrl: slack.apiUrl });
    try {
      const dm = buildMessage("dm", "Bob@Example.test", "action_created", {
        action_title: "Review <draft> & publish",
        workspace_name: "Marketing",
        actor_name: "Alice",
      });
      await t.deliverer.deliver(dm, "dm-1");
      assert.deepEqual(slack.calls.map((c) => c.method), [
        "users.lookupByEmail",
        "chat.postMessage",
      ]);
      for (const call of slack.calls) assert.equal(call.authorization, `Bearer ${SLACK_TOKEN}`);
      assert.equal(slack.calls[0].params.email, "bob@example.test");
      assert.match(slack.calls[1].contentType ?? "", /^application\/json/);
      assert.equal(slack.posts.length, 1);
      assert.equal(slack.posts[0].channel, "U0BOB");
      assert.ok(
        slack.posts[0].text.startsWith(
          "*New action for you: Review &lt;draft&gt; &amp; publish*\n",
        ),
        slack.posts[0].text,
      );
      assert.ok(slack.posts[0].text.includes("Review &lt;draft&gt; &amp; publish"));
      assert.equal((await t.outbox()).length, 1);
    } finally {
      await t.close();
      await slack.close();
    }
  },
);

Deno.test(
  "a DM retried after a failed chat.postMessage is posted once in all, with one outbox line",
  opts,
  async () => {
    const slack = startFakeSlack({ token: SLACK_TOKEN, users: { "bob@example.test": "U0BOB" } });
    slack.postFailures.push("server_error", "ratelimited");
    const t = await setup({ slackToken: SLACK_TOKEN, slackApiUrl: slack.apiUrl });
    try {
      const dm = buildMessage("dm", "bob@example.test", "action_completed", { title: "Ship it" });
      const first = await rejection(() => t.deliverer.deliver(dm, "dm-retry"));
      assert.match(first.message, /chat\.postMessage failed: HTTP 500/);
      const second = await rejection(() => t.deliverer.deliver(dm, "dm-retry"));
      assert.match(second.message, /chat\.postMessage failed: ratelimited/);
      assert.equal(slack.posts.length, 0);

      await t.deliverer.deliver(dm, "dm-retry");
      await t.deliverer.deliver(dm, "dm-retry");
      assert.equal(slack.posts.length, 1);
      assert.equal(slack.calls.filter((c) => c.method === "chat.postMessage").length, 3);
      assert.equal((await t.outbox()).length, 1);
    } finally {
      await t.close();
      await slack.close();
    }
  },
);

Deno.test(
  "a DM to an email Slack does not know goes to the outbox only and is not retried",
  opts,
  async () => {
    const slack = startFakeSlack({ token: SLACK_TOKEN });
    const t = await setup({ slackToken: SLACK_TOKEN, slackApiUrl: slack.apiUrl });
    try {
      const dm = buildMessage("dm", "nobody@example.test", "post_comment_added", {
        post_title: "Launch",
      });
      await t.deliverer.deliver(dm, "dm-unknown");
      assert.deepEqual(slack.calls.map((c) => c.method), ["users.lookupByEmail"]);
      assert.equal(slack.posts.length, 0);
      assert.equal((await t.outbox()).length, 1);
      assert.ok(t.logs.some((l) => l.level === "warn" && /no Slack user/.test(l.msg)));

      await t.deliverer.deliver(dm, "dm-unknown");
      assert.equal(slack.calls.length, 1, "the permanent outcome is remembered");
    } finally {
      await t.close();
      await slack.close();
    }
  },
);

Deno.test("a refused Slack token is a failure to retry, not a silent success", opts, async () => {
  const slack = startFakeSlack({ token: SLACK_TOKEN, users: { "bob@example.test": "U0BOB" } });
  const t = await setup({ slackToken: "xoxb-wrong", slackApiUrl: slack.apiUrl });
  try {
    const dm = buildMessage("dm", "bob@example.test", "user_approved", {});
    const err = await rejection(() => t.deliverer.deliver(dm, "dm-auth"));
    assert.match(err.message, /users\.lookupByEmail failed: invalid_auth/);
    assert.equal(slack.posts.length, 0);
  } finally {
    await t.close();
    await slack.close();
  }
});

Deno.test(
  "an outbox that cannot be written fails the delivery before any transport runs",
  opts,
  async () => {
    const smtp = await startFakeSmtp();
    const t = await setup({ smtpUrl: smtp.url() });
    try {
      await Deno.mkdir(t.outboxFile, { recursive: true }); // a directory where the file should be
      await rejection(() => t.deliverer.deliver(confirm, "msg-blocked"));
      assert.equal(smtp.received.length, 0);
      assert.equal((await t.kv.get(deliveryMarkerKey("msg-blocked", "outbox"))).versionstamp, null);
    } finally {
      await t.close();
      await smtp.close();
    }
  },
);

Deno.test(
  "through the KV queue, a failed SMTP attempt is retried and the email sent once",
  opts,
  async () => {
    const { ServiceQueue, queueDriver } = await import("../queue/queue.ts");
    const { deliverJobSchema } = await import("./message.ts");
    const smtp = await startFakeSmtp({ failRcpt: 1 });
    const t = await setup({ smtpUrl: smtp.url() });
    try {
      const queue = new ServiceQueue(queueDriver(t.kv), deliverJobSchema, recordingLogger());
      queue.listen({ deliver: (job, id) => t.deliverer.deliver(job.message, id) });
      await queue.enqueue(t.kv.atomic(), { type: "deliver", message: confirm }).commit();
      const deadline = Date.now() + 10_000;
      while (smtp.received.length === 0 && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 50));
      }
      assert.equal(smtp.received.length, 1);
      assert.equal(smtp.received[0].headers.get("subject"), confirm.subject);
      assert.equal((await t.outbox()).length, 1);
    } finally {
      await t.close();
      await smtp.close();
    }
  },
);
