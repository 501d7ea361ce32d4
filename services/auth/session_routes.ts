import { createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { AppError } from "../../shared/http/app_error.ts";
import { bearer, body, err, json, retryAfter, tooMany } from "../../shared/http/openapi.ts";
import type { ServiceApp, ServiceEnv } from "../../shared/http/service_app.ts";
import { clientAddress } from "../../shared/http/client_address.ts";
import { type Accounts, INVALID_REFRESH } from "./accounts.ts";
import { refreshTokenOf, setRefreshCookie, setSvcTokenCookie } from "./cookies.ts";
import { exchangeCode, refreshSession, type SessionTokens, signIn } from "./operations.ts";
import {
  callbackBodySchema,
  callbackResponseSchema,
  loginBodySchema,
  meSchema,
  refreshBodySchema,
  ticketSchema,
  tokenResponseSchema,
  type UserRecord,
} from "./schemas.ts";

/** Refresh and logout: `refresh_token` in the body, or else the `cp_refresh` cookie. */
const refreshOrCookieSchema = refreshBodySchema.partial().openapi("RefreshRequest");
const refreshCookie = z.object({
  cp_refresh: z.string().optional().openapi({
    description: "The web app's refresh token (HttpOnly, Path=/api/auth), used when the body " +
      "has no `refresh_token`",
  }),
});
const refreshResponseSchema = tokenResponseSchema.partial({ refresh_token: true })
  .openapi("RefreshResponse");

/** The caller the gateway verified; 401 `no sub` without one. */
function verifiedCaller(c: Context<ServiceEnv>) {
  const caller = c.get("caller");
  if (!caller?.user_id) throw new AppError(401, "no sub");
  return caller;
}

/** The web app's answer: the refresh token goes in the `cp_refresh` cookie, not the JSON. */
function withRefreshCookie(
  c: Context<ServiceEnv>,
  { refresh_token, ...tokens }: SessionTokens,
  secure: boolean,
) {
  setRefreshCookie(c, refresh_token, secure);
  c.header("cache-control", "no-store");
  return c.json(tokens, 200);
}

/**
 * Sessions: sign-in (`login`, and `callback` for the hosted login's code), `refresh`, `logout`,
 * the caller's profile (`GET /api/auth/me`) and WebSocket tickets (`POST /api/ws/ticket`).
 */
export function mountSessionRoutes(app: ServiceApp, accounts: Accounts): void {
  const { store, config } = accounts.deps;
  const secure = config.secureCookie;

  app.openapi(
    createRoute({
      method: "post",
      path: "/api/auth/login",
      tags: ["Auth"],
      summary: "Sign in with email and password",
      request: body(loginBodySchema),
      responses: {
        200: json(tokenResponseSchema, "Tokens"),
        400: err("email or password missing"),
        401: err("Invalid email or password"),
        403: err("Email not confirmed, or account disabled or rejected"),
        429: tooMany(
          "Too many login tries in 15 minutes for this account from this address (10, or 3 once the account has had 100 tries from all addresses), or from this address (50)",
        ),
        503: {
          ...err("Too many sign-ins are being checked at once; try again shortly"),
          headers: retryAfter("1: the sign-ins queued ahead are checked by then"),
        },
      },
    }),
    async (c) => {
      const { email, password } = c.req.valid("json");
      return c.json(await signIn(accounts, email, password, clientAddress(c)), 200);
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/api/auth/refresh",
      tags: ["Auth"],
      summary: "Exchange a refresh token for new tokens (rotation)",
      description: "The refresh token comes in the body or, when the body has none, in the " +
        "`cp_refresh` cookie; with the cookie the new token is set in the cookie, not the body. " +
        "The script-readable `cp_session=1` marker (Path=/) is set and cleared with " +
        "`cp_refresh`, so the web app only asks for a refresh when there is a cookie to use.",
      request: { ...body(refreshOrCookieSchema), cookies: refreshCookie },
      responses: {
        200: json(refreshResponseSchema, "New tokens and a new refresh token"),
        400: err("refresh_token missing from both the body and the cookie"),
        401: err(
          "Unknown, used or expired refresh token (a reused one revokes its family), or its " +
            "account is disabled or rejected",
        ),
      },
    }),
    async (c) => {
      const { token, fromCookie } = refreshTokenOf(c, c.req.valid("json"), secure);
      const outcome = await refreshSession(accounts, token);
      if (outcome.kind === "refused") {
        if (fromCookie) setRefreshCookie(c, "", secure);
        throw new AppError(401, INVALID_REFRESH);
      }
      if (!fromCookie) return c.json(outcome.tokens, 200);
      return withRefreshCookie(c, outcome.tokens, secure);
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/api/auth/logout",
      tags: ["Auth"],
      summary: "Sign this session out: revoke its refresh token family and access tokens",
      description: "The refresh token comes in the body or, when the body has none, in the " +
        "`cp_refresh` cookie; the cookie (and the `cp_session` marker) is cleared either way. " +
        "The access tokens and " +
        "WebSocket tickets of that session (its refresh family) are refused within seconds; " +
        "the account's other sessions go on.",
      request: { ...body(refreshOrCookieSchema), cookies: refreshCookie },
      responses: {
        204: { description: "Revoked (also when the token was unknown)" },
        400: err("refresh_token missing from both the body and the cookie"),
      },
    }),
    async (c) => {
      const { token } = refreshTokenOf(c, c.req.valid("json"), secure);
      await store.sessions.revokeRefreshToken(token);
      setRefreshCookie(c, "", secure);
      return c.body(null, 204);
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/api/auth/callback",
      tags: ["Auth"],
      summary: "Exchange an authorization code from the hosted login for tokens",
      request: body(callbackBodySchema),
      responses: {
        200: {
          ...json(
            callbackResponseSchema,
            "Tokens; also sets the `svc_token` cookie to the id token and the " +
              "HttpOnly `cp_refresh` cookie (Path=/api/auth) to a new refresh token, with " +
              "the script-readable `cp_session=1` marker beside it",
          ),
          headers: { "Set-Cookie": { schema: { type: "string" } } },
        },
        400: err(
          "code or redirect_uri missing; code unknown, used or expired; redirect_uri or PKCE mismatch",
        ),
        403: err("Account disabled or rejected"),
      },
    }),
    async (c) => {
      const tokens = await exchangeCode(accounts, c.req.valid("json"));
      setSvcTokenCookie(c, tokens.id_token, secure);
      return withRefreshCookie(c, tokens, secure);
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/api/auth/me",
      tags: ["Auth"],
      summary: "The caller's own profile (status read live)",
      security: bearer,
      responses: {
        200: json(meSchema, "Profile"),
        401: err("No sub in the token"),
        404: err("No profile for this user"),
      },
    }),
    async (c) => {
      const user = await store.users.getUser(verifiedCaller(c).user_id);
      if (!user) throw new AppError(404, "User not found");
      return c.json(meOf(user), 200);
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/api/ws/ticket",
      tags: ["Auth"],
      summary: "Mint a WebSocket ticket (valid 1 minute, opens one socket)",
      description: "The ticket opens one socket (`/ws?ticket=...`) within a minute: mint a new " +
        "one for every connect and reconnect. It is refused once the account is disabled or " +
        "rejected, its sessions are revoked (password reset), or the session of the access " +
        "token that minted it has logged out.",
      security: bearer,
      responses: {
        200: json(ticketSchema, "A UUID v4 ticket"),
        401: err("No sub in the token"),
      },
    }),
    async (c) => {
      const { user_id, role, approved, sid } = verifiedCaller(c);
      const ticket = await store.grants.createWsTicket({
        user_id,
        role,
        approved,
        sid: sid ?? null,
      });
      return c.json({ ticket }, 200);
    },
  );
}

/** The caller's own profile as `GET /api/auth/me` answers it. */
export function meOf(user: UserRecord) {
  return {
    user_id: user.user_id,
    email: user.email,
    name: user.name,
    role: user.role,
    status: user.approved && user.status !== "rejected" ? "approved" as const : "pending" as const,
    created_at: user.created_at,
    updated_at: user.updated_at,
    timezone: user.timezone ?? null,
  };
}
