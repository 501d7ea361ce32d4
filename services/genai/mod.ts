import { createServiceApp, mountServiceInternals } from "../../shared/http/service_app.ts";
import { openServiceKv } from "../../shared/kv/kv.ts";
import type { ServiceFactory } from "../../shared/service/service.ts";
import { IdeasClient } from "../ideas/client.ts";
import { PostsClient } from "../posts/client.ts";
import { PromptsClient } from "../prompts/client.ts";
import { WorkspacesClient } from "../workspaces/client.ts";
import { AiBackend } from "../../shared/ai/backend.ts";
import { endFallbackTitles } from "../../shared/ai/titles.ts";
import { parseGenaiConfig } from "./config.ts";
import { mountGenaiInternal } from "./internal.ts";
import { GenaiOperations } from "./operations.ts";
import { mountGenaiRoutes } from "./routes.ts";
import { GenaiStore } from "./store.ts";
import { GrammarChecker } from "./checker.ts";
import { errorMessage } from "../../shared/log.ts";

/**
 * The genai service: the one place that talks to the AI backend. It makes idea titles (for
 * ideas, through GenaiClient) and answers generate, iterate and proofread (REST, and the same
 * operations over `/internal` for MCP). Its KV holds only the per-user AI call counters, which
 * are transient, so it takes no part in backups.
 */
export const createGenaiService: ServiceFactory = async ({ env, base, directory, logger }) => {
  const config = parseGenaiConfig(env, base);
  const backend = config.backend ? new AiBackend(config.backend, logger) : null;
  if (!backend) {
    logger.warn(
      "no AI backend configured (OPENAI_BASE_URL / OPENAI_API_KEY): proofread uses the " +
        "built-in checker alone, titles are made from the text, generate and iterate answer 503",
    );
  }
  const kv = await openServiceKv(base.dataDir, "genai");
  const secret = base.internalSecret;
  // Loaded in a worker on the first proofread (or at start), ended after an idle period.
  const checker = new GrammarChecker({ logger, idleMs: config.checkerIdleMs });
  const ops = new GenaiOperations({
    backend,
    store: new GenaiStore(kv),
    workspaces: new WorkspacesClient(directory, secret),
    ideas: new IdeasClient(directory, secret),
    prompts: new PromptsClient(directory, secret),
    posts: new PostsClient(directory, secret),
    checker,
    aiCallsPerMinute: config.aiCallsPerMinute,
    logger,
  });
  let ready = false;
  let closed = false;
  const app = createServiceApp({ logger, internalSecret: secret });
  mountGenaiRoutes(app, ops);
  mountGenaiInternal(app, { backend, logger, ops });
  mountServiceInternals(app, () => ready);
  return {
    name: "genai",
    fetch: app.fetch,
    start: () => {
      if (config.checkerPreload) {
        checker.warm().catch((err) => {
          // Closing the service while it loads is no failure.
          if (!closed) {
            logger.error("the grammar checker did not load", { error: errorMessage(err) });
          }
        });
      }
      ready = true;
      return Promise.resolve();
    },
    close: () => {
      closed = true;
      checker.close();
      endFallbackTitles();
      kv.close();
      return Promise.resolve();
    },
  };
};
