import assert from "node:assert/strict";
import { escapeCommentary, LinkedInApi, retryAfterSeconds } from "./linkedin.ts";

Deno.test("commentary escapes each of LinkedIn's reserved characters with a backslash", () => {
  assert.equal(
    escapeCommentary("\\ | { } @ [ ] ( ) < > # * _ ~"),
    "\\\\ \\| \\{ \\} \\@ \\[ \\] \\( \\) \\< \\> \\# \\* \\_ \\~",
  );
  assert.equal(
    escapeCommentary("Plain text, 100% ok! ÄÖÜ 🚀 & $"),
    "Plain text, 100% ok! ÄÖÜ 🚀 & $",
  );
});

Deno.test("Retry-After: seconds or an HTTP date; absent or unreadable is null, not 0", () => {
  const now = Date.parse("2026-11-24T00:00:00Z");
  assert.equal(retryAfterSeconds(null, now), null);
  assert.equal(retryAfterSeconds("", now), null);
  assert.equal(retryAfterSeconds("soon", now), null);
  assert.equal(retryAfterSeconds("-1", now), null);
  assert.equal(retryAfterSeconds("0", now), 0);
  assert.equal(retryAfterSeconds(" 120 ", now), 120);
  assert.equal(retryAfterSeconds("Tue, 24 Nov 2026 00:01:30 GMT", now), 90);
  assert.equal(retryAfterSeconds("Mon, 23 Nov 2026 23:00:00 GMT", now), 0);
});

Deno.test("a success without x-restli-id is an unknown outcome, never a refusal to retry", async () => {
  const answers = [
    new Response(null, { status: 201 }),
    new Response("{}", { status: 200 }),
    new Response(null, { status: 201, headers: { "x-restli-id": "urn:li:share:7" } }),
    new Response("slow down", { status: 429, headers: { "retry-after": "3" } }),
  ];
  await using server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    async (req) => {
      await req.body?.cancel();
      return answers.shift()!;
    },
  );
  const api = new LinkedInApi({
    clientId: "client",
    clientSecret: "secret",
    authUrl: "http://127.0.0.1:1/oauth/v2",
    apiUrl: `http://127.0.0.1:${server.addr.port}`,
    version: "202611",
    tokenKey: null,
    timeoutMs: 5_000,
    expiryCheckMs: 60_000,
    uploadTimeoutMs: 5_000,
    organizations: false,
  }, "http://127.0.0.1:1/callback");
  const post = () => api.createPost("token", "member", "Hello");
  assert.deepEqual(await post(), {
    kind: "unknown",
    error: "LinkedIn answered 201 without an x-restli-id",
  });
  assert.equal((await post()).kind, "unknown");
  assert.deepEqual(await post(), { kind: "created", urn: "urn:li:share:7" });
  assert.deepEqual(await post(), {
    kind: "status",
    status: 429,
    body: "slow down",
    retryAfterSeconds: 3,
  });
});
