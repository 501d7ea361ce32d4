/**
 * An AI backend that fails says why: 502 `AI backend failed: <reason>` naming the setting to
 * check (an unreachable URL, a refused key, an unknown model, a wrong path, a timeout), 503 when
 * throttling outlasts the retries; never a bare 500. A prompt naming a placeholder generation
 * does not fill is refused 400 at create, update and generation.
 */
import assert from "node:assert/strict";
import { api, e2e, freePort, startTestStack, type TestStack } from "./helpers/stack.ts";
import { createUser, type TestUser } from "./helpers/users.ts";
import { createWorkspace } from "./helpers/workspaces.ts";
import { startFakeChatCompletions } from "./fakes/chat_completions.ts";

async function ideaAndPost(stack: TestStack, user: TestUser, ws: string) {
  const idea = await api(stack, "POST", "/api/ideas", {
    token: user.access_token,
    body: { workspace_id: ws, title: "Why async writing beats meetings." },
  });
  assert.equal(idea.status, 201, JSON.stringify(idea.body));
  const post = await api(stack, "POST", "/api/posts", {
    token: user.access_token,
    body: { workspace_id: ws, title: "A draft" },
  });
  assert.equal(post.status, 201, JSON.stringify(post.body));
  return { ideaId: idea.body.idea_id as string, postId: post.body.post_id as string };
}

Deno.test(
  "a failing AI backend answers 502 with what to check, never a bare 500",
  e2e,
  async (t) => {
    const ai = startFakeChatCompletions();
    const stack = await startTestStack({
      OPENAI_BASE_URL: ai.baseUrl,
      OPENAI_API_KEY: "sk-wrong",
      OPENAI_MODEL: "llama3.1",
      AI_RETRY_BACKOFF_MS: "1",
    });
    try {
      const user = await createUser(stack);
      const ws = await createWorkspace(stack, user, "Failures");
      const { ideaId, postId } = await ideaAndPost(stack, user, ws);
      const every = async (answer: Parameters<typeof ai.script>[0]) => {
        const out: { status: number; body: { error: string }; headers: Headers }[] = [];
        for (const op of ["generate", "iterate", "proofread"]) {
          ai.reset();
          ai.setDefault(answer);
          const res = await api(stack, "POST", `/api/genai/${op}`, {
            token: user.access_token,
            body: { workspace_id: ws, idea_id: ideaId, post_id: postId, instruction: "Shorter" },
          });
          out.push(res);
        }
        return out;
      };

      await t.step("a refused key: 401, check OPENAI_API_KEY", async () => {
        const answers = await every({
          status: 401,
          error: { message: "Incorrect API key provided", type: "invalid_request_error" },
        });
        for (const res of answers) {
          assert.deepEqual([res.status, res.body], [502, {
            error: "AI backend failed: the server refused the API key (HTTP 401; check " +
              "OPENAI_API_KEY)",
          }]);
        }
        assert.equal(ai.requests.length, 1, "a refused key is not retried");
      });

      await t.step("an unknown model (Ollama's answer): check OPENAI_MODEL", async () => {
        const [res] = await every({
          status: 404,
          error: { message: 'model "llama3.1" not found, try pulling it first', type: "api_error" },
        });
        assert.equal(res.status, 502);
        assert.match(res.body.error, /^AI backend failed: the server does not know the model/);
        assert.match(res.body.error, /"llama3\.1"/);
        assert.match(res.body.error, /OPENAI_MODEL/);
      });

      await t.step("a 404 about no model: the path is wrong, check OPENAI_BASE_URL", async () => {
        const [res] = await every({ status: 404, error: { message: "404 page not found" } });
        assert.equal(res.status, 502);
        assert.match(res.body.error, /no Chat Completions endpoint under OPENAI_BASE_URL/);
      });

      await t.step("a server error passes on what the server said", async () => {
        const [res] = await every({
          status: 500,
          error: { message: "model requires more system memory (9.8 GiB) than is available" },
        });
        assert.deepEqual([res.status, res.body], [502, {
          error: "AI backend failed: the server answered HTTP 500: model requires more system " +
            "memory (9.8 GiB) than is available",
        }]);
      });

      await t.step("throttling that outlasts 3 retries: 503, busy", async () => {
        for (const res of await every({ status: 429 })) {
          assert.deepEqual([res.status, res.body], [503, {
            error: "AI backend is busy; try again shortly",
          }]);
          // The backend asked for 1 ms (`retry-after-ms`): the least whole second.
          assert.equal(res.headers.get("retry-after"), "1");
        }
      });

      await t.step(
        "the 503 passes on the wait the backend asked for, or suggests 5 s",
        async () => {
          for (const res of await every({ status: 429, headers: { "retry-after": "42" } })) {
            assert.deepEqual([res.status, res.headers.get("retry-after")], [503, "42"]);
          }
          for (const res of await every({ status: 429, headers: {} })) {
            assert.deepEqual([res.status, res.headers.get("retry-after")], [503, "5"]);
          }
        },
      );

      await t.step("the OpenAPI document lists 502 and 503 and no bare 500", async () => {
        const doc = await api(stack, "GET", "/api/openapi.json");
        for (const op of ["generate", "iterate", "proofread"]) {
          const responses = doc.body.paths[`/api/genai/${op}`].post.responses;
          assert.match(responses["502"].description, /AI backend failed: <reason>/, op);
          assert.match(responses["503"].description, /AI backend is busy; try again shortly/, op);
          assert.equal(responses["500"], undefined, op);
        }
      });
    } finally {
      await stack.close();
      await ai.close();
    }
  },
);

Deno.test("an unreachable backend and a slow one: 502 naming the setting", e2e, async (t) => {
  const port = await freePort();
  const ai = startFakeChatCompletions();
  for (
    const [name, env, pattern] of [
      [
        "nothing listening at the URL",
        { OPENAI_BASE_URL: `http://127.0.0.1:${port}/v1` },
        /^AI backend failed: cannot reach the server at OPENAI_BASE_URL/,
      ],
      [
        "no answer in time",
        { OPENAI_BASE_URL: ai.baseUrl, AI_TIMEOUT_MS: "300" },
        /^AI backend failed: no answer within 300 ms .*AI_TIMEOUT_MS/,
      ],
    ] as const
  ) {
    await t.step(name, async () => {
      ai.setDefault({ delayMs: 1_000, content: "too late" });
      const stack = await startTestStack({ ...env, OPENAI_API_KEY: "k" });
      try {
        const user = await createUser(stack);
        const ws = await createWorkspace(stack, user, "Down");
        const { ideaId } = await ideaAndPost(stack, user, ws);
        const res = await api(stack, "POST", "/api/genai/generate", {
          token: user.access_token,
          body: { workspace_id: ws, idea_id: ideaId },
        });
        assert.equal(res.status, 502, JSON.stringify(res.body));
        assert.match(res.body.error, pattern);
      } finally {
        await stack.close();
      }
    });
  }
  await ai.close();
});

Deno.test("a template placeholder that generation does not fill is refused 400", e2e, async (t) => {
  const ai = startFakeChatCompletions({ defaultAnswer: { content: "A draft" } });
  const stack = await startTestStack({ OPENAI_BASE_URL: ai.baseUrl, OPENAI_API_KEY: "k" });
  const BOGUS = "user_template uses {bogus}, a placeholder that generation does not fill; " +
    "the filled placeholders are {idea_title}, {idea_description}, {examples}, {audience}, " +
    "{tone}, {language}, {length}";
  try {
    const user = await createUser(stack);
    const ws = await createWorkspace(stack, user, "Templates");
    const { ideaId } = await ideaAndPost(stack, user, ws);
    const create = (user_template: string) =>
      api(stack, "POST", "/api/prompts", {
        token: user.access_token,
        body: { workspace_id: ws, name: "P", system_instruction: "You write.", user_template },
      });

    await t.step("create refuses {bogus}, naming it and the filled ones", async () => {
      const res = await create("Write about {idea_title} in {bogus}.");
      assert.deepEqual([res.status, res.body], [400, { error: BOGUS }]);
      const two = await create("{Idea_Title} and {mood}, {mood}");
      assert.equal(two.status, 400);
      assert.match(two.body.error, /^user_template uses \{Idea_Title\} and \{mood\}, placeholders/);
    });

    await t.step("braces that are no placeholder are plain text", async () => {
      const res = await create('Answer as {"post": "..."} about {idea_title}; { } and {1} too');
      assert.equal(res.status, 201, JSON.stringify(res.body));
    });

    await t.step("update refuses it too, and the prompt is unchanged", async () => {
      const made = await create("About {idea_title}");
      assert.equal(made.status, 201);
      const res = await api(stack, "PUT", `/api/prompts/${made.body.prompt_id}`, {
        token: user.access_token,
        body: { workspace_id: ws, user_template: "About {bogus}" },
      });
      assert.deepEqual([res.status, res.body], [400, { error: BOGUS }]);
      const after = await api(
        stack,
        "GET",
        `/api/prompts/${made.body.prompt_id}?workspaceId=${ws}`,
        {
          token: user.access_token,
        },
      );
      assert.equal(after.body.user_template, "About {idea_title}");
    });

    await t.step("generation refuses a saved prompt that names one, before the model", async () => {
      const made = await create("About {idea_title}");
      // A prompt saved before templates were checked: written straight into prompts' KV.
      const kv = await Deno.openKv(`${stack.dataDir}/prompts.kv`);
      try {
        const key = ["prompts", ws, made.body.prompt_id];
        const entry = await kv.get<Record<string, unknown>>(key);
        assert.ok(entry.value);
        await kv.set(key, { ...entry.value, user_template: "About {idea_title} and {bogus}" });
      } finally {
        kv.close();
      }
      ai.reset();
      const res = await api(stack, "POST", "/api/genai/generate", {
        token: user.access_token,
        body: { workspace_id: ws, idea_id: ideaId, prompt_id: made.body.prompt_id },
      });
      assert.deepEqual([res.status, res.body], [400, {
        error: BOGUS.replace("user_template uses", 'The user_template of prompt "P" uses'),
      }]);
      assert.equal(ai.requests.length, 0, "the template reached the model");
    });

    await t.step("the OpenAPI document lists the filled placeholders", async () => {
      const doc = await api(stack, "GET", "/api/openapi.json");
      const schemas = doc.body.components.schemas;
      for (const name of ["CreatePrompt", "UpdatePrompt"]) {
        const description: string = schemas[name].properties.user_template.description;
        for (const placeholder of ["idea_title", "idea_description", "examples", "length"]) {
          assert.ok(description.includes(`{${placeholder}}`), `${name} lists {${placeholder}}`);
        }
      }
      assert.match(doc.body.paths["/api/genai/generate"].post.description, /\{idea_title\}/);
    });
  } finally {
    await stack.close();
    await ai.close();
  }
});
