import type { Context, MiddlewareHandler } from "hono";
import { isJsonMediaType } from "./input_guard.ts";

/** Paths whose answers may carry tokens, codes or signed URLs: never stored by a cache. */
const NO_STORE_PREFIXES = ["/api/", "/oauth/", "/mcp", "/setup"];

/**
 * On every response of the gateway: `X-Content-Type-Options: nosniff`, so no answer is read as
 * another type than it says; and `Cache-Control: no-store` on the API, the hosted login and
 * MCP unless the route chose its own (API answers are per-user and may carry tokens: login,
 * refresh, callback, setup, WebSocket tickets, capture tokens, presigned URLs).
 * A WebSocket upgrade (101) is left as it is.
 */
export function securityHeaders(): MiddlewareHandler {
  return async (c, next) => {
    await next();
    if (c.res.status === 101) return;
    c.header("x-content-type-options", "nosniff");
    const path = c.req.path;
    if (
      !c.res.headers.has("cache-control") &&
      NO_STORE_PREFIXES.some((p) => path === p.replace(/\/$/, "") || path.startsWith(p))
    ) {
      c.header("cache-control", "no-store");
    }
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
export async function refuseNonJsonBody(c: Context): Promise<Response | null> {
  if (!c.req.path.startsWith("/api/") || BODYLESS.has(c.req.method)) return null;
  const type = c.req.header("content-type");
  const length = c.req.header("content-length");
  // HTTP/1.1 frames a request body by Content-Length or Transfer-Encoding, nothing else.
  const hasBody = (length !== undefined && length !== "0") ||
    c.req.header("transfer-encoding") !== undefined;
  if (type ? !isJsonMediaType(type) : hasBody) {
    await c.req.raw.body?.cancel().catch(() => {});
    return c.json({ error: "Content-Type must be application/json" }, 415);
  }
  return null;
}
