import { createServiceApp, mountServiceInternals } from "../../shared/http/service_app.ts";
import type { ServiceFactory } from "../../shared/service.ts";
import { AiBackend } from "./ai_backend.ts";
import { parseGenaiConfig } from "./config.ts";
import { mountGenaiInternal } from "./internal.ts";

/**
 * The genai service: the one place that talks to the AI backend. Today it makes idea titles
 * (for ideas, through GenaiClient); generate, iterate and proofread join it as public routes.
 */
export const createGenaiService: ServiceFactory = ({ env, base, logger }) => {
  const config = parseGenaiConfig(env, base);
  const backend = config.backend ? new AiBackend(config.backend, logger) : null;
  if (!backend) {
    logger.warn("no AI backend configured (OPENAI_BASE_URL / OPENAI_API_KEY); titles fall back");
  }
  let ready = false;
  const app = createServiceApp({ logger, internalSecret: base.internalSecret });
  mountGenaiInternal(app, { backend, logger });
  mountServiceInternals(app, () => ready);
  return Promise.resolve({
    name: "genai",
    fetch: app.fetch,
    start: () => {
      ready = true;
      return Promise.resolve();
    },
    close: () => Promise.resolve(),
  });
};
