/** `deno task start:gateway`: the gateway alone, finding each service through `<NAME>_URL`. */
import { loadOrExit, parseBaseConfig } from "../../shared/config.ts";
import { createLogger } from "../../shared/log.ts";
import { ServiceDirectory } from "../../shared/service/service_directory.ts";
import { parseGatewayConfig } from "./config.ts";
import { createGateway } from "./mod.ts";
import { fileAssetRoutesFromEnv } from "../../shared/assets/file_routes.ts";
import { uploadClaims } from "./upload_claims.ts";

const env = Deno.env.toObject();
const config = loadOrExit(() =>
  parseGatewayConfig(env, parseBaseConfig(env, { requireSecret: true }))
);
const logger = createLogger("gateway", { level: config.base.logLevel });
const directory = new ServiceDirectory().registerUrls(config.base.serviceUrls);
const extraRoutes = await loadOrExit(() =>
  fileAssetRoutesFromEnv(
    env,
    config.base,
    createLogger("assets", { level: config.base.logLevel }),
    uploadClaims(directory, config.base.internalSecret),
  )
);
const gateway = createGateway({ config, directory, logger, extraRoutes });
const server = Deno.serve(
  { port: config.base.port, hostname: config.base.host, onListen: () => {} },
  gateway.fetch,
);
logger.info("listening", { port: server.addr.port, services: config.base.serviceUrls });
