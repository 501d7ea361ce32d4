import { createServiceApp, mountServiceInternals } from "../../shared/http/service_app.ts";
import { KEY_FAMILIES } from "./keys.ts";
import { openServiceKv } from "../../shared/kv/kv.ts";
import type { ServiceFactory } from "../../shared/service/service.ts";
import { WorkspacesClient } from "../workspaces/client.ts";
import { mountPromptsInternal } from "./internal.ts";
import { mountPromptRoutes } from "./routes.ts";
import { PromptsStore } from "./store.ts";

/** The prompts service: prompt templates per creator and workspace. It has no queue jobs. */
export const createPromptsService: ServiceFactory = async ({ base, directory, logger }) => {
  const kv = await openServiceKv(base.dataDir, "prompts");
  const store = new PromptsStore(kv);
  let ready = false;
  const app = createServiceApp({ logger, internalSecret: base.internalSecret });
  mountPromptRoutes(app, {
    store,
    workspaces: new WorkspacesClient(directory, base.internalSecret),
  });
  mountPromptsInternal(app, store);
  mountServiceInternals(app, () => ready, { kv, keys: KEY_FAMILIES });
  return {
    name: "prompts",
    fetch: app.fetch,
    start: () => {
      ready = true;
      return Promise.resolve();
    },
    close: () => Promise.resolve(kv.close()),
  };
};
