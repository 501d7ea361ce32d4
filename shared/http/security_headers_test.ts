import assert from "node:assert/strict";
import { isNoStorePath, withSecurityHeaders } from "./security_headers.ts";

Deno.test("API, login and MCP answers are no-store; the app's pages are not", () => {
  for (
    const path of ["/api", "/api/ideas", "/oauth/token", "/mcp", "/setup", "/setup/x", "/oauth"]
  ) {
    assert.equal(isNoStorePath(path), true, path);
  }
  for (const path of ["/", "/ideas", "/assets/app.js", "/apix", "/oauthx"]) {
    assert.equal(isNoStorePath(path), false, path);
  }
});

Deno.test("security headers are added to an answer made here and to a fetched one", async () => {
  const own = withSecurityHeaders(Response.json({ a: 1 }), "/api/ideas");
  assert.equal(own.headers.get("x-content-type-options"), "nosniff");
  assert.equal(own.headers.get("cache-control"), "no-store");

  const chosen = new Response("x", { headers: { "cache-control": "private, max-age=60" } });
  assert.equal(
    withSecurityHeaders(chosen, "/api/ideas").headers.get("cache-control"),
    "private, max-age=60",
  );

  // A fetched response's headers are immutable: the answer is a copy with the same body.
  const server = Deno.serve({ port: 0, onListen: () => {} }, () => new Response("body"));
  try {
    const fetched = await fetch(`http://127.0.0.1:${server.addr.port}/`);
    const answered = withSecurityHeaders(fetched, "/api/x");
    assert.equal(answered.headers.get("x-content-type-options"), "nosniff");
    assert.equal(await answered.text(), "body");
  } finally {
    await server.shutdown();
  }
});
