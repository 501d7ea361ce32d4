import { Hono } from "hono";
import { decodeJwt, type JSONWebKeySet } from "jose";
import type { ServiceName } from "../../shared/config.ts";
import { SERVICE_NAMES } from "../../shared/config.ts";
import { AccessCache, effectiveRole, tokenSessionLive } from "../../shared/http/access_cache.ts";
import { AppError, errorHeaders } from "../../shared/http/app_error.ts";
import {
  type Caller,
  CALLER_HEADER,
  encodeCaller,
  inProcessPasses,
  INTERNAL_SECRET_HEADER,
  REQUEST_ID_HEADER,
} from "../../shared/http/identity.ts";
import {
  CLIENT_ADDRESS_HEADER,
  MAX_ADDRESS_LENGTH,
  peerAddress,
} from "../../shared/http/client_address.ts";
import { errorResponse } from "../../shared/http/service_app.ts";
import { apiDocsRoutes, DOCS_PATH } from "../../shared/http/api_docs.ts";
import { FILE_ROUTE_PREFIX } from "../../shared/assets/file_store.ts";
import { bearerChallenge } from "../../shared/http/protected_resource.ts";
import {
  refuseNonJsonBody,
  securityHeaders,
  withSecurityHeaders,
} from "../../shared/http/security_headers.ts";
import { InternalClient } from "../../shared/service/internal_client.ts";
import { errorMessage, type Logger } from "../../shared/log.ts";
import type { FetchHandler, ServiceDirectory } from "../../shared/service/service_directory.ts";
import { AuthClient } from "../auth/client.ts";
import type { GatewayConfig } from "./config.ts";
import { resolveRoute, type RouteTarget } from "./routing.ts";
import { TokenVerifier } from "./token_verifier.ts";
import { createWebSocketProxy } from "./websocket_proxy.ts";
import { crossOriginForClients, crossOriginPolicyFor } from "./cors.ts";

export interface GatewayOptions {
  config: GatewayConfig;
  directory: ServiceDirectory;
  logger: Logger;
  /** Extra routes the gateway itself answers (the presigned asset routes), mounted first. */
  extraRoutes?: Hono;
}

const STRIPPED_HEADERS = [INTERNAL_SECRET_HEADER, CALLER_HEADER, CLIENT_ADDRESS_HEADER];
const OPENAPI_PATH = "/api/openapi.json";

/**
 * The one public entry: verifies the JWT once (signature, exp, iss, aud), enforces approval,
 * strips any identity a client sent, and forwards to the owning service with the internal
 * secret and the verified caller. `/internal/*` is never routed.
 *
 * A routed request (every API call) passes plain function calls, no framework: on the hot path
 * each layer of middleware, each URL parse and each copied response showed in bench:api's
 * profile. The few routes the gateway answers itself (health, the merged OpenAPI document, the
 * docs page, presigned asset URLs) and the cross-origin routes for MCP clients go through its
 * Hono app.
 */
export function createGateway({ config, directory, logger, extraRoutes }: GatewayOptions) {
  const internal = (name: ServiceName) =>
    new InternalClient(name, directory.handler(name), config.base.internalSecret);
  const verifier = new TokenVerifier({
    issuer: config.base.publicUrl,
    audience: config.base.oauthClientId,
    loadJwks: async () => {
      const res = await internal("auth").request("GET", "/.well-known/jwks.json");
      if (!res.ok) throw new AppError(503, "The auth service is not available");
      return await res.json() as JSONWebKeySet;
    },
  });

  // Live access: a disabled or rejected account is refused and a demotion applies
  // within seconds, not when the token expires; so is a token of a session that logged out or
  // that a password reset ended. Cached per user and session for at most 2 s.
  const authClient = new AuthClient(directory, config.base.internalSecret);
  const access = new AccessCache((userId, sid) => authClient.access(userId, sid));

  // Distributed mode: collab checks the upgrade; the gateway relays the socket it accepted.
  const proxyWebSocket = createWebSocketProxy({
    internalSecret: config.base.internalSecret,
    logger,
  });
  const handlers = new Map<ServiceName, FetchHandler>(
    SERVICE_NAMES.map((name) => [name, directory.handler(name)]),
  );

  /** Every 401 names the resource's metadata, where a client finds the authorization server. */
  const unauthorizedResponse = (path: string, tokenSent: boolean) =>
    Response.json({ error: "Unauthorized" }, {
      status: 401,
      headers: {
        "www-authenticate": bearerChallenge(config.base.publicUrl, path, tokenSent),
      },
    });

  /**
   * The caller, unless the route is public: a verified access token (of an approved account
   * unless the route is `/api/auth/*`), held to the account's and the session's live state.
   * Answers the 401 when the request may not go on.
   */
  const authenticate = async (
    req: Request,
    path: string,
    required: RouteTarget["access"],
  ): Promise<{ caller: Caller; header: string } | Response> => {
    const authorization = req.headers.get("authorization");
    const token = bearerToken(authorization);
    let verified = token ? verifier.verify(token) : null;
    if (verified instanceof Promise) verified = await verified;
    if (!verified) return unauthorizedResponse(path, authorization !== null);
    if (required === "approved" && !verified.caller.approved) {
      return unauthorizedResponse(path, authorization !== null);
    }
    const caller = verified.caller;
    // An account unknown to auth (only after a wipe or a restore that remapped ids) keeps
    // its token's claims, as before; a known one is held to its live state.
    const sid = caller.sid;
    let live = access.peek(caller.user_id, sid) ?? await access.get(caller.user_id, { sid });
    if (live?.active && effectiveRole(caller.role, live.role) !== caller.role) {
      // Rare: the token's role is above the cached live one. Either a demotion (keep it) or
      // a promotion newer than the cached answer: ask again unless the answer is newer.
      live = await access.get(caller.user_id, { sid, fetchedAfter: issuedAtMs(token!) });
    }
    if (live && (!live.active || !tokenSessionLive(live, { sid, iat: verified.iat }))) {
      return unauthorizedResponse(path, authorization !== null);
    }
    const role = live ? effectiveRole(caller.role, live.role) : caller.role;
    if (role === caller.role) return { caller, header: verified.header };
    // Demoted since the token was issued: services see the lower role at once.
    const demoted = { ...caller, role };
    return { caller: demoted, header: encodeCaller(demoted) };
  };

  /**
   * Every routed request, in order: which service owns the path (404 for none), the socket
   * relay to a service deployed apart, who the caller is (401), the JSON-only body check (415),
   * then the service: in process with the caller beside the request, else over HTTP.
   */
  const route = async (
    req: Request,
    info: Deno.ServeHandlerInfo | undefined,
    path: string,
  ): Promise<Response> => {
    const target = resolveRoute(req.method, path);
    if (!target) {
      return Response.json({ error: `No route for ${req.method} ${path}` }, { status: 404 });
    }
    const handler = handlers.get(target.service)!;
    if (!directory.has(target.service)) {
      return Response.json({ error: `The ${target.service} service is not available` }, {
        status: 503,
      });
    }
    const remote = directory.remoteUrl(target.service) ?? null;
    if (remote && req.headers.get("upgrade")?.toLowerCase() === "websocket") {
      return await proxyWebSocket(req, remote);
    }
    let caller: Caller | null = null;
    let callerHeader: string | null = null;
    if (target.access !== "public") {
      const passed = await authenticate(req, path, target.access);
      if (passed instanceof Response) return passed;
      caller = passed.caller;
      callerHeader = passed.header;
    }
    if (!target.selfAuthenticating) {
      let refused = refuseNonJsonBody(req, path);
      if (refused instanceof Promise) refused = await refused;
      if (refused) return refused;
    }
    // The gateway's own id, never a client's x-request-id: like the caller, it is set here.
    const requestId = nextRequestId();
    const address = config.trustedProxies.length === 0
      ? peerAddress(info)
      : peerAddress(info, { headers: req.headers, trustedProxies: config.trustedProxies });
    if (!remote) {
      // In process: the request itself goes on, with the verified caller beside it.
      inProcessPasses.set(req, {
        caller,
        requestId,
        clientAddress: address.slice(0, MAX_ADDRESS_LENGTH),
      });
      return await handler(req);
    }
    return await handler(forwardRequest(req, {
      secret: config.base.internalSecret,
      callerHeader,
      requestId,
      clientAddress: address,
    }));
  };

  const app = new Hono();
  app.onError((err, c) => errorResponse(err, c, logger));
  app.use("*", securityHeaders());
  app.use("*", crossOriginForClients());

  app.get("/healthz", async (c) => {
    const ready = await allServicesReady(directory, config.base.internalSecret);
    return ready ? c.json({ status: "ok" }) : c.json({ status: "starting" }, 503);
  });

  app.get(OPENAPI_PATH, async (c) => c.json(await mergedOpenApi(directory, internal)));
  app.route("/", apiDocsRoutes(OPENAPI_PATH));

  if (extraRoutes) app.route("/", extraRoutes);
  app.all("*", (c) => route(c.req.raw, c.env as Deno.ServeHandlerInfo, rawPath(c.req.url)));

  /** The paths the Hono app answers, or whose answers need its cross-origin headers. */
  const answeredByApp = (path: string) =>
    path === "/healthz" || path === OPENAPI_PATH || underPath(path, DOCS_PATH) ||
    path.startsWith(FILE_ROUTE_PREFIX) || crossOriginPolicyFor(path) !== null;

  const fetch = async (req: Request, info?: Deno.ServeHandlerInfo): Promise<Response> => {
    const path = rawPath(req.url);
    if (answeredByApp(path)) return await app.fetch(req, info);
    let res: Response;
    try {
      res = await route(req, info, path);
    } catch (err) {
      res = plainErrorResponse(err, req, path, logger);
    }
    return withSecurityHeaders(res, path);
  };

  return {
    fetch,
    /** A request to a path of this gateway, without a socket (tools and tests). */
    request: (path: string, init?: RequestInit) =>
      fetch(new Request(new URL(path, "http://localhost"), init)),
  };
}

/**
 * The token of an `Authorization: Bearer <token>` header (the scheme in any case, then
 * whitespace, then one word), or null.
 */
export function bearerToken(authorization: string | null): string | null {
  if (!authorization || authorization.length < 8) return null;
  if (authorization.slice(0, 6).toLowerCase() !== "bearer") return null;
  let start = 6;
  while (start < authorization.length && WHITESPACE.test(authorization[start])) start++;
  if (start === 6 || start === authorization.length) return null;
  const token = authorization.slice(start);
  // A space or tab within is not one word; any other character outside base64url and the dots
  // fails the signature check.
  return token.includes(" ") || token.includes("\t") ? null : token;
}
const WHITESPACE = /\s/;

/**
 * The path of an absolute URL as `new URL(url).pathname` reads it (still percent-encoded), for
 * the URLs Deno.serve hands over, without parsing the whole URL.
 */
export function rawPath(url: string): string {
  const start = url.indexOf("/", url.indexOf("//") + 2);
  if (start < 0) return "/";
  let end = url.length;
  for (let i = start; i < url.length; i++) {
    const ch = url.charCodeAt(i);
    if (ch === 63 /* ? */ || ch === 35 /* # */) {
      end = i;
      break;
    }
  }
  return url.slice(start, end);
}

function underPath(path: string, prefix: string): boolean {
  return path === prefix || (path.startsWith(prefix) && path.charCodeAt(prefix.length) === 47);
}

/** The request ids the gateway gives every routed request: unique within the process. */
const REQUEST_ID_PREFIX = crypto.randomUUID().slice(0, 8);
let requestCount = 0;
function nextRequestId(): string {
  return `${REQUEST_ID_PREFIX}-${(++requestCount).toString(36)}`;
}

/** The error mapping of `errorResponse`, for a routed request that threw. */
function plainErrorResponse(err: unknown, req: Request, path: string, logger: Logger): Response {
  if (err instanceof AppError) {
    return Response.json({ error: err.message }, {
      status: err.status,
      headers: errorHeaders(err),
    });
  }
  logger.error("unhandled error", { method: req.method, path, error: errorMessage(err) });
  return Response.json({ error: "Internal server error" }, { status: 500 });
}

/**
 * The latest moment a token may have been issued (its `iat` rounded up to the second), read
 * without verification: the token was verified already.
 */
function issuedAtMs(token: string): number {
  try {
    const iat = decodeJwt(token).iat;
    return typeof iat === "number" ? iat * 1000 + 1000 : Date.now();
  } catch {
    return Date.now();
  }
}

/**
 * The request as a service deployed apart sees it: the client's identity headers removed, ours
 * set, the request id included. (A WebSocket upgrade to such a service never gets here:
 * websocket_proxy.ts relays it.)
 */
function forwardRequest(
  req: Request,
  opts: { secret: string; callerHeader: string | null; requestId: string; clientAddress: string },
): Request {
  const headers = new Headers(req.headers);
  for (const h of STRIPPED_HEADERS) headers.delete(h);
  headers.set(INTERNAL_SECRET_HEADER, opts.secret);
  headers.set(REQUEST_ID_HEADER, opts.requestId);
  headers.set(CLIENT_ADDRESS_HEADER, opts.clientAddress);
  if (opts.callerHeader) headers.set(CALLER_HEADER, opts.callerHeader);
  const hasBody = req.method !== "GET" && req.method !== "HEAD";
  return new Request(req.url, {
    method: req.method,
    headers,
    body: hasBody ? req.body : undefined,
    redirect: "manual",
  });
}

async function allServicesReady(directory: ServiceDirectory, secret: string): Promise<boolean> {
  const names = SERVICE_NAMES.filter((n) => directory.has(n));
  if (names.length === 0) return false;
  const answers = await Promise.all(names.map(async (name) => {
    try {
      const res = await new InternalClient(name, directory.handler(name), secret).request(
        "GET",
        "/internal/health",
      );
      await res.body?.cancel();
      return res.ok;
    } catch {
      return false;
    }
  }));
  return answers.every(Boolean);
}

type OpenApiDoc = {
  paths?: Record<string, unknown>;
  components?: Record<string, Record<string, unknown>>;
};

const BEARER_CHALLENGE_HEADER = {
  description: '`Bearer resource_metadata="<the resource\'s RFC 9728 metadata URL>"`, with ' +
    '`error="invalid_token"` when a token was sent: where a client finds the authorization server',
  schema: { type: "string" },
};

async function mergedOpenApi(
  directory: ServiceDirectory,
  internal: (name: ServiceName) => InternalClient,
) {
  const merged = {
    openapi: "3.1.0",
    info: {
      title: "Content Pipeline Service",
      version: "1.0.0",
      description: 'REST API of the Content Pipeline Service. Errors are `{"error": message}`. ' +
        "Authenticate with `Authorization: Bearer <access token>`.",
    },
    paths: {} as Record<string, unknown>,
    components: {
      securitySchemes: {
        bearer: { type: "http", scheme: "bearer", bearerFormat: "JWT" },
      },
      schemas: {} as Record<string, unknown>,
    } as Record<string, Record<string, unknown>>,
  };
  for (const name of SERVICE_NAMES) {
    if (!directory.has(name)) continue;
    try {
      const res = await internal(name).request("GET", "/internal/openapi.json");
      if (!res.ok) {
        await res.body?.cancel();
        continue;
      }
      const doc = await res.json() as OpenApiDoc;
      Object.assign(merged.paths, doc.paths ?? {});
      for (const [kind, entries] of Object.entries(doc.components ?? {})) {
        merged.components[kind] = { ...merged.components[kind], ...entries };
      }
    } catch {
      // A service that cannot answer is left out of the document rather than failing it.
    }
  }
  documentTokenRefusals(merged.paths);
  documentBodyRefusals(merged.paths);
  return merged;
}

/**
 * Every operation that takes a bearer token lists the gateway's 401 (it refuses a missing,
 * invalid or expired token before any service sees the request), whether or not its service
 * wrote it down, with the `WWW-Authenticate` challenge that names the resource's metadata.
 */
function documentTokenRefusals(paths: Record<string, unknown>) {
  for (const item of Object.values(paths)) {
    for (const op of Object.values(item as Record<string, unknown>)) {
      if (!op || typeof op !== "object") continue;
      const operation = op as {
        security?: Record<string, unknown>[];
        responses?: Record<string, unknown>;
      };
      if (!operation.security?.some((s) => "bearer" in s)) continue;
      operation.responses ??= {};
      const refusal = (operation.responses["401"] ??= {
        description: "Missing, invalid or expired access token",
        content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } },
      }) as { headers?: Record<string, unknown> };
      refusal.headers ??= {};
      refusal.headers["WWW-Authenticate"] = BEARER_CHALLENGE_HEADER;
    }
  }
}

/**
 * Every operation that takes a body lists the refusals of any body: 413 beyond 1 MiB (every
 * service's limit) and 415 for a media type the operation does not take (the gateway's
 * JSON-only rule under `/api/`, the services' own elsewhere).
 */
function documentBodyRefusals(paths: Record<string, unknown>) {
  const error = { "application/json": { schema: { $ref: "#/components/schemas/Error" } } };
  for (const item of Object.values(paths)) {
    for (const op of Object.values(item as Record<string, unknown>)) {
      const operation = op as { requestBody?: unknown; responses?: Record<string, unknown> };
      if (!operation?.requestBody || !operation.responses) continue;
      operation.responses["413"] ??= {
        description: "Request body is larger than 1 MiB",
        content: error,
      };
      operation.responses["415"] ??= {
        description: "The body's Content-Type is not the one the operation takes",
        content: error,
      };
    }
  }
}
