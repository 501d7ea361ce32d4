import assert from "node:assert/strict";
import { createLogger } from "../../shared/log.ts";
import { ServiceDirectory } from "../../shared/service_directory.ts";
import { parseGatewayConfig } from "./config.ts";
import { createGateway } from "./mod.ts";

Deno.test("the gateway relays /ws to a collab service deployed apart, both ways", async () => {
  const seen: string[] = [];
  const upstream = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen: () => {} }, (req) => {
    seen.push(new URL(req.url).search);
    const { socket, response } = Deno.upgradeWebSocket(req);
    socket.binaryType = "arraybuffer";
    socket.onmessage = (e) => {
      if (typeof e.data === "string") socket.send(`echo:${e.data}`);
      else socket.send(new Uint8Array([...new Uint8Array(e.data), 255]));
    };
    return response;
  });
  const config = parseGatewayConfig({ INTERNAL_SECRET: "0123456789abcdef0123" });
  const directory = new ServiceDirectory().registerUrls({
    collab: `http://127.0.0.1:${upstream.addr.port}`,
  });
  const gateway = createGateway({ config, directory, logger: createLogger("test") });
  const server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen: () => {} }, gateway.fetch);
  try {
    const ws = new WebSocket(`ws://127.0.0.1:${server.addr.port}/ws?ticket=t1&docId=p1`);
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
    assert.deepEqual(seen, ["?ticket=t1&docId=p1"]);
    const closed = new Promise((r) => ws.onclose = r);
    ws.close();
    await closed;
  } finally {
    await server.shutdown();
    await upstream.shutdown();
  }
});
