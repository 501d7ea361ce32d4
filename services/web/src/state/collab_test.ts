/// <reference lib="deno.ns" />
import assert from "node:assert/strict";
import { Hono } from "hono";
import { serve } from "./test_server.ts";
import { mintTicket } from "./collab.ts";

Deno.test("collab store: a ticket is asked for each connection", async () => {
  let n = 0;
  using server = serve(new Hono().post("/api/ws/ticket", (c) => c.json({ ticket: `t${++n}` })));
  assert.equal(await mintTicket(), "t1");
  assert.equal(await mintTicket(), "t2");
  assert.equal(server.seen.length, 2);
});
