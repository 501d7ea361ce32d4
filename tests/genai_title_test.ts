import assert from "node:assert/strict";
import { ConfigError, parseBaseConfig } from "../shared/config.ts";
import { ServiceDirectory } from "../shared/service/service_directory.ts";
import { GenaiClient } from "../services/genai/client.ts";
import { parseGenaiConfig } from "../services/genai/config.ts";
import { api, e2e, freePort, startTestStack, type TestStack } from "./helpers/stack.ts";
import { createUser, type TestUser } from "./helpers/users.ts";
import { startFakeChatCompletions } from "./fakes/chat_completions.ts";

async function workspaceWithToken(stack: TestStack) {
  const user = await createUser(stack);
  const ws = (await api(stack, "POST", "/api/workspaces", {
    token: user.access_token,
    body: { name: "Titles" },
  })).body.workspace_id as string;
  const token = (await api(stack, "POST", "/api/quick-capture/token", {
    token: user.access_token,
    body: { workspace_id: ws },
  })).body.token as string;
  return { user, ws, token };
}

async function captureTitle(
  stack: TestStack,
  ctx: { user: TestUser; ws: string; token: string },
  text: string,
) {
  const res = await api(stack, "POST", "/api/quick-capture", {
    headers: { "X-Capture-Token": ctx.token },
    body: { title: text },
  });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  const idea = await api(stack, "GET", `/api/ideas/${res.body.idea_id}?workspaceId=${ctx.ws}`, {
    token: ctx.user.access_token,
  });
  return idea.body.title as string;
}

Deno.test("titles from the AI backend", e2e, async (t) => {
  const ai = startFakeChatCompletions();
  const stack = await startTestStack({
    OPENAI_BASE_URL: ai.baseUrl,
    OPENAI_API_KEY: "sk-test",
    OPENAI_MODEL: "title-model",
  });
  try {
    await t.step("the title route asks the model and cleans its answer", async () => {
      ai.reset();
      ai.script({ content: '"Why juniors matter"\n' });
      const res = await stack.internal("genai", "POST", "/internal/titles", {
        text: "Hire juniors, they grow with you.",
      });
      assert.deepEqual(await res.json(), { title: "Why juniors matter", source: "ai" });
      assert.equal(ai.requests.length, 1);
      const [req] = ai.requests;
      assert.equal(req.model, "title-model");
      assert.equal(req.authorization, "Bearer sk-test");
      assert.equal(req.messages[0].role, "system");
      assert.equal(req.messages.at(-1)?.content, "Hire juniors, they grow with you.");
    });

    await t.step("an empty model answer falls back to a title made from the text", async () => {
      ai.reset();
      ai.script({ content: "   " });
      const res = await stack.internal("genai", "POST", "/internal/titles", {
        text: "Hiring juniors pays off. They grow with you.",
      });
      assert.deepEqual(await res.json(), { title: "Hiring juniors pays off", source: "fallback" });
    });

    await t.step("the title route answers 400 without text", async () => {
      const res = await stack.internal("genai", "POST", "/internal/titles", {});
      assert.equal(res.status, 400);
      assert.match((await res.json()).error, /text/);
    });

    await t.step("a REST idea and a capture both get the model's title", async () => {
      ai.reset();
      ai.setDefault({ content: "Model title" });
      const ctx = await workspaceWithToken(stack);
      assert.equal(await captureTitle(stack, ctx, "whatever text"), "Model title");
      const rest = await api(stack, "POST", "/api/ideas", {
        token: ctx.user.access_token,
        body: { workspace_id: ctx.ws, title: "some text" },
      });
      assert.equal(rest.body.title, "Model title");
    });
  } finally {
    await stack.close();
    await ai.close();
  }
});

Deno.test("captures survive an AI backend that is missing or unreachable", e2e, async (t) => {
  await t.step("with no backend configured the fallback title is used", async () => {
    const stack = await startTestStack({ OPENAI_BASE_URL: "", OPENAI_API_KEY: "" });
    try {
      const ctx = await workspaceWithToken(stack);
      const text = "No model here at all. The idea still lands.";
      assert.equal(await captureTitle(stack, ctx, text), "The idea still lands");
      const long = "Our standups moved to written updates three months ago and our release " +
        "cadence doubled, which nobody expected. Second.";
      const title = await captureTitle(stack, ctx, long);
      assert.ok(title.length <= 80 && long.toLowerCase().includes(title.toLowerCase()), title);
      assert.ok(!long.startsWith(title.slice(0, 30)), `not the first words: ${title}`);
    } finally {
      await stack.close();
    }
  });

  await t.step("with the backend down (nothing listening) the fallback title is used", async () => {
    const port = await freePort();
    const stack = await startTestStack({
      OPENAI_BASE_URL: `http://127.0.0.1:${port}/v1`,
      OPENAI_API_KEY: "k",
    });
    try {
      const ctx = await workspaceWithToken(stack);
      assert.equal(await captureTitle(stack, ctx, "Down backend? Fine."), "Down backend");
    } finally {
      await stack.close();
    }
  });
});

Deno.test("GenaiClient.title falls back after 5 s when the genai service hangs", async () => {
  const directory = new ServiceDirectory();
  let release = () => {};
  directory.register(
    "genai",
    () => new Promise<Response>((resolve) => (release = () => resolve(Response.json({})))),
  );
  const client = new GenaiClient(directory, "secret-secret-secret");
  const started = Date.now();
  const title = await client.title("Hanging service. Still titled.");
  const elapsed = Date.now() - started;
  release();
  assert.equal(title, "Hanging service");
  assert.ok(elapsed >= 4_900 && elapsed < 6_000, `took ${elapsed} ms`);
});

Deno.test("GenaiClient.title falls back when the genai service is not registered", async () => {
  const client = new GenaiClient(new ServiceDirectory(), "secret-secret-secret");
  assert.equal(await client.title("Nobody home! Really."), "Nobody home");
});

Deno.test("a malformed OPENAI_BASE_URL stops start-up naming the variable", () => {
  const base = parseBaseConfig({});
  assert.throws(
    () => parseGenaiConfig({ OPENAI_BASE_URL: "not a url" }, base),
    (err) => err instanceof ConfigError && /OPENAI_BASE_URL/.test(err.message),
  );
  assert.equal(parseGenaiConfig({}, base).backend, null);
  const configured = parseGenaiConfig({ OPENAI_BASE_URL: "http://127.0.0.1:1/v1/" }, base);
  assert.equal(configured.backend?.baseUrl, "http://127.0.0.1:1/v1");
});
