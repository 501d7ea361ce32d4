import type { z } from "zod";
import { describeZodError, requireCaller, type ServiceApp } from "../../shared/http/service_app.ts";
import { AppError } from "../../shared/http/app_error.ts";
import type { Logger } from "../../shared/log.ts";
import type { AiBackend } from "./ai_backend.ts";
import type { GenaiOperations } from "./operations.ts";
import { generateBody, iterateBody, proofreadBody, titleRequestSchema } from "./schemas.ts";
import { makeTitle } from "./titles.ts";

async function parseJson<T extends z.ZodTypeAny>(
  req: { json(): Promise<unknown> },
  schema: T,
): Promise<z.infer<T>> {
  const parsed = schema.safeParse(await req.json().catch(() => undefined));
  if (!parsed.success) throw new AppError(400, describeZodError(parsed.error));
  return parsed.data;
}

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
    const { text } = await parseJson(c.req, titleRequestSchema);
    return c.json(await makeTitle(deps.backend, text, deps.logger));
  });

  app.post("/internal/generate", async (c) => {
    const caller = requireCaller(c);
    return c.json(await deps.ops.generate(caller, await parseJson(c.req, generateBody)));
  });

  app.post("/internal/iterate", async (c) => {
    const caller = requireCaller(c);
    return c.json(await deps.ops.iterate(caller, await parseJson(c.req, iterateBody)));
  });

  app.post("/internal/proofread", async (c) => {
    const caller = requireCaller(c);
    return c.json(await deps.ops.proofread(caller, await parseJson(c.req, proofreadBody)));
  });
}
