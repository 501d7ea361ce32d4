import { createRoute, z } from "@hono/zod-openapi";
import type { AccessCache } from "../../shared/http/access_cache.ts";
import { AppError, badRequest, notFound, unauthorized } from "../../shared/http/app_error.ts";
import { bearer, body, err, json, tooMany } from "../../shared/http/openapi.ts";
import {
  bodyChecks,
  describeZodError,
  requireCaller,
  type ServiceApp,
} from "../../shared/http/service_app.ts";
import { refuseNonJsonBody } from "../../shared/http/security_headers.ts";
import { randomToken, sha256Hex } from "../../shared/crypto/ids.ts";
import type { IdeasDeps } from "./routes.ts";
import {
  captureBody,
  captureResultSchema,
  captureTokenBody,
  captureTokenListSchema,
  captureTokenSchema,
  deletedSchema,
  tokenIdParam,
} from "./schemas.ts";
import { MESSAGES } from "../../shared/http/messages.ts";

export const CAPTURE_HEADER = "X-Capture-Token";
export const CAPTURE_PATH = "/api/quick-capture";
/** 32 random bytes (256 bits), base64url: 43 characters. Anything far longer is not ours. */
const TOKEN_BYTES = 32;
const TOKEN_MAX_LENGTH = 512;

export const MISSING_TOKEN = "Missing X-Capture-Token header";
export const INVALID_TOKEN = "Invalid or revoked capture token";
export const TITLE_REQUIRED = "title is required";
export const TOKEN_NOT_FOUND = "Capture token not found";
export const tooManyCaptures = (limit: number, retryAfterSeconds: number) =>
  `Too many captures with this token: at most ${limit} a minute; try again in ` +
  `${retryAfterSeconds} s`;

export interface QuickCaptureOptions {
  /** The capture route's public address, handed out with every token. */
  captureUrl: string;
  /** Captures one token may make per minute; 0 turns the limit off. */
  capturesPerMinute: number;
  /** The token owner's live access state (auth), cached for at most 2 s. */
  access: AccessCache;
}

const tags = ["Quick capture"];

const createToken = createRoute({
  method: "post",
  path: "/api/quick-capture/token",
  tags,
  security: bearer,
  summary: "Create a capture token for a workspace (earlier tokens keep working)",
  request: body(captureTokenBody),
  responses: {
    201: json(captureTokenSchema, "The token (shown once) and the capture address"),
    400: err("workspace_id missing"),
    401: err("No caller identity"),
    403: err(MESSAGES.notMember),
    404: err("Workspace soft-deleted"),
  },
});

const deleteToken = createRoute({
  method: "delete",
  path: "/api/quick-capture/token",
  tags,
  security: bearer,
  summary: "Delete the caller's active capture token (older tokens keep working)",
  responses: {
    204: { description: "Deleted, or there was none" },
    401: err("No caller identity"),
  },
});

const listTokens = createRoute({
  method: "get",
  path: "/api/quick-capture/tokens",
  tags,
  security: bearer,
  summary: "List the caller's capture tokens, newest first (never the tokens themselves)",
  description: "Every token of the caller's that still works, in any workspace: when it was " +
    "created and last used (to the minute), and which one is the active one.",
  responses: {
    200: json(captureTokenListSchema, "The caller's tokens"),
    401: err("No caller identity"),
  },
});

const revokeToken = createRoute({
  method: "delete",
  path: "/api/quick-capture/tokens/{token_id}",
  tags,
  security: bearer,
  summary: "Revoke one of the caller's capture tokens: it stops working at once",
  request: { params: tokenIdParam },
  responses: {
    200: json(deletedSchema, "Revoked"),
    401: err("No caller identity"),
    404: err("Capture token not found (unknown, already revoked, or another user's)"),
  },
});

/**
 * Quick capture: POST /api/quick-capture (no JWT; `X-Capture-Token`) and the token routes.
 * The capture checks run in the documented order: header, token (which also stops working once
 * its user is disabled or rejected), the token's rate limit, membership, title.
 */
export function mountQuickCapture(
  app: ServiceApp,
  { store, workspaces, title: makeTitle }: IdeasDeps,
  { captureUrl, capturesPerMinute, access }: QuickCaptureOptions,
): void {
  const limitText = capturesPerMinute > 0
    ? ` Each token may capture at most ${capturesPerMinute} ideas a minute ` +
      "(`CAPTURES_PER_MINUTE`); beyond that the answer is 429."
    : "";
  app.openAPIRegistry.registerPath({
    method: "post",
    path: CAPTURE_PATH,
    tags,
    summary: "Capture an idea without login, with a capture token",
    description: "Creates an idea from `title` with a generated title. The token stops working " +
      "(401) once its user is disabled or rejected, and answers 403 once its user left the " +
      "workspace." + limitText,
    request: {
      headers: z.object({ "x-capture-token": z.string() }),
      ...body(captureBody),
    },
    responses: {
      201: json(captureResultSchema, "Captured"),
      400: err("title is required"),
      401: err("Header missing, or token unknown or revoked, or its user disabled or rejected"),
      403: err(MESSAGES.notMember),
      404: err("The token's workspace is soft-deleted"),
      429: tooMany("Too many captures with this token in this minute"),
    },
  });

  app.post(CAPTURE_PATH, async (c) => {
    const token = c.req.header(CAPTURE_HEADER)?.trim();
    if (!token) throw unauthorized(MISSING_TOKEN);
    if (token.length > TOKEN_MAX_LENGTH) throw unauthorized(INVALID_TOKEN);
    const tokenHash = await sha256Hex(token);
    const entry = await store.findCaptureTokenEntry(tokenHash);
    const record = entry.value;
    if (!record || record.revoked) throw unauthorized(INVALID_TOKEN);
    const owner = await access.get(record.user_id);
    if (owner && !owner.active) throw unauthorized(INVALID_TOKEN);
    // A use is any request the token itself lets through, so its owner sees a leaked token at
    // work even when the rate limit or the membership check refuses it.
    await store.touchCaptureToken(entry);
    const decision = await store.takeCapture(tokenHash, capturesPerMinute);
    if (!decision.allowed) {
      throw new AppError(429, tooManyCaptures(capturesPerMinute, decision.retryAfterSeconds), {
        retryAfterSeconds: decision.retryAfterSeconds,
      });
    }
    await workspaces.requireMember(record.workspace_id, record.user_id);
    // The gateway leaves this route's 415 to it, and the service app its body limit (413) and
    // string check (400), so that the checks above come first (CAPTURE_PATH in mod.ts).
    const refused = await refuseNonJsonBody(c.req.raw, c.req.path) ?? await bodyChecks(c);
    if (refused) return refused;
    const raw = await c.req.json().catch(() => null) as Record<string, unknown> | null;
    const title = raw && typeof raw === "object" ? raw.title : undefined;
    if (typeof title !== "string" || !title.trim()) throw badRequest(TITLE_REQUIRED);
    const parsed = captureBody.safeParse(raw);
    if (!parsed.success) throw new AppError(400, describeZodError(parsed.error));
    const generated = await makeTitle(parsed.data.title);
    const idea = await store.create({
      workspace_id: record.workspace_id,
      title: generated,
      description: parsed.data.title,
      tags: parsed.data.tags,
      source_url: "",
      created_by: record.user_id,
    });
    return c.json({ idea_id: idea.idea_id, status: "created" as const }, 201);
  });

  app.openapi(createToken, async (c) => {
    const caller = requireCaller(c);
    const { workspace_id } = c.req.valid("json");
    await workspaces.requireMember(workspace_id, caller.user_id);
    const token = randomToken(TOKEN_BYTES);
    const record = await store.createCaptureToken(
      await sha256Hex(token),
      workspace_id,
      caller.user_id,
    );
    return c.json({ token, api_url: captureUrl, token_id: record.token_id }, 201);
  });

  app.openapi(listTokens, async (c) => {
    const caller = requireCaller(c);
    const items = await store.listCaptureTokens(caller.user_id);
    return c.json({ items, count: items.length }, 200);
  });

  app.openapi(revokeToken, async (c) => {
    const caller = requireCaller(c);
    const { token_id } = c.req.valid("param");
    if (!await store.revokeCaptureToken(caller.user_id, token_id)) throw notFound(TOKEN_NOT_FOUND);
    return c.json({ deleted: true as const }, 200);
  });

  app.openapi(deleteToken, async (c) => {
    const caller = requireCaller(c);
    await store.deleteActiveCaptureToken(caller.user_id);
    return c.body(null, 204);
  });
}
