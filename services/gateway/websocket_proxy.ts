import {
  INTERNAL_SECRET_HEADER,
  REQUEST_ID_HEADER,
  WS_ADMISSION_HEADER,
  WS_ADMIT_PATH,
} from "../../shared/http/identity.ts";
import { errorMessage, type Logger } from "../../shared/log.ts";

export interface WebSocketProxyOptions {
  internalSecret: string;
  logger: Logger;
}

/**
 * Carries a client's WebSocket to collab deployed apart (distributed mode). In one process the
 * upgrade request itself is handed to the service; across processes the gateway relays a socket
 * only once collab accepted it, and checks nothing itself: it asks collab's
 * `/internal/ws/admit` with the client's query (collab makes its upgrade checks there and uses
 * the ticket up, so a ticket is redeemed once), answers a refusal to the client exactly as
 * collab answered it (status and `{error}`, before any socket opens), and otherwise accepts the
 * socket and opens a second one to collab with the same path and query, the internal secret
 * and collab's admission, relays frames both ways and mirrors closes.
 */
export function createWebSocketProxy(options: WebSocketProxyOptions) {
  const { internalSecret, logger } = options;
  return async (req: Request, targetBase: string): Promise<Response> => {
    // The gateway's own id, never the client's x-request-id.
    const requestId = crypto.randomUUID();
    const headers = { [INTERNAL_SECRET_HEADER]: internalSecret, [REQUEST_ID_HEADER]: requestId };
    const incoming = new URL(req.url);
    let admission: string;
    try {
      const res = await fetch(new URL(WS_ADMIT_PATH + incoming.search, targetBase), { headers });
      if (!res.ok) {
        return new Response(res.body, {
          status: res.status,
          headers: { "content-type": res.headers.get("content-type") ?? "application/json" },
        });
      }
      admission = String((await res.json()).admission ?? "");
    } catch (err) {
      logger.error("WebSocket upgrade check failed", { error: errorMessage(err) });
      return Response.json({ error: "Collaboration is not available" }, { status: 503 });
    }
    return relay(req, targetBase, { ...headers, [WS_ADMISSION_HEADER]: admission });
  };
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
