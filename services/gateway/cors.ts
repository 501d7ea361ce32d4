import type { MiddlewareHandler } from "hono";

/**
 * Cross-origin access for the routes a browser-based MCP client (the MCP Inspector's page,
 * a web assistant) calls from another origin: OAuth discovery (RFC 8414 and RFC 9728 ask for
 * it), dynamic registration, the token endpoint and `/mcp` itself. Any origin, never
 * credentials: none of them reads a cookie (a token is sent in `Authorization` or the body),
 * so a page elsewhere gains nothing it could not do from a server. The rest of the API stays
 * same-origin.
 */
interface CorsPolicy {
  methods: string;
  headers: string;
  expose?: string;
}

const DISCOVERY: CorsPolicy = { methods: "GET", headers: "mcp-protocol-version" };
const OAUTH_ENDPOINT: CorsPolicy = {
  methods: "POST",
  headers: "content-type, mcp-protocol-version",
};
const MCP: CorsPolicy = {
  methods: "GET, POST, DELETE",
  headers: "authorization, content-type, mcp-protocol-version, mcp-session-id, last-event-id",
  expose: "www-authenticate, mcp-session-id, mcp-protocol-version",
};

/** The cross-origin policy of `path`, or null for a same-origin route. */
export function crossOriginPolicyFor(path: string): CorsPolicy | null {
  if (path.startsWith("/.well-known/")) return DISCOVERY;
  if (path === "/oauth/register" || path === "/oauth/token") return OAUTH_ENDPOINT;
  if (path === "/mcp") return MCP;
  return null;
}

/** Answers a preflight of those routes (204) and marks their answers readable cross-origin. */
export function crossOriginForClients(): MiddlewareHandler {
  return async (c, next) => {
    const policy = crossOriginPolicyFor(c.req.path);
    if (!policy) return await next();
    const preflight = c.req.method === "OPTIONS" &&
      c.req.header("access-control-request-method") !== undefined;
    if (preflight) {
      return c.body(null, 204, {
        "access-control-allow-origin": "*",
        "access-control-allow-methods": policy.methods,
        "access-control-allow-headers": policy.headers,
        "access-control-max-age": "600",
      });
    }
    await next();
    c.header("access-control-allow-origin", "*");
    if (policy.expose) c.header("access-control-expose-headers", policy.expose);
  };
}
