import { OpenAPIHono } from "@hono/zod-openapi";
import type { Context, MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import { HTTPException } from "hono/http-exception";
import type { ZodError } from "zod";
import { errorMessage, type Logger } from "../log.ts";
import { timingSafeEqual } from "../crypto/ids.ts";
import { AppError, errorHeaders } from "./app_error.ts";
import { rejectMalformedStrings, urlStringsCheck } from "./input_guard.ts";
import { documentedMethods, serviceOpenApiDocument } from "./openapi_document.ts";
import { exportKv, importKv, readLineChunks } from "../archive/kv_backup.ts";
import { withHeapWatch } from "../runtime/heap_watch.ts";
import type { KeyFamilies } from "../kv/kv_keys.ts";
import {
  type Caller,
  CALLER_HEADER,
  decodeCaller,
  inProcessPasses,
  INTERNAL_SECRET_HEADER,
  REQUEST_ID_HEADER,
} from "./identity.ts";

export type ServiceEnv = {
  Variables: {
    caller: Caller | null;
    requestId: string;
  };
};

export type ServiceApp = OpenAPIHono<ServiceEnv>;

export const MAX_BODY_BYTES = 1024 * 1024;

/** Turns the first zod issue into a message that names the field. */
export function describeZodError(error: ZodError): string {
  const issue = error.issues[0];
  if (!issue) return "Invalid request";
  const field = issue.path.map(String).join(".");
  const message = issue.message;
  if (!field) return `Request body: ${message}`;
  if (/received undefined/.test(message)) return `${field} is required`;
  if (message.startsWith(field)) return message;
  return `${field}: ${message}`;
}

/**
 * Maps any thrown value to the wire format `{"error": message}`, once for every app; an
 * AppError's delay becomes `Retry-After`.
 */
export function errorResponse(err: unknown, c: Context, logger: Logger): Response {
  if (err instanceof AppError) return c.json({ error: err.message }, err.status, errorHeaders(err));
  if (err instanceof HTTPException) {
    // A refusal in another format than `{"error"}` (OAuth's) carries its own response.
    if (err.res) return err.getResponse();
    const status = err.status;
    const message = status === 413 ? "Request body is larger than 1 MiB" : err.message ||
      "Bad request";
    return c.json({ error: message }, status);
  }
  logger.error("unhandled error", {
    request_id: c.get("requestId" as never),
    method: c.req.method,
    path: c.req.path,
    error: errorMessage(err),
  });
  return c.json({ error: "Internal server error" }, 500);
}

export interface ServiceAppOptions {
  logger: Logger;
  internalSecret: string;
  /**
   * Exact paths whose route authenticates its caller itself from a header other than the JWT
   * (quick capture's `X-Capture-Token`): the body limit and the string check do not run before
   * it; the route runs `bodyChecks` once it knows the caller, so a refused caller gets its
   * 401/403 whatever the body (spec: quick capture checks header, token, membership, title).
   */
  selfAuthenticatingPaths?: readonly string[];
}

const bodyLimitCheck = bodyLimit({
  maxSize: MAX_BODY_BYTES,
  onError: (c) => c.json({ error: "Request body is larger than 1 MiB" }, 413),
});
const malformedStringsCheck = rejectMalformedStrings();

/**
 * The body limit (413) and the string check (400 naming the field) that every other route gets
 * before it runs, for a route of `selfAuthenticatingPaths`. Null when the request passes both.
 */
export async function bodyChecks(c: Context): Promise<Response | null> {
  let passed = false;
  let refusal: Response | void = undefined;
  const limited = await bodyLimitCheck(c, async () => {
    refusal = await malformedStringsCheck(c, () => {
      passed = true;
      return Promise.resolve();
    });
  });
  if (passed) return null;
  return refusal ?? limited ?? null;
}

/**
 * The Hono app every service is built on: request id and logging, the 1 MiB body limit, the
 * gateway guard (internal secret, caller identity), strings that are not well-formed UTF-16 and
 * zod failures as 400 naming the field, and one error mapping (anything but an AppError or
 * HTTPException is a logged 500: validation keeps bad input from getting that far).
 */
export function createServiceApp(
  { logger, internalSecret, selfAuthenticatingPaths = [] }: ServiceAppOptions,
): ServiceApp {
  const callerFirst = new Set(selfAuthenticatingPaths);
  const app = new OpenAPIHono<ServiceEnv>({
    defaultHook: (result, c) => {
      if (!result.success) return c.json({ error: describeZodError(result.error) }, 400);
    },
  });
  app.use("*", serviceEntry(logger, internalSecret, callerFirst));
  app.onError((err, c) => errorResponse(err, c, logger));
  // A documented path asked with a method it does not have: 405 naming the ones it has.
  const methodsOf = documentedMethods(app);
  app.notFound((c) => {
    const allowed = methodsOf(c.req.path);
    if (allowed) {
      return c.json({ error: `Method ${c.req.method} not allowed on ${c.req.path}` }, 405, {
        allow: allowed.join(", "),
      });
    }
    return c.json({ error: `No route for ${c.req.method} ${c.req.path}` }, 404);
  });
  app.openAPIRegistry.registerComponent("securitySchemes", "bearer", {
    type: "http",
    scheme: "bearer",
    bearerFormat: "JWT",
  });
  return app;
}

/**
 * What every request of a service passes first, in one step (each middleware layer showed in
 * bench:api's profile): the request id; the gateway guard, which refuses (401) any request that
 * did not come through the gateway or another service; then, before any schema sees the input,
 * the 1 MiB body limit (413) and strings that are not well-formed UTF-16 (400 naming the field).
 * A keyspace import is a streamed body of any size, from a peer only (internal secret), and a
 * route in `callerFirst` runs the body checks itself once it knows its caller.
 */
function serviceEntry(
  logger: Logger,
  internalSecret: string,
  callerFirst: ReadonlySet<string>,
): MiddlewareHandler<ServiceEnv> {
  const logRequests = logger.enabled?.("debug") ?? true;
  const checked = (c: Context<ServiceEnv>, next: () => Promise<void>) => {
    const path = c.req.path;
    if (path === BACKUP_IMPORT_PATH || callerFirst.has(path)) return next();
    // A request without a body (every GET) has only its URL to check.
    if (c.req.raw.body === null) return urlStringsCheck(c) ?? next();
    return bodyLimitCheck(c, async () => {
      const refused = await malformedStringsCheck(c, next);
      if (refused) c.res = refused;
    });
  };
  return async (c, next) => {
    const req = c.req.raw;
    // A request the gateway handed over in process carries its caller beside it; never on an
    // internal route, which the gateway does not route (a pass there came by an encoded path).
    const pass = inProcessPasses.get(req);
    if (pass && !c.req.path.startsWith("/internal/")) {
      c.set("caller", pass.caller);
      c.set("requestId", pass.requestId);
    } else {
      const secret = c.req.header(INTERNAL_SECRET_HEADER) ?? "";
      if (!timingSafeEqual(secret, internalSecret)) {
        return c.json({ error: "Unauthorized" }, 401);
      }
      c.set("caller", decodeCaller(c.req.header(CALLER_HEADER)));
      c.set("requestId", c.req.header(REQUEST_ID_HEADER) ?? crypto.randomUUID());
    }
    if (!logRequests) return await checked(c, next);
    const started = performance.now();
    const refused = await checked(c, next);
    logger.debug("request", {
      request_id: c.get("requestId"),
      method: c.req.method,
      path: c.req.path,
      status: (refused ?? c.res).status,
      ms: Math.round((performance.now() - started) * 10) / 10,
    });
    return refused;
  };
}

/** The caller the gateway verified; 401 when the route was reached without one. */
export function requireCaller(c: Context<ServiceEnv>): Caller {
  const caller = c.get("caller");
  if (!caller) throw new AppError(401, "Unauthorized");
  return caller;
}

export const BACKUP_EXPORT_PATH = "/internal/backup/export";
export const BACKUP_IMPORT_PATH = "/internal/backup/import";

/** What a service with a keyspace hands `mountServiceInternals` for backup and restore. */
export interface KeyspaceOptions {
  kv: Deno.Kv;
  /**
   * Every key family the service writes, with its backup class (its `keys.ts`): data is
   * exported and restored, sessions are left out and cleared, local families are untouched.
   */
  keys: KeyFamilies;
  /**
   * Runs before an import touches the keyspace (e.g. marking, in a local family, that whatever
   * was read from it before is from before the restore).
   */
  beforeImport?: () => Promise<void>;
  /**
   * Runs after a successful import (e.g. re-ensuring the bootstrap admin), given the moment
   * the import started.
   */
  afterImport?: (startedAt: number) => Promise<void>;
}

/**
 * The internal routes every service has: `/internal/health` (503 until `isReady()`) and
 * `/internal/openapi.json` (this service's part of the public OpenAPI 3.1 document, which the
 * gateway merges and serves at `/api/openapi.json`). Given its KV, a service also gets
 * `GET /internal/backup/export` (the keyspace's data as NDJSON, streamed) and
 * `POST /internal/backup/import` (a streamed NDJSON body that replaces the keyspace; running
 * it again with the same body gives the same end state), which the admin service's backup and
 * restore use.
 */
export function mountServiceInternals(
  app: ServiceApp,
  isReady: () => boolean,
  keyspace?: KeyspaceOptions,
): void {
  app.get(
    "/internal/health",
    (c) => isReady() ? c.json({ status: "ok" }) : c.json({ status: "starting" }, 503),
  );
  app.get("/internal/openapi.json", (c) => c.json(serviceOpenApiDocument(app)));
  if (!keyspace) return;
  const options = keyspace;
  app.get(BACKUP_EXPORT_PATH, () =>
    new Response(exportKv(options.kv, options.keys), {
      headers: { "content-type": "application/x-ndjson" },
    }));
  app.post(BACKUP_IMPORT_PATH, async (c) => {
    const body = c.req.raw.body ?? ReadableStream.from<Uint8Array>([]);
    let imported: number;
    const startedAt = Date.now();
    // Watched: when the service runs apart, the admin service's watch is not in this process.
    await withHeapWatch(async () => {
      await options.beforeImport?.();
      try {
        imported = await importKv(options.kv, readLineChunks(body), options.keys);
      } catch (err) {
        if (err instanceof TypeError) throw new AppError(400, `Cannot import: ${err.message}`);
        throw err;
      }
      await options.afterImport?.(startedAt);
    });
    return c.json({ imported: imported! });
  });
}
