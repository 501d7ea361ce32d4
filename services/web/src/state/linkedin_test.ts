/// <reference lib="deno.ns" />
import assert from "node:assert/strict";
import { Hono } from "hono";
import { serve } from "./test_server.ts";
import { disconnectLinkedIn, linkedInAuthorizeUrl, loadLinkedIn } from "./linkedin.ts";

Deno.test("linkedin store: reads the connection, answers the authorise URL, disconnects", async () => {
  using server = serve(
    new Hono()
      .get("/api/workspaces/:id/linkedin", (c) => c.json({ connected: false }))
      .post(
        "/api/workspaces/:id/linkedin/connect",
        (c) => c.json({ authorize_url: "https://linkedin.test/auth?state=s" }),
      )
      .delete("/api/workspaces/:id/linkedin", (c) => c.body(null, 204)),
  );
  assert.equal((await loadLinkedIn("ws1")).connected, false);
  assert.equal(await linkedInAuthorizeUrl("ws1"), "https://linkedin.test/auth?state=s");
  await disconnectLinkedIn("ws1");
  assert.deepEqual(server.seen.map((s) => `${s.method} ${s.path}`), [
    "GET /api/workspaces/ws1/linkedin",
    "POST /api/workspaces/ws1/linkedin/connect",
    "DELETE /api/workspaces/ws1/linkedin",
  ]);
});
