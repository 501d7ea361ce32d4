import assert from "node:assert/strict";
import { ConfigError, parseBaseConfig } from "../shared/config.ts";
import { parseGenaiConfig } from "../services/genai/config.ts";
import { api, e2e, startTestStack, type TestStack } from "./helpers/stack.ts";
import { createUser, type TestUser } from "./helpers/users.ts";
import { startFakeChatCompletions } from "./fakes/chat_completions.ts";
import { assertRetryAfter } from "./helpers/retry_after.ts";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

async function memberWorkspace(stack: TestStack, user: TestUser): Promise<string> {
  const res = await api(stack, "POST", "/api/workspaces", {
    token: user.access_token,
    body: { name: "Limits" },
  });
  assert.equal(res.status, 201);
  return res.body.workspace_id;
}

/** Waits out the end of a minute so a whole test runs inside one rate-limit window. */
async function awayFromMinuteEnd(needMs: number) {
  const left = 60_000 - (Date.now() % 60_000);
  if (left < needMs) await new Promise((r) => setTimeout(r, left + 50));
}

Deno.test("AI_CALLS_PER_MINUTE limits each user's AI calls with 429", e2e, async (t) => {
  const ai = startFakeChatCompletions({ defaultAnswer: { content: "ok" } });
  const stack = await startTestStack({
    OPENAI_BASE_URL: ai.baseUrl,
    OPENAI_API_KEY: "k",
    AI_CALLS_PER_MINUTE: "3",
  });
  try {
    const first = await createUser(stack);
    const second = await createUser(stack);
    const ws = await memberWorkspace(stack, first);
    const ws2 = await memberWorkspace(stack, second);
    // iterate and proofread name a post of the workspace
    const postOf = new Map<string, string>();
    for (const [user, workspace] of [[first, ws], [second, ws2]] as const) {
      const post = await api(stack, "POST", "/api/posts", {
        token: user.access_token,
        body: { workspace_id: workspace, title: "Draft" },
      });
      assert.equal(post.status, 201, JSON.stringify(post.body));
      postOf.set(workspace, post.body.post_id);
    }
    const call = (user: TestUser, workspace: string, op: string) =>
      api(stack, "POST", `/api/genai/${op}`, {
        token: user.access_token,
        body: {
          workspace_id: workspace,
          post_id: postOf.get(workspace),
          instruction: "x",
          idea_id: "nope",
        },
      });

    await t.step("refused calls (400, 403, 404) do not use the budget", async () => {
      await awayFromMinuteEnd(25_000);
      ai.reset();
      assert.equal((await call(first, ws, "generate")).status, 404);
      assert.equal((await call(first, ws2, "iterate")).status, 403);
      const bad = await api(stack, "POST", "/api/genai/iterate", {
        token: first.access_token,
        body: { workspace_id: ws },
      });
      assert.equal(bad.status, 400);
      assert.equal(ai.requests.length, 0);
    });

    await t.step(
      "the fourth call in a minute answers 429 and never reaches the model",
      async () => {
        assert.equal((await call(first, ws, "iterate")).status, 200);
        assert.equal((await call(first, ws, "proofread")).status, 200);
        assert.equal((await call(first, ws, "iterate")).status, 200);
        const refused = await call(first, ws, "proofread");
        assert.equal(refused.status, 429);
        assert.match(
          refused.body.error,
          /^Too many AI calls: at most 3 a minute; try again in \d+ s$/,
        );
        assert.equal(ai.requests.length, 3);
        // The header says what the message says: the rest of this minute's window.
        const wait = assertRetryAfter(refused.headers, 60);
        assert.equal(refused.body.error.match(/in (\d+) s$/)[1], String(wait));
      },
    );

    await t.step(
      "an MCP tool call over the limit is a tool error with the same message",
      async () => {
        const client = new Client({ name: "limits-test", version: "1.0.0" });
        await client.connect(
          new StreamableHTTPClientTransport(new URL(`${stack.url}/mcp`), {
            requestInit: { headers: { authorization: `Bearer ${first.access_token}` } },
          }),
        );
        try {
          const result = await client.callTool({
            name: "proofread_post",
            arguments: { workspace_id: ws, post_id: postOf.get(ws) },
          });
          assert.equal(result.isError, true, JSON.stringify(result));
          const content = result.content as { type: string; text: string }[];
          assert.equal(content.length, 1);
          assert.equal(content[0].type, "text");
          assert.match(
            content[0].text,
            /^Too many AI calls: at most 3 a minute; try again in \d+ s$/,
          );
          assert.equal(ai.requests.length, 3);
        } finally {
          await client.close();
        }
      },
    );

    await t.step("the limit is per user", async () => {
      assert.equal((await call(second, ws2, "iterate")).status, 200);
      assert.equal(ai.requests.length, 4);
    });
  } finally {
    await stack.close();
    await ai.close();
  }
});

Deno.test("AI_CALLS_PER_MINUTE defaults to 20 and a malformed value names the variable", () => {
  const base = parseBaseConfig({});
  assert.equal(parseGenaiConfig({}, base).aiCallsPerMinute, 20);
  assert.equal(parseGenaiConfig({ AI_CALLS_PER_MINUTE: "" }, base).aiCallsPerMinute, 20);
  assert.equal(parseGenaiConfig({ AI_CALLS_PER_MINUTE: "0" }, base).aiCallsPerMinute, 0);
  for (const bad of ["lots", "-1", "2.5"]) {
    assert.throws(
      () => parseGenaiConfig({ AI_CALLS_PER_MINUTE: bad }, base),
      (err) => err instanceof ConfigError && /AI_CALLS_PER_MINUTE/.test(err.message),
      bad,
    );
  }
});
