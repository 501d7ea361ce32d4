import assert from "node:assert/strict";
import { createLogger } from "../../shared/log.ts";
import { ServiceDirectory } from "../../shared/service_directory.ts";
import { upgradeStatus } from "../../tests/helpers/ws.ts";
import { createWebSocketProxy, type WsUpgradeChecks } from "./websocket_proxy.ts";

const SECRET = "0123456789abcdef0123";
const later = () => new Date(Date.now() + 60_000).toISOString();

/** Ticket t1 is u1's, t2 is u2's (not a member), t3 is u3's (a disabled account). */
const checks: WsUpgradeChecks = {
  verifyTicket: (t) =>
    Promise.resolve(
      t === "t1"
        ? { user_id: "u1", expires_at: later() }
        : t === "t2"
        ? { user_id: "u2", expires_at: later() }
        : t === "t3"
        ? { user_id: "u3", expires_at: later() }
        : null,
    ),
  isActive: (user) => Promise.resolve(user !== "u3"),
  membership: (_ws, user) =>
    Promise.resolve({ role: user === "u2" ? null : "editor", workspace_status: "active" }),
  getPost: (id) => Promise.resolve(id === "p1" ? { post_id: "p1", workspace_id: "w1" } : null),
};

/** An upstream that echoes, recording each upgrade's query and internal secret. */
function startUpstream() {
  const seen: { search: string; secret: string | null }[] = [];
  const server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen: () => {} }, (req) => {
    seen.push({ search: new URL(req.url).search, secret: req.headers.get("x-cp-internal") });
    const { socket, response } = Deno.upgradeWebSocket(req);
    socket.binaryType = "arraybuffer";
    socket.onmessage = (e) => {
      if (typeof e.data === "string") socket.send(`echo:${e.data}`);
      else socket.send(new Uint8Array([...new Uint8Array(e.data), 255]));
    };
    return response;
  });
  return { server, seen, url: `http://127.0.0.1:${server.addr.port}` };
}

function startProxy(upstreamUrl: string) {
  const proxy = createWebSocketProxy({
    directory: new ServiceDirectory(),
    internalSecret: SECRET,
    logger: createLogger("test"),
    checks,
  });
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
    const closed = new Promise((r) => ws.onclose = r);
    ws.close();
    await closed;
  } finally {
    await server.shutdown();
    await upstream.server.shutdown();
  }
});

Deno.test("item 15: the gateway refuses a bad ticket, a disabled account or a non-member before relaying", async () => {
  const upstream = startUpstream();
  const server = startProxy(upstream.url);
  try {
    const base = `http://127.0.0.1:${server.addr.port}`;
    assert.equal(await upgradeStatus(base, "ticket=nope&docId=p1&workspaceId=w1"), 401);
    assert.equal(await upgradeStatus(base, "ticket=t3&docId=p1&workspaceId=w1"), 401);
    assert.equal(await upgradeStatus(base, "ticket=t2&docId=p1&workspaceId=w1"), 403);
    assert.equal(await upgradeStatus(base, "ticket=t1&docId=p9&workspaceId=w1"), 404);
    assert.equal(await upgradeStatus(base, "docId=p1&workspaceId=w1"), 400);
    assert.deepEqual(upstream.seen, [], "nothing reached collab");
  } finally {
    await server.shutdown();
    await upstream.server.shutdown();
  }
});
