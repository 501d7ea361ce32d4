import { createServiceApp, mountServiceInternals } from "../../shared/http/service_app.ts";
import type { ServiceFactory } from "../../shared/service/service.ts";
import { parseWebConfig } from "./config.ts";
import { mountWebRoutes } from "./routes.ts";

/**
 * The web service: serves the built single-page app (`deno task web:build` writes it to
 * `dist/`). It keeps no state; the app talks to the API through the gateway, same origin.
 */
export const createWebService: ServiceFactory = ({ env, base, logger }) => {
  const config = parseWebConfig(env, base);
  let ready = false;
  const app = createServiceApp({ logger, internalSecret: base.internalSecret });
  mountServiceInternals(app, () => ready);
  mountWebRoutes(app, config);
  return Promise.resolve({
    name: "web",
    fetch: app.fetch,
    start: () => {
      ready = true;
      return Promise.resolve();
    },
    close: () => Promise.resolve(),
  });
};
