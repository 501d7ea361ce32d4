import { loadOrExit, parseBaseConfig, type ServiceName } from "../config.ts";
import { createLogger } from "../log.ts";
import type { ServiceFactory } from "../service/service.ts";
import { ServiceDirectory } from "../service/service_directory.ts";
import { registerQueueCron, stopWithin } from "./lifecycle.ts";
import { trimNativeMemoryPeriodically } from "./native_memory.ts";
import { promptCollectionsBy } from "./heap_watch.ts";

/**
 * Runs one service alone on its own port and KV, as it would be deployed: peers are reached
 * over HTTP through `<NAME>_URL`, and every request must carry `INTERNAL_SECRET`.
 */
export async function runStandalone(name: ServiceName, factory: ServiceFactory) {
  let started!: () => void;
  registerQueueCron(`${name} queue`, new Promise<void>((resolve) => started = resolve));
  const env = Deno.env.toObject();
  const base = loadOrExit(() => parseBaseConfig(env, { requireSecret: true }));
  promptCollectionsBy(!base.onDenoDeploy);
  const directory = new ServiceDirectory().registerUrls(base.serviceUrls);
  const logger = createLogger(name, { level: base.logLevel });
  const service = await factory({ env, base, directory, logger });
  directory.register(name, service.fetch);
  let ready = false;
  const server = Deno.serve({ port: base.port, hostname: base.host, onListen: () => {} }, (req) => {
    if (new URL(req.url).pathname === "/healthz") {
      return Response.json(ready ? { status: "ok" } : { status: "starting" }, {
        status: ready ? 200 : 503,
      });
    }
    return service.fetch(req);
  });
  await service.start();
  ready = true;
  started();
  trimNativeMemoryPeriodically();
  logger.info("listening", { port: server.addr.port });
  const stop = async () => {
    await stopWithin(async () => {
      await server.shutdown();
      await service.close();
    });
    Deno.exit(0);
  };
  Deno.addSignalListener("SIGTERM", stop);
  Deno.addSignalListener("SIGINT", stop);
}
