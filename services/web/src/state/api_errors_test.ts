/// <reference lib="deno.ns" />
import assert from "node:assert/strict";
import { Hono } from "hono";
import { serve } from "./test_server.ts";
import { ApiError, errorMessage } from "./api.ts";
import { loadWorkspaces } from "./workspaces.ts";

async function failure(answer: () => Response): Promise<ApiError> {
  using _server = serve(new Hono().get("/api/workspaces", answer));
  const err = await loadWorkspaces().then(() => null, (e) => e);
  assert.ok(err instanceof ApiError, `an ApiError, got ${err}`);
  return err;
}

Deno.test("api errors: the server's {error} message is what a person reads", async () => {
  const err = await failure(() =>
    Response.json({ error: "Not a workspace member" }, { status: 403 })
  );
  assert.equal(err.status, 403);
  assert.equal(errorMessage(err), "Not a workspace member");
});

Deno.test("api errors: a proxy's HTML error page is not shown raw", async () => {
  const err = await failure(() =>
    new Response("<html><body><h1>502 Bad Gateway</h1>\n<hr>nginx</body></html>", {
      status: 502,
      statusText: "Bad Gateway",
      headers: { "content-type": "text/html" },
    })
  );
  assert.equal(err.status, 502);
  assert.equal(errorMessage(err), "The server answered 502 Bad Gateway. Try again in a moment");
});

Deno.test("api errors: a short plain-text answer is kept as the message", async () => {
  const err = await failure(() => new Response("Service Unavailable", { status: 503 }));
  assert.equal(errorMessage(err), "Service Unavailable");
});
