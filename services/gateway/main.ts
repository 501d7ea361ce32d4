/** `deno task start:gateway`: the gateway alone, finding each service through `<NAME>_URL`. */
import { loadOrExit } from "../../shared/config.ts";
import { createLogger } from "../../shared/log.ts";
import { ServiceDirectory } from "../../shared/service_directory.ts";
import { parseGatewayConfig } from "./config.ts";
import { createGateway } from "./mod.ts";
import { fileAssetRoutesFromEnv } from "../../shared/assets/file_routes.ts";

const config = loadOrExit(() => parseGatewayConfig(Deno.env.toObject(), { requireSecret: true }));
const logger = createLogger("gateway");
const directory = new ServiceDirectory().registerUrls(config.base.serviceUrls);
const extraRoutes = await loadOrExit(() =>
  fileAssetRoutesFromEnv(Deno.env.toObject(), config.base, createLogger("assets"))
);
const gateway = createGateway({ config, directory, logger, extraRoutes });
const server = Deno.serve({ port: config.base.port, onListen: () => {} }, gateway.fetch);
logger.info("listening", { port: server.addr.port, services: config.base.serviceUrls });
