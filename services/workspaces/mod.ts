import { createServiceApp, mountServiceInternals } from "../../shared/http/service_app.ts";
import { KEY_FAMILIES } from "./keys.ts";
import { openServiceKv } from "../../shared/kv/kv.ts";
import { withReadCache } from "../../shared/kv/kv_cache.ts";
import type { ServiceFactory } from "../../shared/service/service.ts";
import { AuthClient } from "../auth/client.ts";
import { InviteClaims } from "./invite_claims.ts";
import { MemberNews } from "./member_news.ts";
import { mountInternalRoutes } from "./internal_routes.ts";
import { mountWorkspaceRoutes } from "./routes.ts";
import { mountMemberRoutes } from "./member_routes.ts";
import { mountListRoutes } from "./list_routes.ts";
import { WorkspacesStore } from "./store.ts";

/**
 * The workspaces service: workspaces, memberships, invites, and the audience and language
 * lists; the membership API every workspace-scoped service checks against. It has no queue.
 */
export const createWorkspacesService: ServiceFactory = async (
  { base, directory, logger },
) => {
  // This process is the only writer of its KV file, so hot reads are served from a cache.
  const kv = withReadCache(await openServiceKv(base.dataDir, "workspaces"));
  const store = new WorkspacesStore(kv);
  const auth = new AuthClient(directory, base.internalSecret);
  const app = createServiceApp({ logger, internalSecret: base.internalSecret });
  let ready = false;
  mountServiceInternals(app, () => ready, { kv, keys: KEY_FAMILIES });
  const news = new MemberNews(store, auth, base.publicUrl, logger);
  const claims = new InviteClaims(store, auth, news);
  mountInternalRoutes(app, store, claims);
  // A caller's pending invites are theirs before any public route answers about memberships.
  app.use("/api/*", async (c, next) => {
    const caller = c.get("caller");
    if (caller) await claims.forCaller(caller.user_id, caller.email);
    await next();
  });
  const deps = { store, auth, claims, news };
  mountWorkspaceRoutes(app, deps);
  mountMemberRoutes(app, deps);
  mountListRoutes(app, deps);
  return {
    name: "workspaces",
    fetch: app.fetch,
    start: () => {
      ready = true;
      return Promise.resolve();
    },
    close: () => {
      kv.close();
      return Promise.resolve();
    },
  };
};
