import { parseBaseConfig, type ServiceName } from "../shared/config.ts";
import { createLogger } from "../shared/log.ts";
import type { ServiceInstance } from "../shared/service/service.ts";
import { ServiceDirectory } from "../shared/service/service_directory.ts";
import { createGateway } from "../services/gateway/mod.ts";
import { parseGatewayConfig } from "../services/gateway/config.ts";
import { SERVICE_FACTORIES } from "./service_factories.ts";
import { fileAssetRoutesFromEnv } from "../shared/assets/file_routes.ts";
import { uploadClaims } from "../services/gateway/upload_claims.ts";
import { ensurePrivateDir, isLocalDataDir, PRIVATE_FILE_MODE } from "../shared/kv/kv.ts";
import { readOrCreateTextFile } from "../shared/runtime/file_once.ts";
import { promptCollectionsBy } from "../shared/runtime/heap_watch.ts";

export interface RunningStack {
  url: string;
  port: number;
  services: ServiceInstance[];
  /** The gateway's handler, as the listener calls it (benchmarks call it without a socket). */
  handler: (req: Request, info?: Deno.ServeHandlerInfo) => Response | Promise<Response>;
  close(): Promise<void>;
}

/**
 * Every service in one process: one gateway on one port, each service an app called in
 * process through the directory, each with its own KV file under DATA_DIR.
 */
export async function startAllInOne(
  env: Record<string, string | undefined>,
  options: { quiet?: boolean } = {},
): Promise<RunningStack> {
  const base = parseBaseConfig(env);
  promptCollectionsBy(!base.onDenoDeploy);
  if (!base.internalSecretGiven) base.internalSecret = await instanceSecret(base.dataDir);
  const gatewayConfig = parseGatewayConfig(env, base);
  const log = (name: string) => createLogger(name, { level: base.logLevel });
  const directory = new ServiceDirectory();
  const services: ServiceInstance[] = [];
  for (const [name, factory] of Object.entries(SERVICE_FACTORIES)) {
    const service = await factory!({
      env,
      base,
      directory,
      logger: log(name),
    });
    services.push(service);
  }
  const gateway = createGateway({
    config: gatewayConfig,
    directory,
    logger: log("gateway"),
    extraRoutes: await fileAssetRoutesFromEnv(
      env,
      base,
      log("assets"),
      uploadClaims(directory, base.internalSecret),
    ),
  });
  const server = Deno.serve({
    port: base.port,
    hostname: base.host,
    onListen: () => {},
  }, gateway.fetch);
  // Services are registered only once started, so /healthz stays 503 until all are ready.
  for (const service of services) {
    await service.start();
    directory.register(service.name as ServiceName, service.fetch);
  }
  const port = server.addr.port;
  if (!options.quiet) {
    log("gateway").info("listening", { port, public_url: base.publicUrl });
  }
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    services,
    handler: (req, info) => gateway.fetch(req, info),
    async close() {
      await server.shutdown();
      // Services depend one way, in SERVICE_FACTORIES' order: those that call others close
      // first, so no queue job of theirs reaches a service whose KV is already closed.
      for (const s of [...services].reverse()) await s.close();
    },
  };
}

/**
 * The internal secret of a stack started without INTERNAL_SECRET: made once and kept in
 * `DATA_DIR/internal_secret` (0600), so every instance started on the same DATA_DIR signs and
 * checks attachment URLs with the same key (one instance's upload link works on the other).
 * In memory (`:memory:`, `deno-deploy`, a KV Connect URL) it is random per process.
 */
async function instanceSecret(dataDir: string): Promise<string> {
  const fresh = crypto.randomUUID() + crypto.randomUUID();
  if (!isLocalDataDir(dataDir)) return fresh;
  await ensurePrivateDir(dataDir);
  const path = `${dataDir}/internal_secret`;
  const secret = (await readOrCreateTextFile(path, () => fresh, PRIVATE_FILE_MODE)).trim();
  if (secret.length < 16) {
    throw new Error(`${path} is empty or too short: delete it or set INTERNAL_SECRET`);
  }
  return secret;
}
