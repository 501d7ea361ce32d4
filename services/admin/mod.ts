import { openAssetStore } from "../../shared/assets/config.ts";
import { createServiceApp, mountServiceInternals } from "../../shared/http/service_app.ts";
import { openServiceKv } from "../../shared/kv/kv.ts";
import { errorMessage } from "../../shared/log.ts";
import { queueDriver, ServiceQueue } from "../../shared/queue/queue.ts";
import { type ServiceFactory, startListening } from "../../shared/service/service.ts";
import { AuthClient } from "../auth/client.ts";
import { IdeasClient } from "../ideas/client.ts";
import { PostsClient } from "../posts/client.ts";
import { WorkspacesClient } from "../workspaces/client.ts";
import { parseAdminConfig } from "./config.ts";
import { adminJobHandlers } from "./jobs.ts";
import { AdminOperations, BACKUP_SWEEP_MS, BackupOperations } from "./operations.ts";
import { KeyspaceClient } from "./peers.ts";
import { mountAdminRoutes } from "./routes.ts";
import { adminJobSchema } from "./schemas.ts";
import { AdminStore } from "./store.ts";

/**
 * The admin service: user approval and management, workspace oversight, metrics from the
 * other services' counters, and backup and restore of everything (restores run as jobs on
 * this service's KV queue).
 */
export const createAdminService: ServiceFactory = async ({ env, base, directory, logger }) => {
  const config = parseAdminConfig(env, base);
  const assets = config.assets ? await openAssetStore(config.assets) : null;
  if (!assets) logger.warn("ASSETS_URL is empty: backup routes will answer 500");
  const kv = await openServiceKv(base.dataDir, "admin");
  const queue = new ServiceQueue(queueDriver(kv, logger), adminJobSchema, logger);
  const store = new AdminStore(kv, queue);
  const auth = new AuthClient(directory, base.internalSecret);
  const keyspaces = new KeyspaceClient(directory, base.internalSecret);
  const app = createServiceApp({ logger, internalSecret: base.internalSecret });
  let ready = false;
  mountServiceInternals(app, () => ready);
  const backups = new BackupOperations({
    store,
    assets,
    keyspaces,
    tmpDir: config.tmpDir,
    logger,
  });
  const admin = new AdminOperations({
    auth,
    workspaces: new WorkspacesClient(directory, base.internalSecret),
    posts: new PostsClient(directory, base.internalSecret),
    ideas: new IdeasClient(directory, base.internalSecret),
    has: (name) => directory.has(name),
  });
  mountAdminRoutes(app, { admin, backups });
  let sweepTimer: ReturnType<typeof setInterval> | null = null;
  let sweeping: Promise<unknown> = Promise.resolve();
  const sweep = () => {
    sweeping = backups.recordFound().catch((err) =>
      logger.warn("the backup sweep failed", { error: errorMessage(err) })
    );
  };
  return {
    name: "admin",
    fetch: app.fetch,
    start: async () => {
      await startListening(
        () =>
          queue.listen(adminJobHandlers({
            store,
            assets,
            keyspaces,
            auth,
            logger,
            restoreMaxBytes: config.restoreMaxBytes,
          })),
        logger,
      );
      // Backups put in the asset store another way are recorded (and so dated) by this sweep:
      // at start and every BACKUP_SWEEP_MS; reading the list never writes.
      sweep();
      sweepTimer = setInterval(sweep, BACKUP_SWEEP_MS);
      ready = true;
    },
    close: async () => {
      if (sweepTimer !== null) clearInterval(sweepTimer);
      await sweeping; // a sweep in flight finishes before its KV closes
      await queue.close(); // so do jobs in flight (a restore calls every service)
      kv.close();
    },
  };
};
