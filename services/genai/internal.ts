import { describeZodError, type ServiceApp } from "../../shared/http/service_app.ts";
import { AppError } from "../../shared/http/app_error.ts";
import type { Logger } from "../../shared/log.ts";
import type { AiBackend } from "./ai_backend.ts";
import { titleRequestSchema } from "./schemas.ts";
import { makeTitle } from "./titles.ts";

/**
 * Routes for peers only (never in the public document): the title operation ideas uses.
 * It always answers a title: the model's, or the fallback when the backend cannot help.
 */
export function mountGenaiInternal(
  app: ServiceApp,
  deps: { backend: AiBackend | null; logger: Logger },
): void {
  app.post("/internal/titles", async (c) => {
    const parsed = titleRequestSchema.safeParse(await c.req.json().catch(() => undefined));
    if (!parsed.success) throw new AppError(400, describeZodError(parsed.error));
    return c.json(await makeTitle(deps.backend, parsed.data.text, deps.logger));
  });
}
