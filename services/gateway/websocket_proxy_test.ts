import assert from "node:assert/strict";
import { createLogger } from "../../shared/log.ts";
import { upgradeStatus } from "../../tests/helpers/ws.ts";
import { createWebSocketProxy } from "./websocket_proxy.ts";

const SECRET = "0123456789abcdef0123";

/**
 * Collab's admission answers: ticket t1 is u1's, t2 is u2's (not a member), t3 is u3's (a
 * disabled account); only post p1 exists; a query without a ticket is refused with 400.
 */
function admit(url: URL): Response {
  const ticket = url.searchParams.get("ticket");
  const refuse = (status: number, error: string) => Response.json({ error }, { status });
  if (!ticket) return refuse(400, "ticket is required");
  if (ticket !== "t1" && ticket !== "t2") return refuse(401, "Invalid or expired ticket");
  if (ticket === "t2") return refuse(403, "Not a workspace member");
  if (url.searchParams.get("docId") !== "p1") return refuse(404, "Post not found");
  return Response.json({ admission: `admitted-${ticket}` });
}

/**
 * An upstream that answers admissions as collab does and echoes on the sockets it accepts,
 * recording each upgrade's query and internal secret, and the admission it carried.
 */
function startUpstream() {
  const seen: { search: string; secret: string | null }[] = [];
  const admissions: (string | null)[] = [];
  const server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen: () => {} }, (req) => {
    const url = new URL(req.url);
    if (url.pathname === "/internal/ws/admit") {
      if (req.headers.get("x-cp-internal") !== SECRET) return new Response(null, { status: 401 });
      return admit(url);
    }
    seen.push({ search: url.search, secret: req.headers.get("x-cp-internal") });
    admissions.push(req.headers.get("x-cp-ws-admission"));
    const { socket, response } = Deno.upgradeWebSocket(req);
    socket.binaryType = "arraybuffer";
    socket.onmessage = (e) => {
      if (typeof e.data === "string") socket.send(`echo:${e.data}`);
      else socket.send(new Uint8Array([...new Uint8Array(e.data), 255]));
    };
    return response;
  });
  return { server, seen, admissions, url: `http://127.0.0.1:${server.addr.port}` };
}

function startProxy(upstreamUrl: string) {
  const proxy = createWebSocketProxy({ internalSecret: SECRET, logger: createLogger("test") });
  return Deno.serve(
    { port: 0, hostname: "127.0.0.1", onListen: () => {} },
    (req) => proxy(req, upstreamUrl),
  );
}

Deno.test("the gateway relays /ws to a collab service deployed apart, both ways, with the secret", async () => {
  const upstream = startUpstream();
  const server = startProxy(upstream.url);
  try {
    const query = "ticket=t1&docId=p1&workspaceId=w1";
    const ws = new WebSocket(`ws://127.0.0.1:${server.addr.port}/ws?${query}`);
    ws.binaryType = "arraybuffer";
    const messages: unknown[] = [];
    const twoMessages = new Promise<void>((resolve) => {
      ws.onmessage = (e) => {
        messages.push(typeof e.data === "string" ? e.data : [...new Uint8Array(e.data)]);
        if (messages.length === 2) resolve();
      };
    });
    await new Promise((r) => ws.onopen = r);
    ws.send("hello");
    ws.send(new Uint8Array([1, 2]));
    await twoMessages;
    assert.deepEqual(messages, ["echo:hello", [1, 2, 255]]);
    assert.deepEqual(upstream.seen, [{ search: `?${query}`, secret: SECRET }]);
    assert.deepEqual(upstream.admissions, ["admitted-t1"], "the socket carries collab's admission");
    const closed = new Promise((r) => ws.onclose = r);
    ws.close();
    await closed;
  } finally {
    await server.shutdown();
    await upstream.server.shutdown();
  }
});

Deno.test("the gateway answers collab's refusal of a bad ticket, a disabled account or a non-member before any socket opens", async () => {
  const upstream = startUpstream();
  const server = startProxy(upstream.url);
  try {
    const base = `http://127.0.0.1:${server.addr.port}`;
    assert.equal(await upgradeStatus(base, "ticket=nope&docId=p1&workspaceId=w1"), 401);
    assert.equal(await upgradeStatus(base, "ticket=t3&docId=p1&workspaceId=w1"), 401);
    assert.equal(await upgradeStatus(base, "ticket=t2&docId=p1&workspaceId=w1"), 403);
    assert.equal(await upgradeStatus(base, "ticket=t1&docId=p9&workspaceId=w1"), 404);
    assert.equal(await upgradeStatus(base, "docId=p1&workspaceId=w1"), 400);
    assert.deepEqual(upstream.seen, [], "no socket reached collab");
  } finally {
    await server.shutdown();
    await upstream.server.shutdown();
  }
});
