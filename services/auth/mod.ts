import { buildMessage, createDeliverer, parseDeliveryConfig } from "../../shared/delivery/mod.ts";
import { createServiceApp, mountServiceInternals } from "../../shared/http/service_app.ts";
import { KEY_FAMILIES } from "./keys.ts";
import { openServiceKv } from "../../shared/kv/kv.ts";
import { queueDriver, ServiceQueue } from "../../shared/queue/queue.ts";
import { type ServiceFactory, startListening } from "../../shared/service/service.ts";
import { mountAccountRoutes } from "./account_routes.ts";
import { Accounts } from "./accounts.ts";
import { mountAuthorizeRoutes } from "./authorize_routes.ts";
import { parseAuthConfig } from "./config.ts";
import { mountDiscoveryRoutes } from "./discovery_routes.ts";
import { GoogleSignIn } from "./google.ts";
import { mountGoogleRoutes } from "./google_routes.ts";
import { mountInternalRoutes } from "./internal_routes.ts";
import { OAuthClients } from "./oauth_clients.ts";
import { mountOAuthRoutes } from "./oauth_routes.ts";
import { authJobHandlers, authJobSchema } from "./jobs.ts";
import { closePasswordWorkers, dummyHash } from "./passwords.ts";
import { mountSessionRoutes } from "./session_routes.ts";
import { mountSetupRoutes } from "./setup_routes.ts";
import { mountProfileRoutes } from "./profile_routes.ts";
import { keepNotification, mountNotificationRoutes } from "./notification_routes.ts";
import { AuthStore } from "./store.ts";
import { TokenIssuer } from "./tokens.ts";

/**
 * The identity provider: accounts, passwords, the hosted login (with Google), JWTs signed
 * with Ed25519 and their JWKS, refresh tokens, WebSocket tickets, and the ADMIN_EMAIL
 * bootstrap.
 */
export const createAuthService: ServiceFactory = async ({ env, base, logger }) => {
  const config = parseAuthConfig(env, base);
  const delivery = parseDeliveryConfig(env, base);
  const kv = await openServiceKv(base.dataDir, "auth");
  const queue = new ServiceQueue(queueDriver(kv, logger), authJobSchema, logger);
  const store = new AuthStore(kv, queue);
  // Migration: accounts stored before the admin list's index existed are indexed once, here.
  await store.users.buildListIndexes();
  const deliverer = createDeliverer({
    kv,
    logger,
    ...delivery,
    keep: (message, id) => keepNotification(store, message, id),
  });
  const issuer = new TokenIssuer(store, {
    issuer: base.publicUrl,
    audience: config.clientId,
    privateJwk: config.privateJwk,
  });
  const accounts = new Accounts({
    config,
    store,
    issuer,
    logger,
    buildMessage,
  });
  const google = config.google
    ? new GoogleSignIn(config.google, `${base.publicUrl}/oauth/google/callback`)
    : null;

  let ready = false;
  const app = createServiceApp({ logger, internalSecret: base.internalSecret });
  mountServiceInternals(app, () => ready, {
    kv,
    keys: KEY_FAMILIES,
    afterImport: async () => {
      // The admin list's index is derived (not in the archive): built from the accounts.
      await store.users.buildListIndexes();
      await accounts.bootstrapAdmin();
      await accounts.prepareFirstRun();
    },
  });
  mountInternalRoutes(app, accounts, () => issuer.rotate());
  mountAccountRoutes(app, accounts);
  mountSetupRoutes(app, accounts);
  mountSessionRoutes(app, accounts);
  mountProfileRoutes(app, accounts);
  const clients = new OAuthClients(store, config);
  mountAuthorizeRoutes(app, accounts, clients, google);
  mountGoogleRoutes(app, accounts, clients, google);
  mountOAuthRoutes(app, accounts, clients);
  mountDiscoveryRoutes(app, accounts);
  mountNotificationRoutes(app, store, async (email, template, data) => {
    const op = kv.atomic();
    queue.enqueue(op, { type: "deliver", message: buildMessage("dm", email, template, data) });
    await op.commit();
  });

  return {
    name: "auth",
    fetch: app.fetch,
    start: async () => {
      if (!delivery.smtpUrl) {
        logger.warn(
          `SMTP_URL is not set: email is not configured. Every email and DM is appended to ` +
            `${delivery.outboxFile} instead (an admin reads confirmation codes there).`,
        );
      }
      if (!config.recaptchaSecret) {
        logger.warn("RECAPTCHA_SECRET is not set: signup tokens are required but not scored");
      }
      await startListening(() => queue.listen(authJobHandlers(deliverer)), logger);
      await issuer.ensureKey();
      await dummyHash();
      await accounts.bootstrapAdmin();
      await accounts.prepareFirstRun();
      ready = true;
    },
    close: async () => {
      await queue.close(); // emails being sent finish before the KV closes
      kv.close();
      closePasswordWorkers();
    },
  };
};
