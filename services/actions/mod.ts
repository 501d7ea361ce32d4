import { openAssetStore } from "../../shared/assets/config.ts";
import { UploadUrls } from "../../shared/assets/upload_urls.ts";
import { createDeliverer } from "../../shared/delivery/mod.ts";
import { createServiceApp, mountServiceInternals } from "../../shared/http/service_app.ts";
import { KEY_FAMILIES } from "./keys.ts";
import { openServiceKv } from "../../shared/kv/kv.ts";
import { queueDriver, ServiceQueue } from "../../shared/queue/queue.ts";
import { type ServiceFactory, startListening } from "../../shared/service/service.ts";
import { AuthClient } from "../auth/client.ts";
import { WorkspacesClient } from "../workspaces/client.ts";
import { parseActionsConfig } from "./config.ts";
import { actionsJobHandlers, actionsJobSchema } from "./jobs.ts";
import { mountAttachmentRoutes } from "./attachment_routes.ts";
import { AttachmentOperations } from "./attachments.ts";
import { ActionOperations } from "./operations.ts";
import { mountActionRoutes } from "./routes.ts";
import { ActionStore } from "./store.ts";

/**
 * The actions service: action items, their attachments (in the shared asset store) and the
 * direct messages they cause, delivered through this service's KV queue.
 */
export const createActionsService: ServiceFactory = async ({ env, base, directory, logger }) => {
  const config = parseActionsConfig(env, base);
  const assets = config.assets ? await openAssetStore(config.assets) : null;
  const uploads = config.assets ? await UploadUrls.fromConfig(config.assets) : null;
  if (!assets) logger.warn("ASSETS_URL is empty: attachment routes will answer 500");
  const kv = await openServiceKv(base.dataDir, "actions");
  const store = new ActionStore(kv);
  // Migration: actions stored before the paged list's indexes existed are indexed once, here.
  await store.buildListIndexes();
  const queue = new ServiceQueue(queueDriver(kv, logger), actionsJobSchema, logger);
  const auth = new AuthClient(directory, base.internalSecret);
  const deliverer = createDeliverer({
    kv,
    logger,
    ...config.delivery,
    keep: (message, id) => auth.keepNotification(message, id),
  });
  const app = createServiceApp({ logger, internalSecret: base.internalSecret });
  const workspaces = new WorkspacesClient(directory, base.internalSecret);
  const actions = new ActionOperations({
    store,
    queue,
    assets,
    publicUrl: config.publicUrl,
    auth,
    workspaces,
  });
  const attachments = new AttachmentOperations({
    actions,
    store,
    queue,
    assets,
    uploads,
    workspaces,
    uploadUrlTtl: config.uploadUrlTtl,
    cleanupMargin: config.cleanupMargin,
  });
  mountActionRoutes(app, actions);
  mountAttachmentRoutes(app, attachments);
  let ready = false;
  // A restore leaves the list's indexes out (derived): they are built again from the actions.
  mountServiceInternals(app, () => ready, {
    kv,
    keys: KEY_FAMILIES,
    afterImport: async () => void await store.buildListIndexes(),
  });
  return {
    name: "actions",
    fetch: app.fetch,
    start: async () => {
      await startListening(
        () => queue.listen(actionsJobHandlers({ attachments, assets, deliverer, logger })),
        logger,
      );
      ready = true;
    },
    close: async () => {
      await queue.close(); // jobs in flight finish before the KV closes
      kv.close();
    },
  };
};
