/**
 * Carries a client's WebSocket to a service deployed apart (collab in distributed mode). In
 * one process the upgrade request itself is handed to the service; across processes the
 * gateway accepts the socket and opens a second one to the service with the same path and
 * query (the ticket is the credential), then relays frames both ways and mirrors closes.
 */
export function proxyWebSocket(req: Request, targetBase: string): Response {
  const incoming = new URL(req.url);
  const target = new URL(incoming.pathname + incoming.search, targetBase);
  target.protocol = target.protocol === "https:" ? "wss:" : "ws:";
  const { socket: client, response } = Deno.upgradeWebSocket(req);
  client.binaryType = "arraybuffer";
  const upstream = new WebSocket(target);
  upstream.binaryType = "arraybuffer";
  const pending: (string | ArrayBuffer)[] = [];
  client.onmessage = (e) => {
    if (upstream.readyState === WebSocket.OPEN) upstream.send(e.data);
    else pending.push(e.data);
  };
  upstream.onopen = () => {
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
