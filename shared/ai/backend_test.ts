import assert from "node:assert/strict";
import { startFakeChatCompletions } from "../../tests/fakes/chat_completions.ts";
import { createLogger } from "../log.ts";
import { AiBackend, AiBackendError, retryAfterSeconds } from "./backend.ts";

const logger = createLogger("genai-test");
const opts = { sanitizeOps: false, sanitizeResources: false };

function backendFor(baseUrl: string, timeoutMs = 5_000) {
  return new AiBackend(
    { baseUrl, apiKey: "test-key", model: "fake-model", timeoutMs },
    logger,
    { backoffMs: [10, 20, 40] },
  );
}

Deno.test("the AI backend client", opts, async (t) => {
  const fake = startFakeChatCompletions();
  try {
    await t.step("sends model, messages and the API key through Chat Completions", async () => {
      fake.reset();
      fake.script({ content: "Hello there" });
      const text = await backendFor(fake.baseUrl).chat([{ role: "user", content: "hi" }]);
      assert.equal(text, "Hello there");
      assert.equal(fake.requests.length, 1);
      assert.equal(fake.requests[0].model, "fake-model");
      assert.equal(fake.requests[0].authorization, "Bearer test-key");
      assert.deepEqual(fake.requests[0].messages, [{ role: "user", content: "hi" }]);
    });

    await t.step("retries a throttled call and succeeds on the fourth attempt", async () => {
      fake.reset();
      fake.script({ status: 429 }, { status: 429 }, { status: 429 }, { content: "finally" });
      const text = await backendFor(fake.baseUrl).chat([{ role: "user", content: "x" }]);
      assert.equal(text, "finally");
      assert.equal(fake.requests.length, 4);
    });

    await t.step("gives up after 4 throttled attempts in all", async () => {
      fake.reset();
      fake.setDefault({ status: 429 });
      await assert.rejects(
        () => backendFor(fake.baseUrl).chat([{ role: "user", content: "x" }]),
        (err) => err instanceof AiBackendError && err.status === 429,
      );
      assert.equal(fake.requests.length, 4);
    });

    await t.step("does not retry a non-throttling error", async () => {
      for (const status of [400, 500]) {
        fake.reset();
        fake.script({ status }, { content: "never reached" });
        await assert.rejects(
          () => backendFor(fake.baseUrl).chat([{ role: "user", content: "x" }]),
          (err) => err instanceof AiBackendError && err.status === status,
        );
        assert.equal(fake.requests.length, 1, `status ${status} was retried`);
      }
    });

    await t.step("abandons a call that takes longer than the timeout", async () => {
      fake.reset();
      fake.script({ delayMs: 1_000, content: "too late" });
      const started = Date.now();
      await assert.rejects(
        () => backendFor(fake.baseUrl, 200).chat([{ role: "user", content: "x" }]),
        AiBackendError,
      );
      assert.ok(Date.now() - started < 900, "the timeout did not cut the call short");
    });
  } finally {
    await fake.close();
  }
});

Deno.test("a throttled answer's wait: retry-after-ms, else Retry-After in seconds or as a date", () => {
  const now = Date.parse("2026-11-28T12:00:00Z");
  const wait = (headers: Record<string, string>) => retryAfterSeconds(new Headers(headers), now);
  assert.equal(wait({ "retry-after-ms": "1500", "retry-after": "9" }), 1.5);
  assert.equal(wait({ "retry-after": "42" }), 42);
  assert.equal(wait({ "retry-after": "Sat, 28 Nov 2026 12:00:30 GMT" }), 30);
  assert.equal(wait({ "retry-after": "Sat, 28 Nov 2026 11:00:00 GMT" }), 0, "a past date");
  assert.equal(wait({ "retry-after": "soon" }), null);
  assert.equal(wait({}), null);
  assert.equal(retryAfterSeconds(undefined), null);
});
