import { parseBaseConfig, type ServiceName } from "../shared/config.ts";
import { createLogger } from "../shared/log.ts";
import type { ServiceInstance } from "../shared/service.ts";
import { ServiceDirectory } from "../shared/service_directory.ts";
import { createGateway } from "../services/gateway/mod.ts";
import { parseGatewayConfig } from "../services/gateway/config.ts";
import { SERVICE_FACTORIES } from "./service_factories.ts";
import { fileAssetRoutesFromEnv } from "../shared/assets/file_routes.ts";

export interface RunningStack {
  url: string;
  port: number;
  services: ServiceInstance[];
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
  const gatewayConfig = { ...parseGatewayConfig(env), base };
  const directory = new ServiceDirectory();
  const services: ServiceInstance[] = [];
  for (const [name, factory] of Object.entries(SERVICE_FACTORIES)) {
    const service = await factory!({
      env,
      base,
      directory,
      logger: createLogger(name),
    });
    services.push(service);
  }
  const gateway = createGateway({
    config: gatewayConfig,
    directory,
    logger: createLogger("gateway"),
    extraRoutes: await fileAssetRoutesFromEnv(env, base, createLogger("assets")),
  });
  const server = Deno.serve({
    port: base.port,
    hostname: env.HOST ?? "0.0.0.0",
    onListen: () => {},
  }, gateway.fetch);
  // Services are registered only once started, so /healthz stays 503 until all are ready.
  for (const service of services) {
    await service.start();
    directory.register(service.name as ServiceName, service.fetch);
  }
  const port = server.addr.port;
  if (!options.quiet) {
    createLogger("gateway").info("listening", { port, public_url: base.publicUrl });
  }
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    services,
    async close() {
      await server.shutdown();
      for (const s of services) await s.close();
    },
  };
}
