/**
 * What the hosted login's routes (authorize_routes.ts, google_routes.ts) share: checking the
 * OAuth parameters, the login-CSRF and Google-state cookies, the HTML page response and the
 * redirect that hands the client its authorization code.
 */
import { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { getCookie, setCookie } from "hono/cookie";
import type { ZodError } from "zod";
import { randomToken, timingSafeEqual } from "../../shared/crypto/ids.ts";
import { describeZodError, type ServiceEnv } from "../../shared/http/service_app.ts";
import type { GoogleSignIn } from "./google.ts";
import type { OAuthClient, OAuthClients } from "./oauth_clients.ts";
import { errorPage, type LoginPageOptions, PAGE_HEADERS } from "./pages.ts";
import { type AuthorizeParams, authorizeParamsSchema, type UserRecord } from "./schemas.ts";
import type { AuthStore } from "./store.ts";

export type ValidParams = LoginPageOptions["params"];

/**
 * Login CSRF defence for POST /oauth/authorize. A browser's POST carries `Origin`, which must
 * be this service's own (PUBLIC_URL); one with `Origin: null`, or a form that sends the hidden
 * form token, must carry the token that equals the HttpOnly cookie set with the page, which a
 * cross-site page can neither read nor set. A POST with neither Origin nor token is not a
 * browser's (every browser sends Origin on a POST): a script posting the documented fields, as
 * the API allows; PKCE still binds its code to whoever holds the verifier.
 */
export const LOGIN_CSRF_COOKIE = "cp_login_csrf";
/** Binds a Google round trip to the browser that started it (checked on the callback). */
export const GOOGLE_STATE_COOKIE = "cp_google_state";
const TOKEN_SHAPE = /^[A-Za-z0-9_-]{43}$/;
export const CROSS_SITE_LOGIN = "Cross-site sign-in refused: submit the form from this site";
export const STALE_LOGIN_FORM = "The sign-in form expired; reload the page and try again";

/** The hosted login's parameters in the query (GET /oauth/authorize, /oauth/google/start). */
export const authorizeQuery = { query: authorizeParamsSchema };

/** An HTML page response, for a route's `responses`. */
export function htmlPage(description: string) {
  return { content: { "text/html": { schema: z.string() } }, description };
}

/**
 * Answers a page (pages.ts) with the page headers: no framing, no scripts, no caching; a page
 * with the login form passes `headers` whose `form-action` also allows its redirect targets.
 */
export async function page(
  c: Context<ServiceEnv>,
  body: string | Promise<string>,
  status: 200 | 400 | 401 | 403 | 404 | 429 | 502 | 503,
  headers: Record<string, string> = PAGE_HEADERS,
) {
  return c.body(String(await body), status, headers);
}

/** Sets an HttpOnly, SameSite=Lax cookie of the login flow (`maxAge` 0 clears it). */
export function setFlowCookie(
  c: Context<ServiceEnv>,
  name: string,
  value: string,
  opts: { path: string; maxAge: number; secure: boolean },
): void {
  setCookie(c, name, value, {
    path: opts.path,
    maxAge: opts.maxAge,
    httpOnly: true,
    secure: opts.secure,
    sameSite: "Lax",
  });
}

/**
 * Checks what the parameters' schema cannot: that the client is ours or registered, that the
 * redirect URI is one of the client's, and that a `resource` names this service. Nothing here
 * redirects: an unknown client or an unregistered redirect_uri must never send the browser
 * anywhere.
 */
export async function validateAuthorize(
  params: AuthorizeParams,
  clients: OAuthClients,
): Promise<
  { ok: true; params: ValidParams; client: OAuthClient } | { ok: false; error: string }
> {
  const client = await clients.find(params.client_id);
  if (!client) return { ok: false, error: "Unknown client_id" };
  if (!clients.redirectAllowed(client, params.redirect_uri)) {
    return { ok: false, error: "redirect_uri is not registered for this client" };
  }
  if (params.resource !== undefined && !clients.servesResource(params.resource)) {
    return { ok: false, error: "resource is not an address of this service" };
  }
  return {
    ok: true,
    client,
    params: {
      client_id: params.client_id,
      redirect_uri: params.redirect_uri,
      state: params.state ?? null,
      code_challenge: params.code_challenge,
      resource: params.resource ?? null,
    },
  };
}

type ValidationResult = { success: true } | { success: false; error: ZodError };

/**
 * A hosted-login route's answer to parameters its schema refuses: the error page (400) naming
 * the field, never JSON and never a redirect.
 */
export function refuseAsPage(
  result: ValidationResult,
  c: Context<ServiceEnv>,
): Promise<Response> | undefined {
  return result.success ? undefined : page(c, errorPage(describeZodError(result.error)), 400);
}

/** The hosted login's parameters from a form or query, checked by their schema only. */
export function parseAuthorizeParams(raw: unknown): AuthorizeParams | null {
  const parsed = authorizeParamsSchema.safeParse(raw);
  return parsed.success ? parsed.data : null;
}

/** The browser's login-form token: its cookie's when it has one, else a new one (set). */
export function csrfToken(c: Context<ServiceEnv>, secure: boolean): string {
  const existing = getCookie(c, LOGIN_CSRF_COOKIE);
  if (existing && TOKEN_SHAPE.test(existing)) return existing;
  const token = randomToken(32);
  setFlowCookie(c, LOGIN_CSRF_COOKIE, token, { path: "/oauth", maxAge: 3600, secure });
  return token;
}

/** Null when the form post comes from our own page, else why it is refused (403). */
export function csrfRefusal(
  c: Context<ServiceEnv>,
  formToken: unknown,
  publicOrigin: string,
): string | null {
  const origin = c.req.header("origin");
  // Chrome sends `Origin: null` for a form posted from a no-referrer page: check the token.
  if (origin !== undefined && origin !== "null") {
    return origin === publicOrigin ? null : CROSS_SITE_LOGIN;
  }
  if (origin === undefined && formToken === undefined) return null;
  const expected = getCookie(c, LOGIN_CSRF_COOKIE);
  if (
    typeof formToken !== "string" || !expected || !TOKEN_SHAPE.test(expected) ||
    !timingSafeEqual(formToken, expected)
  ) return STALE_LOGIN_FORM;
  return null;
}

/** The address of "Sign in with Google" on the login page, when Google is configured. */
export function googleUrl(google: GoogleSignIn | null, params: ValidParams): string | null {
  if (!google) return null;
  const q = new URLSearchParams({
    response_type: "code",
    client_id: params.client_id,
    redirect_uri: params.redirect_uri,
  });
  if (params.state !== null) q.set("state", params.state);
  if (params.code_challenge !== null) {
    q.set("code_challenge", params.code_challenge);
    q.set("code_challenge_method", "S256");
  }
  if (params.resource) q.set("resource", params.resource);
  return `/oauth/google/start?${q}`;
}

/** Issues our authorization code and sends the browser back to the client. */
export async function redirectWithCode(
  c: Context<ServiceEnv>,
  store: AuthStore,
  user: UserRecord,
  p: ValidParams,
) {
  const code = await store.grants.createAuthCode({
    user_id: user.user_id,
    client_id: p.client_id,
    redirect_uri: p.redirect_uri,
    code_challenge: p.code_challenge,
    resource: p.resource ?? null,
  });
  const target = new URL(p.redirect_uri);
  target.searchParams.set("code", code);
  if (p.state !== null) target.searchParams.set("state", p.state);
  c.header("cache-control", "no-store");
  c.header("referrer-policy", "no-referrer");
  return c.redirect(target.toString(), 302);
}
