import type { ServiceName } from "../../shared/config.ts";

/** How the gateway treats a route before forwarding it. */
export type Access =
  /** no JWT needed (signup, login, OAuth pages, quick capture, presigned URLs, the socket) */
  | "public"
  /** a valid JWT; an unapproved account is let through (`/api/auth/*`) */
  | "token"
  /** a valid JWT of an approved account */
  | "approved";

export interface RouteTarget {
  service: ServiceName;
  access: Access;
  /**
   * The route authenticates its caller from its own header and checks the body's type only
   * after that (quick capture: header, token, membership, title), so the gateway leaves the
   * JSON-only check (415) to it.
   */
  selfAuthenticating?: true;
}

const PUBLIC_AUTH_POSTS = new Set([
  "/api/auth/signup",
  "/api/auth/callback",
  "/api/auth/confirm",
  "/api/auth/resend-confirmation",
  "/api/auth/login",
  "/api/auth/refresh",
  "/api/auth/logout",
  "/api/auth/forgot-password",
  "/api/auth/reset-password",
]);

/** Path prefixes (whole segments) and the service that owns them. */
const PREFIXES: readonly (readonly [string, ServiceName])[] = [
  // LinkedIn publishing lives in posts; before the /oauth and workspaces prefixes
  ["/oauth/linkedin", "posts"],
  ["/api/auth", "auth"],
  ["/api/ws", "auth"],
  ["/api/setup", "auth"],
  ["/api/notifications", "auth"],
  ["/oauth", "auth"],
  ["/.well-known", "auth"],
  ["/api/workspaces", "workspaces"],
  ["/api/audiences", "workspaces"],
  ["/api/languages", "workspaces"],
  ["/api/ideas", "ideas"],
  ["/api/quick-capture", "ideas"],
  ["/api/prompts", "prompts"],
  ["/api/posts", "posts"],
  ["/api/review-links", "posts"],
  ["/api/examples", "posts"],
  ["/api/genai", "genai"],
  ["/api/actions", "actions"],
  ["/api/admin", "admin"],
  ["/ws", "collab"],
  ["/mcp", "mcp"],
];

/** `/api/workspaces/{id}/linkedin` and `.../calendar`, and everything below them: posts'. */
const WORKSPACE_LINKEDIN = /^\/api\/workspaces\/[^/]+\/(linkedin|calendar)(\/.*)?$/;

/** Prefixes the web app never answers; every other path is an app route. */
const NOT_WEB = ["/api", "/ws", "/mcp", "/oauth", "/.well-known", "/assets", "/healthz"];

/** `path` is `prefix` or below it (whole segments: `/api/ideas` is not under `/api/idea`). */
function underPrefix(path: string, prefix: string): boolean {
  return path.startsWith(prefix) &&
    (path.length === prefix.length || path.charCodeAt(prefix.length) === 47 /* / */);
}

/** Answers of `resolveRoute` by method and path (a pure function), emptied when full. */
const resolved = new Map<string, Readonly<RouteTarget> | null>();
const RESOLVED_MAX = 10_000;

/** Which service answers `method path`, and what the caller must prove; null when none does. */
export function resolveRoute(method: string, path: string): Readonly<RouteTarget> | null {
  const key = `${method} ${path}`;
  let target = resolved.get(key);
  if (target === undefined) {
    target = routeOf(method, path);
    if (target) Object.freeze(target);
    if (resolved.size >= RESOLVED_MAX) resolved.clear();
    resolved.set(key, target);
  }
  return target;
}

function routeOf(method: string, path: string): RouteTarget | null {
  if (underPrefix(path, "/internal")) return null;
  // A workspace's LinkedIn connection and its calendar are the posts service's.
  if (path.startsWith("/api/workspaces/") && WORKSPACE_LINKEDIN.test(path)) {
    return { service: "posts", access: "approved" };
  }
  const match = PREFIXES.find(([prefix]) => underPrefix(path, prefix));
  if (!match) {
    if (NOT_WEB.some((prefix) => underPrefix(path, prefix))) return null;
    return { service: "web", access: "public" };
  }
  const service = match[1];
  if (method === "POST" && PUBLIC_AUTH_POSTS.has(path)) return { service, access: "public" };
  if (path === "/api/setup") return { service, access: "public" }; // first run
  if (underPrefix(path, "/oauth") || underPrefix(path, "/.well-known")) {
    return { service, access: "public" };
  }
  // A review link's token is its own credential: the reviewer has no account.
  if (underPrefix(path, "/api/review-links")) return { service, access: "public" };
  if (path === "/api/quick-capture" && method === "POST") {
    return { service, access: "public", selfAuthenticating: true };
  }
  // y-websocket appends "/<room>" to its server URL: /ws/<anything> is the same socket.
  if (underPrefix(path, "/ws")) return { service, access: "public" };
  if (underPrefix(path, "/api/auth")) return { service, access: "token" };
  return { service, access: "approved" };
}
