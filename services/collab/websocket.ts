import { describeZodError } from "../../shared/http/service_app.ts";
import { newId } from "../../shared/ids.ts";
import { errorMessage, type Logger } from "../../shared/log.ts";
import { countMetric } from "../../shared/metrics.ts";
import type { CollabHub } from "./hub.ts";
import { CloseCode } from "./protocol.ts";
import type { Connection, DocumentRoom } from "./room.ts";
import { wsQuerySchema } from "./schemas.ts";

/** What the upgrade checks need from the peers (auth, workspaces, posts). */
export interface WsAccess {
  /** the ticket's user, or null when it is unknown or expired */
  verifyTicket(ticket: string): Promise<{ user_id: string; expires_at: string } | null>;
  membership(workspaceId: string, userId: string): Promise<{
    role: string | null;
    workspace_status: "active" | "deleted" | null;
  }>;
  getPost(postId: string): Promise<{ post_id: string; workspace_id: string } | null>;
}

export interface WsHandlerOptions {
  hub: CollabHub;
  access: WsAccess;
  logger: Logger;
  /** seconds between Deno's pings; a peer that does not answer one in time is dropped */
  pingSeconds: number;
}

/** A refusal answered on the upgrade request itself, so the socket never opens. */
function refuse(status: number, error: string): Response {
  countMetric("collab_refused", 1, { status: String(status) });
  return Response.json({ error }, { status });
}

/**
 * `GET /ws?ticket=&docId=&workspaceId=`: checks, in order, the query (400), the ticket (401),
 * membership of the workspace (403; 404 for a deleted workspace) and that the post is in that
 * workspace (404); only then upgrades and joins the post's room.
 */
export function createWsHandler({ hub, access, logger, pingSeconds }: WsHandlerOptions) {
  return async (req: Request): Promise<Response> => {
    if (req.headers.get("upgrade")?.toLowerCase() !== "websocket") {
      return refuse(426, "Expected a WebSocket upgrade");
    }
    const url = new URL(req.url);
    const parsed = wsQuerySchema.safeParse(Object.fromEntries(url.searchParams));
    if (!parsed.success) return refuse(400, describeZodError(parsed.error));
    const { ticket, docId, workspaceId } = parsed.data;
    let room: DocumentRoom;
    let userId: string;
    try {
      const found = await access.verifyTicket(ticket);
      if (!found || Date.parse(found.expires_at) <= Date.now()) {
        return refuse(401, "Invalid or expired ticket");
      }
      userId = found.user_id;
      const membership = await access.membership(workspaceId, userId);
      if (!membership.role) return refuse(403, "Not a workspace member");
      if (membership.workspace_status !== "active") return refuse(404, "Workspace not found");
      const post = await access.getPost(docId);
      if (!post || post.workspace_id !== workspaceId) return refuse(404, "Post not found");
      room = await hub.acquire(docId, workspaceId);
    } catch (err) {
      logger.error("WebSocket upgrade check failed", { error: errorMessage(err) });
      const status = (err as { status?: number }).status;
      return refuse(
        typeof status === "number" && status >= 500 ? status : 503,
        "Collaboration is not available",
      );
    }
    let upgraded: { socket: WebSocket; response: Response };
    try {
      upgraded = Deno.upgradeWebSocket(req, { idleTimeout: pingSeconds });
    } catch (err) {
      hub.release(docId);
      return refuse(400, `Cannot upgrade the connection: ${errorMessage(err)}`);
    }
    attach(upgraded.socket, { room, hub, postId: docId, userId, workspaceId });
    countMetric("collab_connections");
    return upgraded.response;
  };
}

/** Wires a Deno WebSocket to a room through the Connection interface. */
function attach(
  socket: WebSocket,
  ctx: { room: DocumentRoom; hub: CollabHub; postId: string; userId: string; workspaceId: string },
) {
  socket.binaryType = "arraybuffer";
  const conn: Connection = {
    id: newId(),
    userId: ctx.userId,
    workspaceId: ctx.workspaceId,
    send(data) {
      if (socket.readyState === WebSocket.OPEN) socket.send(data);
    },
    close(code, reason) {
      if (socket.readyState === WebSocket.OPEN || socket.readyState === WebSocket.CONNECTING) {
        socket.close(code, reason);
      }
    },
  };
  let released = false;
  const done = () => {
    if (released) return;
    released = true;
    ctx.room.leave(conn);
    ctx.hub.release(ctx.postId);
  };
  socket.onopen = () => {
    if (ctx.room.broken) {
      conn.close(CloseCode.InternalError, "Storing the document failed");
      return;
    }
    ctx.room.join(conn);
  };
  socket.onmessage = (event) => {
    if (typeof event.data === "string") ctx.room.touch(conn);
    else ctx.room.receive(conn, new Uint8Array(event.data as ArrayBuffer));
  };
  socket.onclose = done;
  socket.onerror = () => {};
}
