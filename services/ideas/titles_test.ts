/**
 * Ideas makes its titles in process through the shared AI module (`shared/ai/`): the model's
 * title reaches a new idea with no genai service running at all.
 */
import assert from "node:assert/strict";
import { parseBaseConfig } from "../../shared/config.ts";
import { inProcessPasses } from "../../shared/http/identity.ts";
import { createLogger } from "../../shared/log.ts";
import { ServiceDirectory } from "../../shared/service/service_directory.ts";
import { startFakeChatCompletions } from "../../tests/fakes/chat_completions.ts";
import { createIdeasService } from "./mod.ts";

const CALLER = {
  user_id: "01HUSERUSERUSERUSERUSERUSE",
  email: "writer@example.test",
  name: "Writer",
  role: "member" as const,
  approved: true,
};
const WORKSPACE = "01HWORKSPACEWORKSPACEWORKS";

/** The ideas service alone: workspaces answers every membership check with `editor`. */
async function ideasAlone(env: Record<string, string>) {
  const dataDir = await Deno.makeTempDir({ prefix: "ideas-titles-" });
  const fullEnv = {
    DATA_DIR: dataDir,
    PUBLIC_URL: "http://localhost:8000",
    INTERNAL_SECRET: "0123456789abcdef0123456789abcdef",
    LOG_LEVEL: "error",
    ...env,
  };
  const base = parseBaseConfig(fullEnv);
  const directory = new ServiceDirectory().register("workspaces", () =>
    Response.json({
      workspace_id: WORKSPACE,
      user_id: CALLER.user_id,
      role: "editor",
      workspace_status: "active",
      owner_id: "01HOWNEROWNEROWNEROWNEROWN",
    }));
  const logger = createLogger("ideas", { level: "error" });
  const service = await createIdeasService({ env: fullEnv, base, directory, logger });
  await service.start();
  const createIdea = async (title: string) => {
    const req = new Request("http://ideas/api/ideas", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ workspace_id: WORKSPACE, title }),
    });
    inProcessPasses.set(req, { caller: CALLER, requestId: crypto.randomUUID() });
    const res = await service.fetch(req);
    return { status: res.status, body: await res.json() };
  };
  const close = async () => {
    await service.close();
    await Deno.remove(dataDir, { recursive: true });
  };
  return { createIdea, close, directory };
}

Deno.test("a new idea gets the model's title with no genai service running", async () => {
  const ai = startFakeChatCompletions();
  ai.setDefault({ content: '"Model title"' });
  const ideas = await ideasAlone({ OPENAI_BASE_URL: ai.baseUrl, OPENAI_API_KEY: "k" });
  try {
    assert.equal(ideas.directory.has("genai"), false);
    const created = await ideas.createIdea("some text about hiring juniors");
    assert.equal(created.status, 201, JSON.stringify(created.body));
    assert.equal(created.body.title, "Model title");
  } finally {
    await ideas.close();
    await ai.close();
  }
});
