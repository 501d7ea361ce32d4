import {
  inProcessPasses,
  INTERNAL_SECRET_HEADER,
  WS_ADMISSION_HEADER,
  WS_ADMIT_PATH,
} from "../../shared/http/identity.ts";
import { describeZodError } from "../../shared/http/service_app.ts";
import { newId, timingSafeEqual } from "../../shared/crypto/ids.ts";
import { errorMessage, errorText, type Logger } from "../../shared/log.ts";
import { countMetric } from "../../shared/service/metrics.ts";
import type { CollabHub } from "./hub.ts";
import { CloseCode } from "./protocol.ts";
import type { Connection, DocumentRoom } from "./room.ts";
import { MAX_ID_LENGTH, wsQuerySchema } from "./schemas.ts";
import { MESSAGES } from "../../shared/http/messages.ts";

/** What the upgrade checks need: the ticket (auth), membership (workspaces), the post's workspace. */
export interface WsAccess {
  /**
   * the ticket's user, or null when it is unknown, used or expired; the ticket is used up (one
   * socket per ticket), here and nowhere else
   */
  verifyTicket(
    ticket: string,
  ): Promise<{ user_id: string; expires_at: string; sid?: string | null } | null>;
  /** whether the account may still edit (not disabled or rejected), checked live */
  isActive(userId: string): Promise<boolean>;
  membership(workspaceId: string, userId: string): Promise<{
    role: string | null;
    workspace_status: "active" | "deleted" | null;
  }>;
  /** the workspace the posts service told for the post; null when it told none */
  docWorkspace(postId: string): Promise<string | null>;
}

export interface WsHandlerOptions {
  hub: CollabHub;
  access: WsAccess;
  logger: Logger;
  /** seconds between Deno's pings; a peer that does not answer one in time is dropped */
  pingSeconds: number;
  /**
   * The internal secret: like every other service route, the upgrade must come through the
   * gateway, in process (the request itself handed over) or across processes (carrying
   * `x-cp-internal`); anything else is refused with 401 before any check.
   */
  internalSecret: string;
}

/** A refusal answered on the upgrade request itself, so the socket never opens. */
function refuse(status: number, error: string): Response {
  countMetric("collab_refused", 1, { status: String(status) });
  return Response.json({ error }, { status });
}

/** Whether the request came through the gateway (in process, or with the internal secret). */
function fromGateway(req: Request, internalSecret: string): boolean {
  if (inProcessPasses.has(req)) return true;
  return hasSecret(req, internalSecret);
}

function hasSecret(req: Request, internalSecret: string): boolean {
  return timingSafeEqual(req.headers.get(INTERNAL_SECRET_HEADER) ?? "", internalSecret);
}

/** How long an admission answered to the gateway may be used for its upgrade. */
const ADMISSION_TTL_MS = 30_000;

async function hmacKey(secret: string): Promise<CryptoKey> {
  return await crypto.subtle.importKey(
    "raw",
    new TextEncoder().encode(secret),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
}

async function admissionMac(secret: string, payload: string): Promise<string> {
  const mac = await crypto.subtle.sign(
    "HMAC",
    await hmacKey(secret),
    new TextEncoder().encode(`ws-admission:${payload}`),
  );
  return btoa(String.fromCharCode(...new Uint8Array(mac)));
}

/** Who a checked upgrade admits: the ticket's user and the session that minted it. */
interface Admitted {
  userId: string;
  sessionId: string | null;
}

/** The admission of a checked upgrade: user, session, post, workspace and expiry, signed. */
async function signAdmission(
  secret: string,
  admitted: Admitted & { docId: string; workspaceId: string },
): Promise<string> {
  const payload = JSON.stringify([
    admitted.userId,
    admitted.docId,
    admitted.workspaceId,
    Date.now() + ADMISSION_TTL_MS,
    admitted.sessionId,
  ]);
  return `${btoa(payload)}.${await admissionMac(secret, payload)}`;
}

/**
 * The user and session of an admission this service signed for this post and workspace, still
 * valid; null otherwise. Never read from a request without the secret: in one process the request is the
 * client's own, headers and all.
 */
async function admittedUser(
  req: Request,
  secret: string,
  docId: string,
  workspaceId: string,
): Promise<Admitted | null> {
  const admission = req.headers.get(WS_ADMISSION_HEADER);
  if (!admission || !hasSecret(req, secret)) return null;
  const [encoded, mac] = admission.split(".");
  try {
    const payload = atob(encoded ?? "");
    if (!timingSafeEqual(mac ?? "", await admissionMac(secret, payload))) return null;
    const [userId, doc, ws, expires, sessionId = null] = JSON.parse(payload) as [
      string,
      string,
      string,
      number,
      string | null | undefined,
    ];
    if (doc !== docId || ws !== workspaceId || !(expires > Date.now())) return null;
    return { userId, sessionId };
  } catch {
    return null;
  }
}

/**
 * `GET /ws?ticket=&docId=&workspaceId=`: checks, in order, that it came through the gateway
 * (401), the query (400), the ticket and the account behind it (401), membership of the
 * workspace (403; 404 for a deleted workspace) and that the post is in that workspace (404);
 * only then upgrades and joins the post's room. A user over the per-user socket limit gets a
 * socket that is closed at once with 4429 (a stock provider then stops retrying).
 *
 * Deployed apart, the gateway relays a socket only once collab accepted it: it first asks
 * `/internal/ws/admit` with the client's query, which makes the same checks (using the ticket
 * up) and answers a refusal as it would answer the upgrade, or a signed admission; the relayed
 * upgrade carries that admission instead of repeating the checks.
 */
export function createWsHandler(
  { hub, access, logger, pingSeconds, internalSecret }: WsHandlerOptions,
) {
  return async (req: Request): Promise<Response> => {
    if (!fromGateway(req, internalSecret)) return refuse(401, "Unauthorized");
    const admitOnly = new URL(req.url).pathname === WS_ADMIT_PATH;
    if (!admitOnly && req.headers.get("upgrade")?.toLowerCase() !== "websocket") {
      return refuse(426, "Expected a WebSocket upgrade");
    }
    const url = new URL(req.url);
    const parsed = wsQuerySchema.safeParse(Object.fromEntries(url.searchParams));
    if (!parsed.success) return refuse(400, describeZodError(parsed.error));
    const { ticket, docId, workspaceId } = parsed.data;
    let room: DocumentRoom;
    let userId: string;
    let sessionId: string | null;
    try {
      const admitted = admitOnly
        ? null
        : await admittedUser(req, internalSecret, docId, workspaceId);
      if (admitted) ({ userId, sessionId } = admitted);
      else {
        // No ticket is that long: unknown, without asking auth (its id becomes a URL part).
        const found = ticket.length > MAX_ID_LENGTH ? null : await access.verifyTicket(ticket);
        if (!found || Date.parse(found.expires_at) <= Date.now()) {
          return refuse(401, "Invalid or expired ticket");
        }
        userId = found.user_id;
        sessionId = found.sid ?? null;
        if (!await access.isActive(userId)) return refuse(401, "Invalid or expired ticket");
        const membership = await access.membership(workspaceId, userId);
        if (!membership.role) return refuse(403, MESSAGES.notMember);
        if (membership.workspace_status !== "active") return refuse(404, "Workspace not found");
        if (await access.docWorkspace(docId) !== workspaceId) {
          return refuse(404, MESSAGES.postNotFound);
        }
        if (admitOnly) {
          const admission = await signAdmission(internalSecret, {
            userId,
            sessionId,
            docId,
            workspaceId,
          });
          return Response.json({ admission });
        }
      }
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
      return refuse(400, `Cannot upgrade the connection: ${errorText(err)}`);
    }
    const admitted = hub.reserveSocket(userId);
    if (!admitted) {
      countMetric("collab_refused", 1, { status: String(CloseCode.TooManyConnections) });
    }
    attach(upgraded.socket, {
      room,
      hub,
      postId: docId,
      userId,
      sessionId,
      workspaceId,
      admitted,
    });
    countMetric("collab_connections");
    return upgraded.response;
  };
}

/** Wires a Deno WebSocket to a room through the Connection interface. */
function attach(
  socket: WebSocket,
  ctx: {
    room: DocumentRoom;
    hub: CollabHub;
    postId: string;
    userId: string;
    sessionId: string | null;
    workspaceId: string;
    /** false: over the per-user socket limit, closed as soon as it opens */
    admitted: boolean;
  },
) {
  socket.binaryType = "arraybuffer";
  const conn: Connection = {
    id: newId(),
    userId: ctx.userId,
    workspaceId: ctx.workspaceId,
    sessionId: ctx.sessionId,
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
    if (ctx.admitted) ctx.hub.releaseSocket(ctx.userId);
  };
  socket.onopen = () => {
    if (!ctx.admitted) {
      const max = ctx.hub.limits.maxConnectionsPerUser;
      conn.close(CloseCode.TooManyConnections, `More than ${max} open sockets`);
      return;
    }
    if (ctx.room.broken) {
      conn.close(CloseCode.InternalError, "Storing the document failed");
      return;
    }
    ctx.room.join(conn);
  };
  socket.onmessage = (event) => {
    if (typeof event.data === "string") ctx.room.receiveText(conn, utf8Length(event.data));
    else ctx.room.receive(conn, new Uint8Array(event.data as ArrayBuffer));
  };
  socket.onclose = done;
  socket.onerror = () => {};
}

/** A string's UTF-8 size, counted only when it could matter (at most 3 bytes per unit). */
function utf8Length(text: string): number {
  return text.length * 3 <= 64 * 1024 ? text.length : new TextEncoder().encode(text).byteLength;
}
