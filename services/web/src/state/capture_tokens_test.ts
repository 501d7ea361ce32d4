/// <reference lib="deno.ns" />
import assert from "node:assert/strict";
import { Hono } from "hono";
import { serve } from "./test_server.ts";
import {
  captureIdea,
  captureTokens,
  createCaptureToken,
  forgetCaptureTokens,
  loadCaptureTokens,
  revokeCaptureToken,
} from "./capture_tokens.ts";

Deno.test("capture tokens store: the list is refetched after create and revoke; a gone token counts as revoked", async () => {
  let items = [{ token_id: "old" }];
  using server = serve(
    new Hono()
      .get("/api/quick-capture/tokens", (c) => c.json({ items }))
      .post("/api/quick-capture/token", (c) => {
        items = [...items, { token_id: "new" }];
        return c.json({ token: "secret", api_url: "http://x", token_id: "new" }, 201);
      })
      .delete("/api/quick-capture/tokens/:id", (c) => {
        const before = items.length;
        items = items.filter((t) => t.token_id !== c.req.param("id"));
        return before === items.length ? c.json({ error: "Not found" }, 404) : c.body(null, 204);
      }),
  );
  await loadCaptureTokens();
  assert.deepEqual(captureTokens.value?.map((t) => t.token_id), ["old"]);
  const created = await createCaptureToken("ws1", ["old", "missing"]);
  assert.equal(created.token.token_id, "new");
  assert.equal(created.revoked, 2);
  assert.equal(created.revokeError, null);
  assert.deepEqual(captureTokens.value?.map((t) => t.token_id), ["new"]);
  await revokeCaptureToken("new");
  assert.deepEqual(captureTokens.value, []);
  forgetCaptureTokens();
  assert.equal(captureTokens.value, null);
  assert.equal(server.seen.filter((s) => s.method === "GET").length, 3);
});

Deno.test("capture tokens store: a capture sends the token in its header, not a session", async () => {
  using server = serve(
    new Hono().post("/api/quick-capture", (c) => c.json({ idea_id: "i1" }, 201)),
  );
  await captureIdea("tok", "Seen on the train");
  assert.equal(server.seen[0].headers.get("x-capture-token"), "tok");
  assert.equal(server.seen[0].headers.get("authorization"), null);
  assert.deepEqual(server.seen[0].body, { title: "Seen on the train", tags: [] });
});
