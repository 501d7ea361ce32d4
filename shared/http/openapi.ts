/**
 * The pieces every service's OpenAPI route definitions share: the `Error` schema, JSON
 * responses and bodies, and the bearer security requirement. One module, so the documented
 * error shape and the way a route declares its body are the same in every service.
 */
import { z } from "@hono/zod-openapi";

/** `{"error": "..."}`: the body of every 4xx and 5xx (one `AppError`, mapped once). */
export const errorSchema = z.object({ error: z.string() }).openapi("Error");

/** A JSON response of `schema`. */
export function json<T extends z.ZodType>(schema: T, description: string) {
  return { content: { "application/json": { schema } }, description };
}

/** An error response (`{"error"}`), described by when it happens. */
export function err(description: string) {
  return json(errorSchema, description);
}

/** A response's `Retry-After` header (whole seconds, at least 1), described by when it comes. */
export function retryAfter(description: string) {
  return { "Retry-After": { description, schema: { type: "integer" as const, minimum: 1 } } };
}

/**
 * The `Retry-After` header every 429 carries: whole seconds until the limit that refused the
 * request lets it through again (the one error mapping sets it from the limiter's own window).
 */
export const retryAfterHeader = retryAfter(
  "Seconds (at least 1) until the limit lets the client try again",
);

/** A 429 `{"error"}` response with its `Retry-After`, described by when it happens. */
export function tooMany(description: string) {
  return { ...err(description), headers: retryAfterHeader };
}

/** The error responses of `codes`, each described as `Error` (the route's summary says when). */
export function errors(...codes: number[]) {
  return Object.fromEntries(
    codes.map((code) => [code, code === 429 ? tooMany("Error") : err("Error")]),
  );
}

/** A required JSON request body of `schema`, for a route's `request`. */
export function body<T extends z.ZodType>(schema: T) {
  return { body: { content: { "application/json": { schema } }, required: true } };
}

/** A route that needs the caller's access token. */
export const bearer = [{ bearer: [] }];
