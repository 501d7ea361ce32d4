import type { MiddlewareHandler } from "hono";
import { isJsonMediaType } from "./input_guard.ts";

/** Paths whose answers may carry tokens, codes or signed URLs: never stored by a cache. */
const NO_STORE_PREFIXES = ["/api/", "/oauth/", "/mcp", "/setup"];

/** Whether answers under `path` are never stored by a cache (see NO_STORE_PREFIXES). */
export function isNoStorePath(path: string): boolean {
  for (const prefix of NO_STORE_PREFIXES) {
    if (path.startsWith(prefix)) return true;
    if (prefix.endsWith("/") && path === prefix.slice(0, -1)) return true;
  }
  return false;
}

/**
 * On every response of the gateway: `X-Content-Type-Options: nosniff`, so no answer is read as
 * another type than it says; and `Cache-Control: no-store` on the API, the hosted login and
 * MCP unless the route chose its own (API answers are per-user and may carry tokens: login,
 * refresh, callback, setup, WebSocket tickets, capture tokens, presigned URLs).
 * A WebSocket upgrade (101) is left as it is. The headers are set on the response itself when
 * they can be (a response made in this process); one fetched from elsewhere, whose headers
 * are immutable, is copied once.
 */
export function withSecurityHeaders(res: Response, path: string): Response {
  if (res.status === 101) return res;
  try {
    addSecurityHeaders(res.headers, path);
    return res;
  } catch {
    const copy = new Response(res.body, res);
    addSecurityHeaders(copy.headers, path);
    return copy;
  }
}

function addSecurityHeaders(headers: Headers, path: string): void {
  headers.set("x-content-type-options", "nosniff");
  if (isNoStorePath(path) && !headers.has("cache-control")) {
    headers.set("cache-control", "no-store");
  }
}

/** The same headers as Hono middleware, for the routes the gateway's Hono app answers. */
export function securityHeaders(): MiddlewareHandler {
  return async (c, next) => {
    await next();
    c.res = withSecurityHeaders(c.res, c.req.path);
  };
}

const BODYLESS = new Set(["GET", "HEAD", "OPTIONS"]);

/**
 * The REST API under `/api/` takes JSON only: a request with a body (or a declared media type)
 * that is not `application/json` is refused 415 before it reaches a service. A cross-site HTML
 * form or a "simple" cross-origin fetch can only send `application/x-www-form-urlencoded`,
 * `multipart/form-data`, `text/plain` or no type at all, so none of them reaches a JSON route.
 * The presigned asset uploads (`/assets/...`) and the hosted login form (`/oauth/authorize`)
 * are not under `/api/` and keep their own types. The gateway asks only once the route is known
 * and the caller authenticated, so a request with no valid token (or an unapproved one) gets its
 * 401 first, whatever its body (such a token gets 401 on every route).
 * Answers the 415 response, or null when the request may go on.
 */
export function refuseNonJsonBody(
  req: Request,
  path: string,
): Response | null | Promise<Response | null> {
  if (!path.startsWith("/api/") || BODYLESS.has(req.method)) return null;
  return refuseNonJsonBodyOf(req);
}

async function refuseNonJsonBodyOf(req: Request): Promise<Response | null> {
  const type = req.headers.get("content-type");
  const length = req.headers.get("content-length");
  // HTTP/1.1 frames a request body by Content-Length or Transfer-Encoding, nothing else.
  const hasBody = (length !== null && length !== "0") || req.headers.has("transfer-encoding");
  if (type ? !isJsonMediaType(type) : hasBody) {
    await req.body?.cancel().catch(() => {});
    return Response.json({ error: "Content-Type must be application/json" }, { status: 415 });
  }
  return null;
}
