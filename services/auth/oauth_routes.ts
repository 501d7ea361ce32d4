import { createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { getCookie } from "hono/cookie";
import { AppError } from "../../shared/http/app_error.ts";
import { clientAddress } from "../../shared/http/client_address.ts";
import { randomToken, timingSafeEqual } from "../../shared/ids.ts";
import type { ServiceApp, ServiceEnv } from "../../shared/http/service_app.ts";
import type { Accounts } from "./accounts.ts";
import { type GoogleSignIn, GoogleSignInError } from "./google.ts";
import { errorPage, loginPage, type LoginPageOptions, PAGE_HEADERS } from "./pages.ts";
import { GOOGLE_STATE_TTL_MS } from "./store.ts";
import {
  authorizeFormSchema,
  type AuthorizeParams,
  authorizeParamsSchema,
  normalizeEmail,
  type UserRecord,
} from "./schemas.ts";

type ValidParams = LoginPageOptions["params"];

const html = { content: { "text/html": { schema: z.string() } } };
const PKCE_CHALLENGE = /^[A-Za-z0-9_-]{43,128}$/;

/**
 * Login CSRF defence for POST /oauth/authorize. A browser's POST carries `Origin`, which must
 * be this service's own (PUBLIC_URL); a POST without one (old browsers, privacy proxies) must
 * carry the hidden form token that equals the HttpOnly cookie set with the page, which a
 * cross-site page can neither read nor set.
 */
export const LOGIN_CSRF_COOKIE = "cp_login_csrf";
/** Binds a Google round trip to the browser that started it (checked on the callback). */
export const GOOGLE_STATE_COOKIE = "cp_google_state";
const TOKEN_SHAPE = /^[A-Za-z0-9_-]{43}$/;
export const CROSS_SITE_LOGIN = "Cross-site sign-in refused: submit the form from this site";
export const STALE_LOGIN_FORM = "The sign-in form expired; reload the page and try again";

function cookie(
  name: string,
  value: string,
  opts: { path: string; maxAge: number; secure: boolean },
): string {
  return `${name}=${value}; Path=${opts.path}; Max-Age=${opts.maxAge}; HttpOnly;${
    opts.secure ? " Secure;" : ""
  } SameSite=Lax`;
}

/**
 * Checks the hosted-login parameters. Nothing here redirects: an unknown client or an
 * unregistered redirect_uri must never send the browser anywhere.
 */
export function validateAuthorize(
  params: AuthorizeParams,
  allowed: { clientId: string; redirectUris: string[] },
): { ok: true; params: ValidParams } | { ok: false; error: string } {
  if (!params.client_id) return { ok: false, error: "client_id is required" };
  if (params.client_id !== allowed.clientId) return { ok: false, error: "Unknown client_id" };
  if (!params.redirect_uri) return { ok: false, error: "redirect_uri is required" };
  if (!allowed.redirectUris.includes(params.redirect_uri)) {
    return { ok: false, error: "redirect_uri is not registered for this client" };
  }
  if (params.response_type !== "code") {
    return { ok: false, error: "response_type must be code" };
  }
  // PKCE is required (CONTRACT 11), so every code we issue has a challenge to check.
  const challenge = params.code_challenge || null;
  if (!challenge) return { ok: false, error: "code_challenge is required (PKCE S256)" };
  if (params.code_challenge_method !== "S256") {
    return { ok: false, error: "code_challenge_method must be S256" };
  }
  if (!PKCE_CHALLENGE.test(challenge)) {
    return { ok: false, error: "code_challenge must be a base64url S256 challenge" };
  }
  return {
    ok: true,
    params: {
      client_id: params.client_id,
      redirect_uri: params.redirect_uri,
      state: params.state ?? null,
      code_challenge: challenge,
    },
  };
}

function page(
  c: Context<ServiceEnv>,
  body: string,
  status: 200 | 400 | 401 | 403 | 404 | 429 | 502 | 503,
) {
  return c.body(body, status, PAGE_HEADERS);
}

/** The hosted login (`/oauth/authorize`), Google sign-in and the `/.well-known` documents. */
export function mountOAuthRoutes(
  app: ServiceApp,
  accounts: Accounts,
  google: GoogleSignIn | null,
): void {
  const { store, config, issuer, logger } = accounts.deps;
  const allowed = { clientId: config.clientId, redirectUris: config.redirectUris };
  const publicUrl = config.base.publicUrl;
  const publicOrigin = new URL(publicUrl).origin;
  const secure = config.secureCookie;

  /** The browser's login-form token: its cookie's when it has one, else a new one (set). */
  const csrfToken = (c: Context<ServiceEnv>) => {
    const existing = getCookie(c, LOGIN_CSRF_COOKIE);
    if (existing && TOKEN_SHAPE.test(existing)) return existing;
    const token = randomToken(32);
    c.header(
      "set-cookie",
      cookie(LOGIN_CSRF_COOKIE, token, { path: "/oauth", maxAge: 3600, secure }),
      { append: true },
    );
    return token;
  };

  /** Null when the form post comes from our own page, else why it is refused (403). */
  const csrfRefusal = (c: Context<ServiceEnv>, formToken: unknown) => {
    const origin = c.req.header("origin");
    // Chrome sends `Origin: null` for a form posted from a no-referrer page: check the token.
    if (origin !== undefined && origin !== "null") {
      return origin === publicOrigin ? null : CROSS_SITE_LOGIN;
    }
    const expected = getCookie(c, LOGIN_CSRF_COOKIE);
    if (
      typeof formToken !== "string" || !expected || !TOKEN_SHAPE.test(expected) ||
      !timingSafeEqual(formToken, expected)
    ) return STALE_LOGIN_FORM;
    return null;
  };

  const googleUrl = (params: ValidParams) => {
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
    return `/oauth/google/start?${q}`;
  };

  /** Issues our authorization code and sends the browser back to the client. */
  const redirectWithCode = async (c: Context<ServiceEnv>, user: UserRecord, p: ValidParams) => {
    const code = await store.createAuthCode({
      user_id: user.user_id,
      client_id: p.client_id,
      redirect_uri: p.redirect_uri,
      code_challenge: p.code_challenge,
    });
    const target = new URL(p.redirect_uri);
    target.searchParams.set("code", code);
    if (p.state !== null) target.searchParams.set("state", p.state);
    c.header("cache-control", "no-store");
    c.header("referrer-policy", "no-referrer");
    return c.redirect(target.toString(), 302);
  };

  app.openapi(
    createRoute({
      method: "get",
      path: "/oauth/authorize",
      tags: ["OAuth"],
      summary: "The hosted login page",
      request: { query: authorizeParamsSchema },
      responses: {
        200: { description: "The login form", ...html },
        400: {
          description: "Unknown client_id, unregistered redirect_uri or bad parameters",
          ...html,
        },
      },
    }),
    (c) => {
      const checked = validateAuthorize(c.req.valid("query"), allowed);
      if (!checked.ok) return page(c, errorPage(checked.error), 400);
      return page(
        c,
        loginPage({
          params: checked.params,
          googleUrl: googleUrl(checked.params),
          csrfToken: csrfToken(c),
        }),
        200,
      );
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/oauth/authorize",
      tags: ["OAuth"],
      summary: "Submit the hosted login form",
      request: {
        body: { content: { "application/x-www-form-urlencoded": { schema: authorizeFormSchema } } },
      },
      responses: {
        302: { description: "Signed in: redirect to redirect_uri?code=...&state=..." },
        400: { description: "Bad parameters (PKCE S256 is required)", ...html },
        401: { description: "Wrong credentials: the page again with an error", ...html },
        403: {
          description:
            "Posted from another site (Origin) or without the form token; email not confirmed, or account disabled or rejected",
          ...html,
        },
        429: {
          description: "Too many login tries for this account or from this address",
          ...html,
        },
        503: { description: "Too many sign-ins being checked at once; try again", ...html },
      },
    }),
    async (c) => {
      const form = c.req.valid("form");
      const checked = validateAuthorize(form, allowed);
      if (!checked.ok) return page(c, errorPage(checked.error), 400);
      const refusal = csrfRefusal(c, (await c.req.parseBody())["csrf_token"]);
      if (refusal) return page(c, errorPage(refusal), 403);
      const email = normalizeEmail(form.email ?? "");
      const again = (error: string) =>
        loginPage({
          params: checked.params,
          email,
          error,
          googleUrl: googleUrl(checked.params),
          csrfToken: csrfToken(c),
        });
      if (!email || !form.password) {
        return page(c, again("Email and password are required"), 400);
      }
      let user: UserRecord;
      try {
        user = await accounts.authenticate(email, form.password, clientAddress(c));
      } catch (err) {
        if (err instanceof AppError && [401, 403, 429, 503].includes(err.status)) {
          return page(c, again(err.message), err.status as 401 | 403 | 429 | 503);
        }
        throw err;
      }
      return await redirectWithCode(c, user, checked.params);
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/oauth/google/start",
      tags: ["OAuth"],
      summary: "Start Google sign-in from the hosted login page",
      request: { query: authorizeParamsSchema },
      responses: {
        302: { description: "Redirect to Google" },
        400: { description: "Bad parameters", ...html },
        404: { description: "Google sign-in is not configured", ...html },
        502: { description: "Google cannot be reached", ...html },
      },
    }),
    async (c) => {
      const checked = validateAuthorize(c.req.valid("query"), allowed);
      if (!checked.ok) return page(c, errorPage(checked.error), 400);
      if (!google) return page(c, errorPage("Google sign-in is not configured"), 404);
      let started;
      try {
        started = await google.start();
      } catch (err) {
        logger.error("Google discovery failed", { error: String(err) });
        return page(c, errorPage("Google sign-in is unavailable right now"), 502);
      }
      await store.saveGoogleState(started.state, {
        code_verifier: started.codeVerifier,
        nonce: started.nonce,
        params: checked.params,
      });
      c.header("cache-control", "no-store");
      c.header(
        "set-cookie",
        cookie(GOOGLE_STATE_COOKIE, started.state, {
          path: "/oauth/google",
          maxAge: GOOGLE_STATE_TTL_MS / 1000,
          secure,
        }),
      );
      return c.redirect(started.url.toString(), 302);
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/oauth/google/callback",
      tags: ["OAuth"],
      summary: "Where Google sends the browser back",
      request: {
        query: z.object({
          state: z.string().max(1024).optional(),
          code: z.string().max(4096).optional(),
          error: z.string().max(200).optional(),
        }),
      },
      responses: {
        302: { description: "Signed in: redirect to the client's redirect_uri with our code" },
        400: { description: "Unknown state or a failed exchange", ...html },
        403: { description: "Account disabled or rejected", ...html },
      },
    }),
    async (c) => {
      const query = c.req.valid("query");
      if (!google) return page(c, errorPage("Google sign-in is not configured"), 404);
      // The state must come back to the browser that started the round trip (its cookie), so
      // nobody can finish their own Google sign-in in someone else's browser (login CSRF).
      const bound = getCookie(c, GOOGLE_STATE_COOKIE);
      c.header(
        "set-cookie",
        cookie(GOOGLE_STATE_COOKIE, "", { path: "/oauth/google", maxAge: 0, secure }),
      );
      if (!query.state || !bound || !timingSafeEqual(bound, query.state)) {
        return page(
          c,
          errorPage("The Google sign-in was not started in this browser; start again"),
          400,
        );
      }
      const saved = query.state ? await store.takeGoogleState(query.state) : null;
      if (!saved || !query.state) {
        return page(c, errorPage("The Google sign-in expired or is unknown; start again"), 400);
      }
      const callbackUrl = new URL(google.redirectUri);
      callbackUrl.search = new URL(c.req.url).search;
      let identity;
      try {
        identity = await google.finish(callbackUrl, {
          state: query.state,
          nonce: saved.nonce,
          codeVerifier: saved.code_verifier,
        });
      } catch (err) {
        if (!(err instanceof GoogleSignInError)) throw err;
        logger.warn("Google sign-in failed", { error: err.message });
        return page(c, errorPage(`Google sign-in failed: ${err.message}`), 400);
      }
      let user: UserRecord;
      try {
        user = await googleAccount(accounts, identity);
        accounts.requireUsable(user);
      } catch (err) {
        if (err instanceof AppError && err.status === 403) {
          return page(
            c,
            loginPage({
              params: saved.params,
              error: err.message,
              googleUrl: googleUrl(saved.params),
              csrfToken: csrfToken(c),
            }),
            403,
          );
        }
        throw err;
      }
      return await redirectWithCode(c, user, saved.params);
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/.well-known/jwks.json",
      tags: ["OAuth"],
      summary: "The public keys that verify this service's tokens (EdDSA)",
      responses: {
        200: {
          description: "JWKS",
          content: {
            "application/json": {
              schema: z.object({ keys: z.array(z.record(z.string(), z.unknown())) }),
            },
          },
        },
      },
    }),
    async (c) => {
      c.header("cache-control", "public, max-age=60");
      return c.json(await issuer.jwks(), 200);
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/.well-known/openid-configuration",
      tags: ["OAuth"],
      summary: "OpenID Connect discovery document",
      responses: {
        200: {
          description: "Discovery document",
          content: { "application/json": { schema: z.record(z.string(), z.unknown()) } },
        },
      },
    }),
    (c) =>
      c.json({
        issuer: publicUrl,
        authorization_endpoint: `${publicUrl}/oauth/authorize`,
        token_endpoint: `${publicUrl}/api/auth/callback`,
        userinfo_endpoint: `${publicUrl}/api/auth/me`,
        jwks_uri: `${publicUrl}/.well-known/jwks.json`,
        response_types_supported: ["code"],
        grant_types_supported: ["authorization_code", "refresh_token"],
        subject_types_supported: ["public"],
        id_token_signing_alg_values_supported: ["EdDSA"],
        code_challenge_methods_supported: ["S256"],
        token_endpoint_auth_methods_supported: ["none"],
        scopes_supported: ["openid", "email", "profile"],
        claims_supported: [
          "iss",
          "aud",
          "sub",
          "exp",
          "iat",
          "email",
          "name",
          "custom:role",
          "custom:approved",
        ],
      }, 200),
  );
}

/**
 * The account of a Google identity: found by its subject, else linked by its (verified)
 * email, else created confirmed and pending approval. A newly confirmed email accepts its
 * pending invites. An account that was never confirmed did not own the email (CONTRACT 11):
 * Google's verified email claims it, clearing the password whoever signed up chose and revoking
 * its sessions.
 */
async function googleAccount(
  accounts: Accounts,
  identity: { sub: string; email: string; name: string },
): Promise<UserRecord> {
  const { store } = accounts.deps;
  const bySub = await store.getUserByGoogleSub(identity.sub);
  if (bySub) return bySub;
  const byEmail = await store.getUserByEmail(identity.email);
  if (byEmail) {
    if (byEmail.confirmed && byEmail.google_sub && byEmail.google_sub !== identity.sub) {
      throw new AppError(403, "This email is linked to another Google account");
    }
    const updated = await store.updateUser(byEmail.user_id, (u) => ({
      user: u.confirmed ? { ...u, google_sub: identity.sub } : {
        ...u,
        name: identity.name,
        google_sub: identity.sub,
        confirmed: true,
        password_hash: null,
        sessions_revoked_at: Date.now() + 1,
      },
    }));
    if (!updated) throw new AppError(403, "Account not found");
    if (!updated.before.confirmed) await accounts.acceptInvites(updated.after);
    return updated.after;
  }
  const created = await store.createUser({
    email: identity.email,
    name: identity.name,
    role: "member",
    approved: false,
    status: "pending",
    confirmed: true,
    enabled: true,
    password_hash: null,
    google_sub: identity.sub,
  });
  if (!created) {
    // Someone else created the account in the meantime: use theirs.
    const again = await store.getUserByGoogleSub(identity.sub) ??
      await store.getUserByEmail(identity.email);
    if (!again) throw new Error("The Google account could not be stored");
    return again;
  }
  await accounts.acceptInvites(created);
  return created;
}
