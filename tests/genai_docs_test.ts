/**
 * The example configurations of docs/ai_backends.md work as written: each is read from the
 * document, pointed at the loopback fake backend (only the URL's host and port change), and a
 * stack started with it drafts and proofreads through the model the example names.
 */
import assert from "node:assert/strict";
import { api, e2e, startTestStack } from "./helpers/stack.ts";
import { createUser } from "./helpers/users.ts";
import { createWorkspace } from "./helpers/workspaces.ts";
import { startFakeChatCompletions } from "./fakes/chat_completions.ts";

const DOC = new URL("../docs/ai_backends.md", import.meta.url);

/** The `KEY=value` lines of the dotenv block after `<!-- example-config: name ... -->`. */
async function exampleConfig(name: string): Promise<Record<string, string>> {
  const doc = await Deno.readTextFile(DOC);
  const at = doc.indexOf(`<!-- example-config: ${name} `);
  assert.ok(at >= 0, `docs/ai_backends.md has the example configuration ${name}`);
  const block = /```dotenv\n([\s\S]*?)```/.exec(doc.slice(at));
  assert.ok(block, `the ${name} example is a dotenv block`);
  const env: Record<string, string> = {};
  for (const line of block[1].split("\n")) {
    const match = /^([A-Z_]+)=(.*)$/.exec(line.trim());
    if (match) env[match[1]] = match[2];
  }
  return env;
}

for (
  const [name, model, key] of [
    ["ollama", "llama3.1", null],
    ["openai-compatible", "meta-llama/Llama-3.1-8B-Instruct", "token-abc"],
  ] as const
) {
  Deno.test(`the ${name} example configuration of the docs works`, e2e, async () => {
    const example = await exampleConfig(name);
    assert.equal(example.OPENAI_MODEL, model);
    const ai = startFakeChatCompletions();
    const documented = new URL(example.OPENAI_BASE_URL);
    const fake = new URL(ai.baseUrl);
    assert.equal(documented.pathname, fake.pathname, "the documented URL ends in /v1");
    documented.host = fake.host;
    documented.protocol = fake.protocol;
    const stack = await startTestStack({ ...example, OPENAI_BASE_URL: documented.href });
    try {
      const user = await createUser(stack);
      const ws = await createWorkspace(stack, user, "Docs");
      ai.script({ content: "Writing beats meetings" });
      const idea = await api(stack, "POST", "/api/ideas", {
        token: user.access_token,
        body: { workspace_id: ws, title: "Async writing beats meetings for remote teams." },
      });
      assert.equal(idea.body.title, "Writing beats meetings", "the model made the title");
      ai.script({ content: "A drafted post" });
      const draft = await api(stack, "POST", "/api/genai/generate", {
        token: user.access_token,
        body: { workspace_id: ws, idea_id: idea.body.idea_id },
      });
      assert.deepEqual([draft.status, draft.body.content], [200, "A drafted post"]);
      for (const request of ai.requests) {
        assert.equal(request.model, model);
        if (key) assert.equal(request.authorization, `Bearer ${key}`);
      }
      assert.equal(ai.requests.length, 2);
    } finally {
      await stack.close();
      await ai.close();
    }
  });
}
