import type { RouteConfig } from "@hono/zod-openapi";
import type { MiddlewareHandler } from "hono";
import { forbidden } from "../../shared/http/app_error.ts";
import { bearer, err } from "../../shared/http/openapi.ts";
import { requireCaller, type ServiceEnv } from "../../shared/http/service_app.ts";
import { ADMIN_MESSAGES } from "./schemas.ts";
import { MESSAGES } from "../../shared/http/messages.ts";

/** Every `/api/admin/*` call: the caller's `custom:role` claim must be `admin` (403 first). */
export function adminGuard(): MiddlewareHandler<ServiceEnv> {
  return async (c, next) => {
    const caller = requireCaller(c);
    if (caller.role !== "admin") throw forbidden(ADMIN_MESSAGES.adminRequired);
    await next();
  };
}

/**
 * What every admin route's OpenAPI entry shares: its tag, the token, and the refusals before
 * the guard lets it run (401 without a valid token, 403 for a non-admin).
 */
export const adminRoute = { tags: ["Admin"], security: bearer } satisfies Partial<RouteConfig>;
export const guardResponses = {
  401: err("Missing or invalid access token"),
  403: err(MESSAGES.adminRequired),
};
