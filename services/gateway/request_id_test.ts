import assert from "node:assert/strict";
import { parseBaseConfig } from "../../shared/config.ts";
import { inProcessPasses } from "../../shared/http/identity.ts";
import { createLogger } from "../../shared/log.ts";
import { ServiceDirectory } from "../../shared/service/service_directory.ts";
import { upgradeStatus } from "../../tests/helpers/ws.ts";
import { createGateway } from "./mod.ts";

const SECRET = "request-id-test-secret-0123456789";
const logger = createLogger("gateway-test", { level: "error" });
const SPOOFED = "spoofed-request-id";

/**
 * The request id is the gateway's own, as the caller and the internal secret are: a client's
 * `x-request-id` never becomes the id the services log and pass on.
 */
Deno.test("a client's x-request-id is not the request id a service is given", async (t) => {
  await t.step("in one process: the pass beside the request carries the gateway's id", async () => {
    const seen: (string | undefined)[] = [];
    const directory = new ServiceDirectory().register("ideas", (req) => {
      seen.push(inProcessPasses.get(req)?.requestId);
      return Response.json({ idea_id: "i1", status: "created" }, { status: 201 });
    });
    const gateway = createGateway({
      config: { base: parseBaseConfig({ INTERNAL_SECRET: SECRET }), trustedProxies: [] },
      directory,
      logger,
    });
    const res = await gateway.request("/api/quick-capture", {
      method: "POST",
      headers: { "x-request-id": SPOOFED, "content-type": "application/json" },
      body: JSON.stringify({ title: "t" }),
    });
    await res.body?.cancel();
    assert.equal(seen.length, 1);
    assert.ok(seen[0], "the service was given a request id");
    assert.notEqual(seen[0], SPOOFED);
  });

  await t.step("deployed apart: the header the service receives is the gateway's", async () => {
    const seen: (string | null)[] = [];
    const upstream = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen: () => {} }, (req) => {
      seen.push(req.headers.get("x-request-id"));
      if (new URL(req.url).pathname === "/internal/ws/admit") {
        return Response.json({ error: "Invalid or expired ticket" }, { status: 401 });
      }
      return Response.json({ idea_id: "i1", status: "created" }, { status: 201 });
    });
    const base = `http://127.0.0.1:${upstream.addr.port}`;
    const gateway = createGateway({
      config: {
        base: parseBaseConfig({ INTERNAL_SECRET: SECRET, IDEAS_URL: base, COLLAB_URL: base }),
        trustedProxies: [],
      },
      directory: new ServiceDirectory().registerUrls({ ideas: base, collab: base }),
      logger,
    });
    const server = Deno.serve(
      { port: 0, hostname: "127.0.0.1", onListen: () => {} },
      gateway.fetch,
    );
    try {
      const res = await fetch(`http://127.0.0.1:${server.addr.port}/api/quick-capture`, {
        method: "POST",
        headers: { "x-request-id": SPOOFED, "content-type": "application/json" },
        body: JSON.stringify({ title: "t" }),
      });
      await res.body?.cancel();
      assert.equal(res.status, 201);
      // A WebSocket upgrade relayed to collab deployed apart: its admission check too.
      const status = await upgradeStatus(
        `http://127.0.0.1:${server.addr.port}`,
        "ticket=t&docId=p&workspaceId=w",
        { "x-request-id": SPOOFED },
      );
      assert.equal(status, 401);
      assert.equal(seen.length, 2);
      for (const id of seen) {
        assert.ok(id, "the service was given a request id");
        assert.notEqual(id, SPOOFED);
      }
    } finally {
      await server.shutdown();
      await upstream.shutdown();
    }
  });
});
