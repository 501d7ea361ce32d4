/**
 * The standard OAuth endpoints beside the hosted login, for clients that find their way by
 * discovery (an MCP client given only the server's URL): dynamic client registration
 * (RFC 7591, public clients) and the token endpoint (RFC 6749, form-encoded, with PKCE). Their
 * refusals are OAuth errors, `{"error": <code>, "error_description": <why>}`.
 */
import { createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import type { ZodError } from "zod";
import { AppError, errorHeaders } from "../../shared/http/app_error.ts";
import { clientAddress } from "../../shared/http/client_address.ts";
import { json, retryAfterHeader } from "../../shared/http/openapi.ts";
import {
  describeZodError,
  type ServiceApp,
  type ServiceEnv,
} from "../../shared/http/service_app.ts";
import type { Accounts } from "./accounts.ts";
import {
  clientMetadataSchema,
  type OAuthClient,
  type OAuthClients,
  registeredClientSchema,
} from "./oauth_clients.ts";
import { exchangeCode, refreshSession, type SigningClient } from "./operations.ts";

export const oauthErrorSchema = z.object({
  error: z.string().openapi({ description: "The OAuth error code (`invalid_grant`...)" }),
  error_description: z.string(),
}).openapi("OAuthError");

const oauthError = (description: string) => json(oauthErrorSchema, description);

/**
 * A refusal in the OAuth error format (RFC 6749 5.2, RFC 7591 3.2.2), thrown: the service's
 * error mapping answers an HTTPException that carries its own response with that response.
 */
function oauthRefusal(
  status: 400 | 401 | 429,
  code: string,
  description: string,
  extraHeaders: Record<string, string> = {},
) {
  const headers: Record<string, string> = { "cache-control": "no-store", ...extraHeaders };
  if (status === 401) headers["www-authenticate"] = 'Basic realm="oauth"';
  const body = { error: code, error_description: description };
  return new HTTPException(status, { res: Response.json(body, { status, headers }) });
}

const clientId = z.string({ error: "client_id is required" }).min(1, "client_id is required")
  .max(200, "client_id is too long");
const resource = z.url({ error: "resource must be an absolute URL" }).max(2000).optional()
  .openapi({ description: "RFC 8707: the address of this service the token is for" });

const authorizationCodeGrant = z.object({
  grant_type: z.literal("authorization_code"),
  code: z.string({ error: "code is required" }).min(1, "code is required").max(512),
  redirect_uri: z.string({ error: "redirect_uri is required" }).min(1, "redirect_uri is required")
    .max(2000),
  // RFC 7636 4.1: 43 to 128 unreserved characters.
  code_verifier: z.string({ error: "code_verifier is required" }).regex(
    /^[A-Za-z0-9\-._~]{43,128}$/,
    "code_verifier must be 43 to 128 unreserved characters (RFC 7636)",
  ),
  client_id: clientId,
  resource,
}).openapi("AuthorizationCodeGrant");

const refreshTokenGrant = z.object({
  grant_type: z.literal("refresh_token"),
  refresh_token: z.string({ error: "refresh_token is required" }).min(
    1,
    "refresh_token is required",
  ).max(512),
  client_id: clientId,
  resource,
}).openapi("RefreshTokenGrant");

const tokenRequestSchema = z.discriminatedUnion("grant_type", [
  authorizationCodeGrant,
  refreshTokenGrant,
], { error: "grant_type must be authorization_code or refresh_token" });

const oauthTokenSchema = z.object({
  access_token: z.string(),
  token_type: z.literal("Bearer"),
  expires_in: z.number().int(),
  refresh_token: z.string(),
  id_token: z.string().optional().openapi({ description: "Only for the first-party client" }),
}).openapi("OAuthToken");

/** A registration its schema refuses: `invalid_redirect_uri` or `invalid_client_metadata`. */
function refusedRegistration(error: ZodError): never {
  const field = String(error.issues[0]?.path[0] ?? "");
  const code = field === "redirect_uris" ? "invalid_redirect_uri" : "invalid_client_metadata";
  throw oauthRefusal(400, code, describeZodError(error));
}

/**
 * A token request its schema refuses: `unsupported_grant_type` for a grant type given but not
 * served, else `invalid_request`.
 */
async function refusedTokenRequest(error: ZodError, c: Context<ServiceEnv>): Promise<never> {
  const field = String(error.issues[0]?.path[0] ?? "");
  const given = (await c.req.parseBody())["grant_type"];
  const unsupported = field === "grant_type" && typeof given === "string" && given !== "";
  const code = unsupported ? "unsupported_grant_type" : "invalid_request";
  throw oauthRefusal(400, code, describeZodError(error));
}

/** `POST /oauth/register` and `POST /oauth/token`. */
export function mountOAuthRoutes(app: ServiceApp, accounts: Accounts, clients: OAuthClients) {
  app.openapi(
    createRoute({
      method: "post",
      path: "/oauth/register",
      tags: ["OAuth"],
      summary: "Register an OAuth client (RFC 7591 dynamic registration; public clients only)",
      description: "Every client registered here is public: no secret, " +
        "`token_endpoint_auth_method` `none`, PKCE S256 on every authorization. A registration " +
        "that completes no sign-in within 24 hours is dropped. At most 20 registrations an " +
        "hour from one address.",
      request: {
        body: { content: { "application/json": { schema: clientMetadataSchema } }, required: true },
      },
      responses: {
        201: json(registeredClientSchema, "The registered client"),
        400: oauthError("`invalid_redirect_uri` or `invalid_client_metadata`"),
        429: {
          ...oauthError("Too many registrations from this address"),
          headers: retryAfterHeader,
        },
      },
    }),
    async (c) => {
      try {
        const registered = await clients.register(c.req.valid("json"), clientAddress(c));
        c.header("cache-control", "no-store");
        return c.json(registered, 201);
      } catch (err) {
        if (!(err instanceof AppError) || err.status !== 429) throw err;
        throw oauthRefusal(429, "slow_down", err.message, errorHeaders(err));
      }
    },
    (result) => result.success ? undefined : refusedRegistration(result.error),
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/oauth/token",
      tags: ["OAuth"],
      summary: "The token endpoint (RFC 6749): a code with its PKCE verifier, or a refresh token",
      description: "Form-encoded. `authorization_code` exchanges a code of the hosted login " +
        "(`/oauth/authorize`) once, with the `redirect_uri` and `client_id` it was issued for " +
        "and the PKCE verifier of its challenge; `refresh_token` rotates a refresh token (the " +
        "old one stops working; one used twice ends its session). A session's refresh tokens " +
        "are good only for the client it was signed in through.",
      request: {
        body: {
          content: { "application/x-www-form-urlencoded": { schema: tokenRequestSchema } },
          required: true,
        },
      },
      responses: {
        200: json(oauthTokenSchema, "Tokens"),
        400: oauthError(
          "`invalid_request`, `unsupported_grant_type`, `invalid_grant` (code or refresh token unknown, used, expired, or issued to another client or redirect URI; PKCE mismatch; account disabled or rejected) or `invalid_target`",
        ),
        401: oauthError("`invalid_client`: the client_id is neither ours nor registered"),
      },
    }),
    async (c) => {
      const grant = c.req.valid("form");
      const client = await clients.find(grant.client_id);
      if (!client) throw oauthRefusal(401, "invalid_client", "Unknown client_id");
      if (grant.resource !== undefined && !clients.servesResource(grant.resource)) {
        throw oauthRefusal(400, "invalid_target", "resource is not an address of this service");
      }
      const signing: SigningClient = { client_id: client.first_party ? null : client.client_id };
      const tokens = await grantTokens(grant, signing);
      if (!client.first_party) await accounts.deps.store.clients.keep(client.client_id);
      c.header("cache-control", "no-store");
      c.header("pragma", "no-cache");
      return c.json(tokenAnswer(tokens, client), 200);
    },
    (result, c) => result.success ? undefined : refusedTokenRequest(result.error, c),
  );

  /**
   * The grant's tokens; its refusals (an unknown, used or expired code or refresh token, a
   * mismatch, an unusable account) as `invalid_grant`, a resource mismatch as `invalid_target`.
   */
  async function grantTokens(grant: z.infer<typeof tokenRequestSchema>, client: SigningClient) {
    try {
      if (grant.grant_type === "authorization_code") {
        return await exchangeCode(accounts, grant, client);
      }
      const outcome = await refreshSession(accounts, grant.refresh_token, client);
      if (outcome.kind === "refreshed") return outcome.tokens;
      throw new AppError(400, "Invalid or expired refresh token");
    } catch (err) {
      if (err instanceof AppError && [400, 401, 403].includes(err.status)) {
        const code = /resource/.test(err.message) ? "invalid_target" : "invalid_grant";
        throw oauthRefusal(400, code, err.message);
      }
      throw err;
    }
  }
}

/** The token answer: the id token only for the first-party client (its audience). */
function tokenAnswer(
  tokens: { access_token: string; id_token: string; refresh_token: string; expires_in: number },
  client: OAuthClient,
) {
  return {
    access_token: tokens.access_token,
    token_type: "Bearer" as const,
    expires_in: tokens.expires_in,
    refresh_token: tokens.refresh_token,
    ...(client.first_party ? { id_token: tokens.id_token } : {}),
  };
}
