import {
  INTERNAL_SECRET_HEADER,
  REQUEST_ID_HEADER,
  WS_TICKET_USER_HEADER,
} from "../../shared/http/identity.ts";
import { describeZodError } from "../../shared/http/service_app.ts";
import { errorMessage, type Logger } from "../../shared/log.ts";
import type { ServiceDirectory } from "../../shared/service_directory.ts";
import { AuthClient } from "../auth/client.ts";
import { wsQuerySchema } from "../collab/schemas.ts";
import type { WsAccess } from "../collab/websocket.ts";
import { PostsClient } from "../posts/client.ts";
import { WorkspacesClient } from "../workspaces/client.ts";

/** What the gateway asks before it relays a socket: the same questions collab asks. */
export type WsUpgradeChecks = WsAccess;

export interface WebSocketProxyOptions {
  directory: ServiceDirectory;
  internalSecret: string;
  logger: Logger;
  /** the checks; by default through the auth, workspaces and posts clients */
  checks?: WsUpgradeChecks;
}

/** The peers' answers, through their typed clients. */
function clientChecks(directory: ServiceDirectory, secret: string): WsUpgradeChecks {
  const auth = new AuthClient(directory, secret);
  const workspaces = new WorkspacesClient(directory, secret);
  const posts = new PostsClient(directory, secret);
  return {
    // Used up here (a ticket opens one socket); collab takes the user from the relay.
    verifyTicket: (ticket) => auth.redeemWsTicket(ticket),
    // As for tokens: only a known account that is disabled or rejected is refused.
    isActive: async (userId) => (await auth.access(userId))?.active !== false,
    membership: (workspaceId, userId) => workspaces.membership(workspaceId, userId),
    getPost: (postId) => posts.getPostInfo(postId),
  };
}

/**
 * Carries a client's WebSocket to collab deployed apart (distributed mode). In one process the
 * upgrade request itself is handed to the service; across processes the gateway first checks
 * the upgrade as collab would (query 400, ticket and account 401, membership 403, workspace or
 * post 404, each an HTTP answer before any socket opens), then accepts the socket and opens a
 * second one to collab with the same path and query and the internal secret (collab refuses an
 * upgrade without it), relays frames both ways and mirrors closes.
 */
export function createWebSocketProxy(options: WebSocketProxyOptions) {
  const { internalSecret, logger } = options;
  const checks = options.checks ?? clientChecks(options.directory, internalSecret);
  return async (req: Request, targetBase: string): Promise<Response> => {
    const checked = await checkUpgrade(req, checks, logger);
    if (checked instanceof Response) return checked;
    return relay(req, targetBase, {
      [INTERNAL_SECRET_HEADER]: internalSecret,
      [REQUEST_ID_HEADER]: req.headers.get(REQUEST_ID_HEADER) ?? crypto.randomUUID(),
      [WS_TICKET_USER_HEADER]: checked.userId,
    });
  };
}

const refuse = (status: number, error: string) => Response.json({ error }, { status });

/**
 * The refusal collab would answer, or the ticket's user when the upgrade may go on. The ticket
 * is used up here, so collab, which could not redeem it again, is told the user it proved.
 */
async function checkUpgrade(
  req: Request,
  checks: WsUpgradeChecks,
  logger: Logger,
): Promise<Response | { userId: string }> {
  const url = new URL(req.url);
  const parsed = wsQuerySchema.safeParse(Object.fromEntries(url.searchParams));
  if (!parsed.success) return refuse(400, describeZodError(parsed.error));
  const { ticket, docId, workspaceId } = parsed.data;
  try {
    const found = await checks.verifyTicket(ticket);
    if (!found || Date.parse(found.expires_at) <= Date.now()) {
      return refuse(401, "Invalid or expired ticket");
    }
    if (!await checks.isActive(found.user_id)) return refuse(401, "Invalid or expired ticket");
    const membership = await checks.membership(workspaceId, found.user_id);
    if (!membership.role) return refuse(403, "Not a workspace member");
    if (membership.workspace_status !== "active") return refuse(404, "Workspace not found");
    const post = await checks.getPost(docId);
    if (!post || post.workspace_id !== workspaceId) return refuse(404, "Post not found");
    return { userId: found.user_id };
  } catch (err) {
    logger.error("WebSocket upgrade check failed", { error: errorMessage(err) });
    return refuse(503, "Collaboration is not available");
  }
}

function relay(req: Request, targetBase: string, headers: Record<string, string>): Response {
  const incoming = new URL(req.url);
  const target = new URL(incoming.pathname + incoming.search, targetBase);
  target.protocol = target.protocol === "https:" ? "wss:" : "ws:";
  const { socket: client, response } = Deno.upgradeWebSocket(req);
  client.binaryType = "arraybuffer";
  const upstream = new WebSocket(target, { headers });
  upstream.binaryType = "arraybuffer";
  const pending: (string | ArrayBuffer)[] = [];
  client.onmessage = (e) => {
    if (upstream.readyState === WebSocket.OPEN) upstream.send(e.data);
    else pending.push(e.data);
  };
  /** a close asked for while the upstream was still connecting, done once it opens */
  let closeWhenOpen: { code: number; reason: string } | null = null;
  upstream.onopen = () => {
    if (closeWhenOpen) {
      upstream.close(closeWhenOpen.code, closeWhenOpen.reason);
      return;
    }
    for (const data of pending.splice(0)) upstream.send(data);
  };
  upstream.onmessage = (e) => {
    if (client.readyState === WebSocket.OPEN) client.send(e.data);
  };
  const closeBoth = (code: number, reason: string) => {
    // A close code set by an application (4401 refused ticket...) is passed on; any other
    // (1001 going away, 1006 abnormal) becomes a normal close, the only other code allowed.
    const safe = code >= 3000 && code <= 4999 ? code : 1000;
    for (const socket of [client, upstream]) {
      if (socket.readyState > WebSocket.OPEN) continue;
      if (socket === upstream && socket.readyState === WebSocket.CONNECTING) {
        // Abandoning an upgrade collab is still answering leaves that connection hanging on
        // collab's side (Deno never opens nor closes it), so let it open, then close it.
        closeWhenOpen = { code: safe, reason: reason.slice(0, 120) };
        continue;
      }
      try {
        socket.close(safe, reason.slice(0, 120));
      } catch {
        // already closing
      }
    }
  };
  upstream.onclose = (e) => closeBoth(e.code, e.reason);
  upstream.onerror = () => closeBoth(1000, "Upstream unavailable");
  client.onclose = (e) => closeBoth(e.code, e.reason);
  return response;
}
