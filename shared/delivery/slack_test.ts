import assert from "node:assert/strict";
import { startFakeSlack } from "../../tests/fakes/slack.ts";
import { SlackClient, SlackError } from "./slack.ts";

const opts = { sanitizeOps: false, sanitizeResources: false } as const;
const TOKEN = "xoxb-slack-test";

Deno.test(
  "SlackClient looks a user up by form POST and posts JSON to the user id",
  opts,
  async () => {
    const slack = startFakeSlack({ token: TOKEN, users: { "ann@example.test": "U0ANN" } });
    try {
      const client = new SlackClient({ token: TOKEN, apiUrl: slack.apiUrl + "/" });
      const result = await client.sendDirectMessage("ann@example.test", "Hello Ann");
      assert.equal(result.status, "sent");
      assert.equal(slack.calls[0].method, "users.lookupByEmail");
      assert.match(slack.calls[0].contentType ?? "", /^application\/x-www-form-urlencoded/);
      assert.deepEqual(slack.calls[0].params, { email: "ann@example.test" });
      assert.equal(slack.calls[1].method, "chat.postMessage");
      assert.deepEqual(slack.calls[1].params, { channel: "U0ANN", text: "Hello Ann" });
      assert.deepEqual(slack.posts, [{ channel: "U0ANN", text: "Hello Ann" }]);
    } finally {
      await slack.close();
    }
  },
);

Deno.test(
  "SlackClient answers user_not_found for an unknown email without posting",
  opts,
  async () => {
    const slack = startFakeSlack({ token: TOKEN });
    try {
      const client = new SlackClient({ token: TOKEN, apiUrl: slack.apiUrl });
      assert.deepEqual(await client.sendDirectMessage("ghost@example.test", "hi"), {
        status: "user_not_found",
      });
      assert.equal(slack.posts.length, 0);
    } finally {
      await slack.close();
    }
  },
);

Deno.test("SlackClient throws a SlackError with Retry-After on HTTP 429", opts, async () => {
  const slack = startFakeSlack({ token: TOKEN, users: { "ann@example.test": "U0ANN" } });
  slack.postFailures.push("ratelimited", "channel_not_found");
  try {
    const client = new SlackClient({ token: TOKEN, apiUrl: slack.apiUrl });
    await assert.rejects(
      () => client.postMessage("U0ANN", "hi"),
      (err: unknown) =>
        err instanceof SlackError && err.code === "ratelimited" && err.retryAfterSeconds === 1,
    );
    await assert.rejects(
      () => client.postMessage("U0ANN", "hi"),
      (err: unknown) => err instanceof SlackError && err.code === "channel_not_found",
    );
  } finally {
    await slack.close();
  }
});

Deno.test("SlackClient reports an unreachable API as a network failure", async () => {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = listener.addr.port;
  listener.close();
  const client = new SlackClient({ token: TOKEN, apiUrl: `http://127.0.0.1:${port}/api` });
  await assert.rejects(
    () => client.lookupUserByEmail("ann@example.test"),
    (err: unknown) => err instanceof SlackError && err.code === "network_error",
  );
});
