import type { Context } from "hono";
import type { z } from "zod";
import { AppError } from "./app_error.ts";
import { describeZodError, type ServiceEnv } from "./service_app.ts";

/**
 * The input of an `/internal` route (peers only; the public routes validate through their
 * OpenAPI definitions): a body that is not JSON is 400 `Request body must be JSON`, and one the
 * schema refuses is 400 naming the field, as on the public routes.
 */
export async function internalBody<S extends z.ZodType>(
  c: Context<ServiceEnv>,
  schema: S,
): Promise<z.output<S>> {
  let raw: unknown;
  try {
    raw = await c.req.json();
  } catch {
    throw new AppError(400, "Request body must be JSON");
  }
  return validInput(schema, raw);
}

/** An `/internal` route's query string, validated as `internalBody` validates a body. */
export function internalQuery<S extends z.ZodType>(
  c: Context<ServiceEnv>,
  schema: S,
): z.output<S> {
  return validInput(schema, c.req.query());
}

function validInput<S extends z.ZodType>(schema: S, raw: unknown): z.output<S> {
  const parsed = schema.safeParse(raw);
  if (!parsed.success) throw new AppError(400, describeZodError(parsed.error));
  return parsed.data;
}
