import { createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { AppError } from "../../shared/http/app_error.ts";
import type { ServiceApp, ServiceEnv } from "../../shared/http/service_app.ts";
import type { Accounts } from "./accounts.ts";
import { type GoogleSignIn, GoogleSignInError } from "./google.ts";
import { errorPage, loginPage, type LoginPageOptions, PAGE_HEADERS } from "./pages.ts";
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
  const challenge = params.code_challenge || null;
  if (challenge) {
    if (params.code_challenge_method !== "S256") {
      return { ok: false, error: "code_challenge_method must be S256" };
    }
    if (!PKCE_CHALLENGE.test(challenge)) {
      return { ok: false, error: "code_challenge must be a base64url S256 challenge" };
    }
  } else if (params.code_challenge_method) {
    return { ok: false, error: "code_challenge is required with code_challenge_method" };
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
  status: 200 | 400 | 401 | 403 | 404 | 429 | 502,
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
        loginPage({ params: checked.params, googleUrl: googleUrl(checked.params) }),
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
        400: { description: "Bad parameters", ...html },
        401: { description: "Wrong credentials: the page again with an error", ...html },
        403: { description: "Email not confirmed, or account disabled or rejected", ...html },
        429: { description: "Too many failed logins for this email", ...html },
      },
    }),
    async (c) => {
      const form = c.req.valid("form");
      const checked = validateAuthorize(form, allowed);
      if (!checked.ok) return page(c, errorPage(checked.error), 400);
      const email = normalizeEmail(form.email ?? "");
      const again = (error: string) =>
        loginPage({
          params: checked.params,
          email,
          error,
          googleUrl: googleUrl(checked.params),
        });
      if (!email || !form.password) {
        return page(c, again("Email and password are required"), 400);
      }
      let user: UserRecord;
      try {
        user = await accounts.authenticate(email, form.password);
      } catch (err) {
        if (err instanceof AppError && [401, 403, 429].includes(err.status)) {
          return page(c, again(err.message), err.status as 401 | 403 | 429);
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
 * pending invites.
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
    if (byEmail.google_sub && byEmail.google_sub !== identity.sub) {
      throw new AppError(403, "This email is linked to another Google account");
    }
    const updated = await store.updateUser(byEmail.user_id, (u) => ({
      user: { ...u, google_sub: identity.sub, confirmed: true },
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
