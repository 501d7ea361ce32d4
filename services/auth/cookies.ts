import type { Context } from "hono";
import { getCookie, setCookie } from "hono/cookie";
import { AppError } from "../../shared/http/app_error.ts";
import type { ServiceEnv } from "../../shared/http/service_app.ts";
import { REFRESH_TOKEN_TTL_MS } from "./store.ts";
import { TOKEN_TTL_SECONDS } from "./tokens.ts";

/** The web app's refresh token cookie: out of reach of scripts, sent only to /api/auth. */
export const REFRESH_COOKIE = "cp_refresh";

/** Sets `cp_refresh=<token>`; an empty token clears the cookie. */
export function setRefreshCookie(c: Context<ServiceEnv>, token: string, secure: boolean): void {
  setCookie(c, REFRESH_COOKIE, token, {
    httpOnly: true,
    secure,
    sameSite: "Strict",
    path: "/api/auth",
    maxAge: token ? Math.floor(REFRESH_TOKEN_TTL_MS / 1000) : 0,
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

/** The body's refresh token, else the cookie's (the web app); 400 naming the field without. */
export function refreshTokenOf(
  c: Context<ServiceEnv>,
  body: { refresh_token?: string },
): { token: string; fromCookie: boolean } {
  if (body.refresh_token) return { token: body.refresh_token, fromCookie: false };
  const cookie = getCookie(c, REFRESH_COOKIE);
  if (cookie && cookie.length <= 512) return { token: cookie, fromCookie: true };
  throw new AppError(400, "refresh_token is required");
}
