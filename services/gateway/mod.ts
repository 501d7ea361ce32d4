import { type Context, Hono } from "hono";
import { decodeJwt, type JSONWebKeySet } from "jose";
import type { ServiceName } from "../../shared/config.ts";
import { SERVICE_NAMES } from "../../shared/config.ts";
import { AccessCache, effectiveRole, tokenSessionLive } from "../../shared/http/access_cache.ts";
import { AppError } from "../../shared/http/app_error.ts";
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
  peerAddress,
  recordClientAddress,
} from "../../shared/http/client_address.ts";
import { errorResponse } from "../../shared/http/service_app.ts";
import { apiDocsRoutes } from "../../shared/http/api_docs.ts";
import { bearerChallenge } from "../../shared/http/protected_resource.ts";
import { refuseNonJsonBody, securityHeaders } from "../../shared/http/security_headers.ts";
import { InternalClient } from "../../shared/service/internal_client.ts";
import type { Logger } from "../../shared/log.ts";
import type { FetchHandler, ServiceDirectory } from "../../shared/service/service_directory.ts";
import { AuthClient } from "../auth/client.ts";
import type { GatewayConfig } from "./config.ts";
import { resolveRoute, type RouteTarget } from "./routing.ts";
import { TokenVerifier } from "./token_verifier.ts";
import { createWebSocketProxy } from "./websocket_proxy.ts";
import { crossOriginForClients } from "./cors.ts";

export interface GatewayOptions {
  config: GatewayConfig;
  directory: ServiceDirectory;
  logger: Logger;
  /** Extra routes the gateway itself answers (the presigned asset routes), mounted first. */
  extraRoutes?: Hono;
}

const STRIPPED_HEADERS = [INTERNAL_SECRET_HEADER, CALLER_HEADER, CLIENT_ADDRESS_HEADER];

/** What the gateway's steps learn about a request as it passes them. */
interface Passage {
  target: RouteTarget;
  /** the owning service's URL when it runs apart, else null (in process) */
  remote: string | null;
  caller: Caller | null;
  callerHeader: string | null;
}
/**
 * One step of the chain every routed request passes: a refusal ends it, null goes on. Plain
 * functions called in order rather than Hono middleware: on the hot path, Hono's composition
 * of five handlers cost about an eighth of the gateway's throughput (bench:api).
 */
type Step = (c: Context, passage: Passage) => Promise<Response | null> | Response | null;

/**
 * The one public entry: verifies the JWT once (signature, exp, iss, aud), enforces approval,
 * strips any identity a client sent, and forwards to the owning service with the internal
 * secret and the verified caller. `/internal/*` is never routed.
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

  /** Which service owns the path and what its caller must prove (404 for no route). */
  const resolveTarget = (c: Context): Passage | Response => {
    const url = new URL(c.req.url);
    const target = resolveRoute(c.req.method, url.pathname);
    if (!target) return c.json({ error: `No route for ${c.req.method} ${url.pathname}` }, 404);
    if (!directory.has(target.service)) {
      return c.json({ error: `The ${target.service} service is not available` }, 503);
    }
    const remote = directory.remoteUrl(target.service) ?? null;
    return { target, remote, caller: null, callerHeader: null };
  };

  /** A WebSocket upgrade to a service deployed apart: relayed once that service admits it. */
  const relaySocket: Step = async (c, { remote }) => {
    if (remote && c.req.header("upgrade")?.toLowerCase() === "websocket") {
      return await proxyWebSocket(c.req.raw, remote);
    }
    return null;
  };

  /**
   * The caller, unless the route is public: a verified access token (of an approved account
   * unless the route is `/api/auth/*`), held to the account's and the session's live state.
   */
  const authenticate: Step = async (c, passage) => {
    const { target } = passage;
    if (target.access === "public") return null;
    const authorization = c.req.header("authorization");
    const match = /^Bearer\s+(\S+)$/i.exec(authorization ?? "");
    // Every 401 names the resource's metadata, where a client finds the authorization server.
    const unauthorized = () =>
      c.json({ error: "Unauthorized" }, 401, {
        "www-authenticate": bearerChallenge(
          config.base.publicUrl,
          new URL(c.req.url).pathname,
          authorization !== undefined,
        ),
      });
    const verified = match ? await verifier.verify(match[1]) : null;
    if (!verified) return unauthorized();
    if (target.access === "approved" && !verified.caller.approved) return unauthorized();
    let callerHeader = verified.header;
    let caller = verified.caller;
    // An account unknown to auth (only after a wipe or a restore that remapped ids) keeps
    // its token's claims, as before; a known one is held to its live state.
    const sid = caller.sid;
    let live = await access.get(caller.user_id, { sid });
    if (live?.active && effectiveRole(caller.role, live.role) !== caller.role) {
      // Rare: the token's role is above the cached live one. Either a demotion (keep it) or
      // a promotion newer than the cached answer: ask again unless the answer is newer.
      live = await access.get(caller.user_id, { sid, fetchedAfter: issuedAtMs(match![1]) });
    }
    if (live && (!live.active || !tokenSessionLive(live, { sid, iat: verified.iat }))) {
      return unauthorized();
    }
    const role = live ? effectiveRole(caller.role, live.role) : caller.role;
    if (role !== caller.role) {
      // Demoted since the token was issued: services see the lower role at once.
      caller = { ...caller, role };
      callerHeader = encodeCaller(caller);
    }
    passage.caller = caller;
    passage.callerHeader = callerHeader;
    return null;
  };

  /** 415 for a body that is not JSON, unless the route authenticates its caller itself. */
  const requireJsonBody: Step = (c, { target }) =>
    target.selfAuthenticating ? null : refuseNonJsonBody(c);

  /** Hands the request to its service: in process with the caller beside it, else over HTTP. */
  const forward = async (c: Context, passage: Passage): Promise<Response> => {
    const req = c.req.raw;
    const { remote } = passage;
    const requestId = req.headers.get(REQUEST_ID_HEADER) ?? crypto.randomUUID();
    const handler: FetchHandler = directory.handler(passage.target.service);
    const forwardedFor = { headers: req.headers, trustedProxies: config.trustedProxies };
    if (!remote) {
      // In process: the request itself goes on, with the verified caller beside it.
      inProcessPasses.set(req, { caller: passage.caller, requestId });
      recordClientAddress(req, peerAddress(c.env, forwardedFor));
      return await handler(req);
    }
    const forwarded = forwardRequest(req, {
      secret: config.base.internalSecret,
      callerHeader: passage.callerHeader,
      requestId,
      clientAddress: peerAddress(c.env, forwardedFor),
    });
    return await handler(forwarded);
  };

  const steps: Step[] = [relaySocket, authenticate, requireJsonBody];

  const app = new Hono();
  app.onError((err, c) => errorResponse(err, c, logger));
  app.use("*", securityHeaders());
  app.use("*", crossOriginForClients());

  app.get("/healthz", async (c) => {
    const ready = await allServicesReady(directory, config.base.internalSecret);
    return ready ? c.json({ status: "ok" }) : c.json({ status: "starting" }, 503);
  });

  app.get("/api/openapi.json", async (c) => c.json(await mergedOpenApi(directory, internal)));
  app.route("/", apiDocsRoutes("/api/openapi.json"));

  if (extraRoutes) app.route("/", extraRoutes);

  // Every other request passes one chain: which service owns it, the socket relay, who the
  // caller is, the JSON-only body check, then the service.
  app.all("*", async (c) => {
    const passage = resolveTarget(c);
    if (passage instanceof Response) return passage;
    for (const step of steps) {
      const refused = await step(c, passage);
      if (refused) return refused;
    }
    return await forward(c, passage);
  });

  return app;
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
 * added. (A WebSocket upgrade to such a service never gets here: websocket_proxy.ts relays it.)
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
