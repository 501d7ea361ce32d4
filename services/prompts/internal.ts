import type { ServiceApp } from "../../shared/http/service_app.ts";
import { notFound } from "../../shared/http/app_error.ts";
import { PROMPT_NOT_FOUND } from "./routes.ts";
import { ID_MAX } from "./schemas.ts";
import type { PromptsStore } from "./store.ts";

const usable = (...ids: string[]) => ids.every((id) => id.length > 0 && id.length <= ID_MAX);

/** Routes for peers only (genai, mcp): a prompt by id, and a user's default prompt. */
export function mountPromptsInternal(app: ServiceApp, store: PromptsStore): void {
  app.get("/internal/workspaces/:workspaceId/prompts/:promptId", async (c) => {
    const { workspaceId, promptId } = c.req.param();
    const prompt = usable(workspaceId, promptId) ? await store.get(workspaceId, promptId) : null;
    if (!prompt) throw notFound(PROMPT_NOT_FOUND);
    return c.json(prompt);
  });

  app.get("/internal/workspaces/:workspaceId/users/:userId/default-prompt", async (c) => {
    const { workspaceId, userId } = c.req.param();
    const prompt = usable(workspaceId, userId) ? await store.getDefault(workspaceId, userId) : null;
    if (!prompt) throw notFound("No default prompt");
    return c.json(prompt);
  });
}
