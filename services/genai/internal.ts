import { internalBody } from "../../shared/http/internal_input.ts";
import { requireCaller, type ServiceApp } from "../../shared/http/service_app.ts";
import type { Logger } from "../../shared/log.ts";
import type { AiBackend } from "../../shared/ai/backend.ts";
import type { GenaiOperations } from "./operations.ts";
import { internalGenerateBody, iterateBody, proofreadBody, titleRequestSchema } from "./schemas.ts";
import { makeTitle } from "../../shared/ai/titles.ts";

/**
 * Routes for peers only (never in the public document). `/internal/titles` always answers a
 * title: the model's, or the fallback when the backend cannot help. `/internal/generate`,
 * `/internal/iterate` and `/internal/proofread` (MCP) take the REST bodies and the caller in
 * the caller header, and answer exactly as the REST routes do.
 */
export function mountGenaiInternal(
  app: ServiceApp,
  deps: { backend: AiBackend | null; logger: Logger; ops: GenaiOperations },
): void {
  app.post("/internal/titles", async (c) => {
    const { text } = await internalBody(c, titleRequestSchema);
    return c.json(await makeTitle(deps.backend, text, deps.logger));
  });

  app.post("/internal/generate", async (c) => {
    const caller = requireCaller(c);
    const { idea, ...input } = await internalBody(c, internalGenerateBody);
    return c.json(await deps.ops.generate(caller, input, idea));
  });

  app.post("/internal/iterate", async (c) => {
    const caller = requireCaller(c);
    return c.json(await deps.ops.iterate(caller, await internalBody(c, iterateBody)));
  });

  app.post("/internal/proofread", async (c) => {
    const caller = requireCaller(c);
    return c.json(await deps.ops.proofread(caller, await internalBody(c, proofreadBody)));
  });
}
