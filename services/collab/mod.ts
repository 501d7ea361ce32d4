import { createServiceApp, mountServiceInternals } from "../../shared/http/service_app.ts";
import { openServiceKv } from "../../shared/kv.ts";
import type { ServiceFactory } from "../../shared/service.ts";
import { AuthClient } from "../auth/client.ts";
import { PostsClient } from "../posts/client.ts";
import { WorkspacesClient } from "../workspaces/client.ts";
import { parseCollabConfig } from "./config.ts";
import { CollabHub } from "./hub.ts";
import { documentWsRoute, mountInternalRoutes } from "./routes.ts";
import { DocStore } from "./store.ts";
import { createWsHandler } from "./websocket.ts";

/**
 * The collab service: live collaborative editing of posts over the Yjs WebSocket protocol at
 * `/ws`, with every update stored in its KV before it is forwarded, and the internal API that
 * makes its document the one source of truth for a post's text. It has no queue: comment
 * events reach it from the posts service's queue through `/internal/docs/:id/broadcast`.
 */
export const createCollabService: ServiceFactory = async ({ env, base, directory, logger }) => {
  const config = parseCollabConfig(env, base);
  const kv = await openServiceKv(base.dataDir, "collab");
  const store = new DocStore(kv);
  const auth = new AuthClient(directory, base.internalSecret);
  const workspaces = new WorkspacesClient(directory, base.internalSecret);
  const posts = new PostsClient(directory, base.internalSecret);
  const hub = new CollabHub({
    store,
    logger,
    compactAfter: config.compactAfter,
    idleTimeoutMs: config.idleTimeoutMs,
    graceMs: config.graceMs,
    membershipCheckMs: config.membershipCheckMs,
    isMember: async (workspaceId, userId) => {
      const m = await workspaces.membership(workspaceId, userId);
      return m.role !== null && m.workspace_status === "active";
    },
  });
  const app = createServiceApp({ logger, internalSecret: base.internalSecret });
  let ready = false;
  mountServiceInternals(app, () => ready, kv);
  mountInternalRoutes(app, { hub, store });
  documentWsRoute(app);
  // The socket is authenticated by its ticket, and Deno.upgradeWebSocket needs the original
  // request: it is answered before the app (and its gateway guard) sees it.
  const handleWs = createWsHandler({
    hub,
    logger,
    pingSeconds: Math.max(1, Math.round(config.idleTimeoutMs / 1000)),
    access: {
      verifyTicket: (ticket) => auth.verifyWsTicket(ticket),
      membership: (workspaceId, userId) => workspaces.membership(workspaceId, userId),
      getPost: (postId) => posts.getPostInfo(postId),
    },
  });
  return {
    name: "collab",
    fetch: (req) => {
      // y-websocket appends "/<room name>" to its server URL, so /ws/<anything> is the socket
      // too; docId and workspaceId come from the query either way.
      const path = new URL(req.url).pathname;
      return path === "/ws" || path.startsWith("/ws/") ? handleWs(req) : app.fetch(req);
    },
    start: () => {
      hub.start();
      ready = true;
      return Promise.resolve();
    },
    close: async () => {
      ready = false;
      await hub.close();
      kv.close();
    },
  };
};
