import { createServiceApp, mountServiceInternals } from "../../shared/http/service_app.ts";
import { KEY_FAMILIES } from "./keys.ts";
import { AccessCache } from "../../shared/http/access_cache.ts";
import { AiBackend } from "../../shared/ai/backend.ts";
import { endFallbackTitles, titleWithin } from "../../shared/ai/titles.ts";
import { openServiceKv } from "../../shared/kv/kv.ts";
import type { ServiceFactory } from "../../shared/service/service.ts";
import { AuthClient } from "../auth/client.ts";
import { WorkspacesClient } from "../workspaces/client.ts";
import { parseIdeasConfig, TITLE_DEADLINE_MS } from "./config.ts";
import { mountIdeasInternal } from "./internal.ts";
import { CAPTURE_PATH, mountQuickCapture } from "./quick_capture.ts";
import { mountIdeaRoutes } from "./routes.ts";
import { IdeasStore } from "./store.ts";

/** The ideas service: ideas, quick capture and capture tokens. It has no queue jobs. */
export const createIdeasService: ServiceFactory = async ({ env, base, directory, logger }) => {
  const config = parseIdeasConfig(env, base);
  const kv = await openServiceKv(base.dataDir, "ideas");
  const store = new IdeasStore(kv);
  // Titles are made in process (the model's, or the fallback after the deadline).
  const ai = config.aiBackend ? new AiBackend(config.aiBackend, logger) : null;
  const deps = {
    store,
    workspaces: new WorkspacesClient(directory, base.internalSecret),
    title: (text: string) => titleWithin(ai, text, logger, TITLE_DEADLINE_MS),
  };
  let ready = false;
  const app = createServiceApp({
    logger,
    internalSecret: base.internalSecret,
    selfAuthenticatingPaths: [CAPTURE_PATH],
  });
  mountIdeaRoutes(app, deps);
  const auth = new AuthClient(directory, base.internalSecret);
  mountQuickCapture(app, deps, {
    captureUrl: config.captureUrl,
    capturesPerMinute: config.capturesPerMinute,
    access: new AccessCache((userId) => auth.access(userId)),
  });
  mountIdeasInternal(app, store);
  // Tokens stored before they had ids are indexed under their user, so their owner can list
  // and revoke them; an archive restored from before then gets the same. A restore leaves the
  // list's indexes out (derived), so they are built again from the restored ideas.
  mountServiceInternals(app, () => ready, {
    kv,
    keys: KEY_FAMILIES,
    afterImport: async () => {
      await store.buildListIndexes();
      await store.indexCaptureTokens();
    },
  });
  // Migration: ideas stored before the paged list's indexes existed are indexed once, here.
  await store.buildListIndexes();
  await store.indexCaptureTokens();
  return {
    name: "ideas",
    fetch: app.fetch,
    start: () => {
      ready = true;
      return Promise.resolve();
    },
    close: () => {
      endFallbackTitles();
      kv.close();
      return Promise.resolve();
    },
  };
};
