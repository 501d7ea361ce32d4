import { createServiceApp, mountServiceInternals } from "../../shared/http/service_app.ts";
import type { ServiceFactory } from "../../shared/service/service.ts";
import { endFallbackTitles } from "../../shared/ai/titles.ts";
import { GenaiClient } from "../genai/client.ts";
import { IdeasClient } from "../ideas/client.ts";
import { PostsClient } from "../posts/client.ts";
import { WorkspacesClient } from "../workspaces/client.ts";
import { mountMcpRoutes } from "./routes.ts";

/**
 * The mcp service: the tool interface for AI clients at `POST /mcp`. It keeps no state of its
 * own (no KV, no queue): every tool is a call to the workspaces, ideas, posts and genai
 * services through their internal clients.
 */
export const createMcpService: ServiceFactory = ({ base, directory, logger }) => {
  const secret = base.internalSecret;
  let ready = false;
  const app = createServiceApp({ logger, internalSecret: secret });
  mountMcpRoutes(app, {
    workspaces: new WorkspacesClient(directory, secret),
    ideas: new IdeasClient(directory, secret),
    posts: new PostsClient(directory, secret),
    genai: new GenaiClient(directory, secret, { logger }),
    logger,
  });
  mountServiceInternals(app, () => ready);
  return Promise.resolve({
    name: "mcp",
    fetch: app.fetch,
    start: () => {
      ready = true;
      return Promise.resolve();
    },
    close: () => {
      endFallbackTitles();
      return Promise.resolve();
    },
  });
};
