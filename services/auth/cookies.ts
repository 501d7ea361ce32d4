import type { Context } from "hono";
import { getCookie, setCookie } from "hono/cookie";
import { AppError } from "../../shared/http/app_error.ts";
import type { ServiceEnv } from "../../shared/http/service_app.ts";
import { REFRESH_TOKEN_TTL_MS } from "./store.ts";
import { TOKEN_TTL_SECONDS } from "./tokens.ts";

/** The web app's refresh token cookie: out of reach of scripts, sent only to /api/auth. */
export const REFRESH_COOKIE = "cp_refresh";

/**
 * Set and cleared with `cp_refresh`: a marker the web app's script can read, which says only
 * that a refresh cookie was set (its value is "1", nothing secret). The app asks for a refresh
 * at start-up only when it is there, so a signed-out visit makes no request that fails.
 */
export const SESSION_MARKER_COOKIE = "cp_session";

/** Sets `cp_refresh=<token>` and the session marker; an empty token clears both. */
export function setRefreshCookie(c: Context<ServiceEnv>, token: string, secure: boolean): void {
  const maxAge = token ? Math.floor(REFRESH_TOKEN_TTL_MS / 1000) : 0;
  setCookie(c, REFRESH_COOKIE, token, {
    httpOnly: true,
    secure,
    sameSite: "Strict",
    path: "/api/auth",
    maxAge,
  });
  setCookie(c, SESSION_MARKER_COOKIE, token ? "1" : "", {
    httpOnly: false,
    secure,
    sameSite: "Strict",
    path: "/",
    maxAge,
  });
}

/**
 * Sets `svc_token=<id token>` in the spec's own words (`HttpOnly; Secure; SameSite=Strict;
 * Path=/; Max-Age=<expires_in>`, Secure left out for STAGE=dev): written out rather than
 * through `setCookie`, whose attribute order differs from the string the spec gives.
 */
export function setSvcTokenCookie(c: Context<ServiceEnv>, idToken: string, secure: boolean): void {
  c.header(
    "set-cookie",
    `svc_token=${idToken}; HttpOnly;${
      secure ? " Secure;" : ""
    } SameSite=Strict; Path=/; Max-Age=${TOKEN_TTL_SECONDS}`,
    { append: true },
  );
}

/**
 * The body's refresh token, else the cookie's (the web app); 400 naming the field without,
 * clearing the cookies (a session marker left without its refresh cookie is stale).
 */
export function refreshTokenOf(
  c: Context<ServiceEnv>,
  body: { refresh_token?: string },
  secure: boolean,
): { token: string; fromCookie: boolean } {
  if (body.refresh_token) return { token: body.refresh_token, fromCookie: false };
  const cookie = getCookie(c, REFRESH_COOKIE);
  if (cookie && cookie.length <= 512) return { token: cookie, fromCookie: true };
  if (getCookie(c, SESSION_MARKER_COOKIE) !== undefined) setRefreshCookie(c, "", secure);
  throw new AppError(400, "refresh_token is required");
}
