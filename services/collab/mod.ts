import { createServiceApp, mountServiceInternals } from "../../shared/http/service_app.ts";
import { KEY_FAMILIES } from "./keys.ts";
import { openServiceKv, watchSeesOtherProcesses } from "../../shared/kv/kv.ts";
import { WS_ADMIT_PATH } from "../../shared/http/identity.ts";
import type { ServiceFactory } from "../../shared/service/service.ts";
import { AuthClient } from "../auth/client.ts";
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
  // Live, not from the ticket's snapshot: a disabled or rejected account loses its sockets
  // within one re-check. The sweep asks once per user, so no cache is needed.
  // An account auth does not know (only while a restore remaps ids) is not refused, as the
  // gateway does not refuse its token.
  const isActive = async (userId: string) => (await auth.access(userId))?.active !== false;
  // A socket's session is asked about too: logout or a password reset closes its sockets.
  const accountState = async (userId: string, sessionId: string | null) => {
    const access = await auth.access(userId, sessionId ?? undefined);
    if (access?.active === false) return "disabled" as const;
    return access?.session_live === false ? "signed_out" as const : "active" as const;
  };
  const hub = new CollabHub({
    store,
    logger,
    compactAfter: config.compactAfter,
    idleTimeoutMs: config.idleTimeoutMs,
    graceMs: config.graceMs,
    membershipCheckMs: config.membershipCheckMs,
    limits: config.limits,
    followPollMs: config.followPollMs,
    // A watch per open document only where it tells of the other instances' writes (or where
    // nothing else would): on a local SQLite file it sees this process's own commits alone, and
    // each of those would wake it for a read on SQLite's one thread, between the commits.
    watch: watchSeesOtherProcesses(base.dataDir) || config.followPollMs === 0,
    isMember: async (workspaceId, userId) => {
      const m = await workspaces.membership(workspaceId, userId);
      return m.role !== null && m.workspace_status === "active";
    },
    accountState,
  });
  const app = createServiceApp({ logger, internalSecret: base.internalSecret });
  let ready = false;
  mountServiceInternals(app, () => ready, {
    kv,
    keys: KEY_FAMILIES,
    // From here on, nothing a room loaded before stores lands, on any instance (the epoch
    // check); every instance drops those rooms when it sees the epoch moved.
    beforeImport: () => store.moveRestoreEpoch(),
    // Moved again: a room loaded while the records were being written goes too. This instance's
    // rooms hold the texts from before the restore: dropped at once.
    afterImport: async () => {
      await store.moveRestoreEpoch();
      await hub.restored();
    },
  });
  mountInternalRoutes(app, { hub, store });
  documentWsRoute(app);
  // Deno.upgradeWebSocket needs the original request: it is answered before the app sees it,
  // so the handler makes the gateway guard's check (internal secret) itself, then the ticket's.
  const handleWs = createWsHandler({
    hub,
    logger,
    internalSecret: base.internalSecret,
    pingSeconds: Math.max(1, Math.round(config.idleTimeoutMs / 1000)),
    access: {
      // Used up: a ticket opens one socket.
      verifyTicket: (ticket) => auth.redeemWsTicket(ticket),
      isActive,
      membership: (workspaceId, userId) => workspaces.membership(workspaceId, userId),
      docWorkspace: (postId) => store.docWorkspace(postId),
    },
  });
  return {
    name: "collab",
    fetch: (req) => {
      // y-websocket appends "/<room name>" to its server URL, so /ws/<anything> is the socket
      // too; docId and workspaceId come from the query either way. The socket is a GET (HEAD
      // too, as for every GET); any other method is the app's 405.
      const path = new URL(req.url).pathname;
      const upgrade = req.method === "GET" || req.method === "HEAD";
      const socket = (upgrade && (path === "/ws" || path.startsWith("/ws/"))) ||
        path === WS_ADMIT_PATH;
      return socket ? handleWs(req) : app.fetch(req);
    },
    start: async () => {
      await hub.start();
      ready = true;
    },
    close: async () => {
      ready = false;
      await hub.close();
      kv.close();
    },
  };
};
