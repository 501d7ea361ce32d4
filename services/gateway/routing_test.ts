import assert from "node:assert/strict";
import { resolveRoute } from "./routing.ts";
import { bearerToken, rawPath } from "./mod.ts";

Deno.test("routing sends each public prefix to its owning service", () => {
  assert.deepEqual(resolveRoute("GET", "/api/workspaces/abc"), {
    service: "workspaces",
    access: "approved",
  });
  assert.equal(resolveRoute("GET", "/api/audiences")?.service, "workspaces");
  assert.equal(resolveRoute("POST", "/api/quick-capture/token")?.service, "ideas");
  assert.equal(resolveRoute("GET", "/api/posts/1/comments")?.service, "posts");
  assert.equal(resolveRoute("GET", "/api/examples")?.service, "posts");
  assert.equal(resolveRoute("POST", "/api/ws/ticket")?.service, "auth");
  assert.equal(resolveRoute("GET", "/ws")?.service, "collab");
  assert.deepEqual(resolveRoute("GET", "/ws/"), { service: "collab", access: "public" });
  assert.deepEqual(resolveRoute("GET", "/ws/post-1"), { service: "collab", access: "public" });
  assert.deepEqual(resolveRoute("GET", "/wsx"), { service: "web", access: "public" });
  assert.equal(resolveRoute("POST", "/mcp")?.service, "mcp");
});

Deno.test("routing never routes /internal and ignores look-alike prefixes", () => {
  assert.equal(resolveRoute("GET", "/internal/health"), null);
  assert.equal(resolveRoute("GET", "/internal/users/x"), null);
  assert.equal(resolveRoute("GET", "/api/workspacesX"), null);
  assert.equal(resolveRoute("GET", "/api/unknown"), null);
});

Deno.test("routing lets only the documented routes through without a JWT", () => {
  for (
    const path of [
      "/api/auth/signup",
      "/api/auth/callback",
      "/api/auth/login",
      "/api/auth/refresh",
      "/api/auth/logout",
      "/api/auth/confirm",
      "/api/auth/resend-confirmation",
    ]
  ) {
    assert.equal(resolveRoute("POST", path)?.access, "public", path);
  }
  assert.equal(resolveRoute("POST", "/api/quick-capture")?.access, "public");
  assert.equal(resolveRoute("POST", "/api/quick-capture/token")?.access, "approved");
  assert.equal(resolveRoute("GET", "/oauth/authorize")?.access, "public");
  assert.equal(resolveRoute("GET", "/.well-known/jwks.json")?.access, "public");
  assert.equal(resolveRoute("GET", "/api/auth/me")?.access, "token");
  assert.equal(resolveRoute("GET", "/api/auth/signup")?.access, "token");
  assert.equal(resolveRoute("POST", "/api/ws/ticket")?.access, "approved");
  assert.equal(resolveRoute("GET", "/api/admin/users")?.access, "approved");
});

Deno.test("routing sends / and every app path to the web app, never the reserved prefixes", () => {
  for (
    const path of ["/", "/workspaces/w1/ideas", "/workspaces/w1/posts/p1", "/admin", "/signup"]
  ) {
    assert.deepEqual(resolveRoute("GET", path), { service: "web", access: "public" }, path);
  }
  assert.deepEqual(resolveRoute("GET", "/static/index-abc.js"), {
    service: "web",
    access: "public",
  });
  for (
    const path of ["/api", "/api/nothing", "/assets/x", "/healthz", "/internal/health", "/internal"]
  ) {
    assert.equal(resolveRoute("GET", path), null, path);
  }
});

Deno.test("routing sends LinkedIn publishing to posts, ahead of workspaces and auth", () => {
  assert.deepEqual(resolveRoute("POST", "/api/workspaces/ws1/linkedin/connect"), {
    service: "posts",
    access: "approved",
  });
  assert.deepEqual(resolveRoute("GET", "/api/workspaces/ws1/linkedin"), {
    service: "posts",
    access: "approved",
  });
  assert.deepEqual(resolveRoute("GET", "/oauth/linkedin/callback"), {
    service: "posts",
    access: "public",
  });
  assert.equal(resolveRoute("GET", "/api/workspaces/ws1/linkedinx")?.service, "workspaces");
  assert.equal(resolveRoute("GET", "/api/workspaces/ws1/calendar")?.service, "posts");
  assert.deepEqual(resolveRoute("GET", "/api/review-links/abc"), {
    service: "posts",
    access: "public",
  });
  assert.equal(resolveRoute("GET", "/oauth/authorize")?.service, "auth");
});

Deno.test("the gateway reads a URL's path as URL.pathname does, still percent-encoded", () => {
  for (
    const url of [
      "http://127.0.0.1:8000/api/workspaces/abc",
      "http://h/api/ideas?status=new&x=%2F",
      "http://h/",
      "http://h/%69nternal/health",
      "https://h:443/a/b#frag",
      "http://h/api/posts/1/comments?",
    ]
  ) {
    assert.equal(rawPath(url), new URL(url).pathname, url);
  }
});

Deno.test("a bearer token is the one word after the scheme, the scheme in any case", () => {
  assert.equal(bearerToken("Bearer abc.def"), "abc.def");
  assert.equal(bearerToken("bearer  \tabc"), "abc");
  assert.equal(bearerToken("BEARER abc"), "abc");
  for (const header of [null, "", "Bearer", "Bearer ", "Bearerabc", "Basic abc", "Bearer a b"]) {
    assert.equal(bearerToken(header), null, String(header));
  }
  assert.equal(bearerToken("Bearer abc "), null);
});
