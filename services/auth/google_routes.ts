import { createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { getCookie } from "hono/cookie";
import { AppError } from "../../shared/http/app_error.ts";
import { timingSafeEqual } from "../../shared/crypto/ids.ts";
import type { ServiceApp, ServiceEnv } from "../../shared/http/service_app.ts";
import type { Accounts } from "./accounts.ts";
import { type GoogleSignIn, GoogleSignInError } from "./google.ts";
import {
  authorizeQuery,
  csrfToken,
  GOOGLE_STATE_COOKIE,
  googleUrl,
  htmlPage,
  page,
  redirectWithCode,
  refuseAsPage,
  setFlowCookie,
  validateAuthorize,
} from "./login_flow.ts";
import type { OAuthClients } from "./oauth_clients.ts";
import { googleAccount } from "./operations.ts";
import { errorPage, loginPage, pageHeaders, redirectOrigins } from "./pages.ts";
import type { UserRecord } from "./schemas.ts";
import { GOOGLE_STATE_TTL_MS } from "./store.ts";

/** Google sign-in from the hosted login: `/oauth/google/start` and its callback. */
export function mountGoogleRoutes(
  app: ServiceApp,
  accounts: Accounts,
  clients: OAuthClients,
  google: GoogleSignIn | null,
): void {
  const { store, config, logger } = accounts.deps;
  const secure = config.secureCookie;
  const publicOrigin = new URL(config.base.publicUrl).origin;
  const stateCookie = (c: Context<ServiceEnv>, state: string, maxAge: number) =>
    setFlowCookie(c, GOOGLE_STATE_COOKIE, state, { path: "/oauth/google", maxAge, secure });

  app.openapi(
    createRoute({
      method: "get",
      path: "/oauth/google/start",
      tags: ["OAuth"],
      summary: "Start Google sign-in from the hosted login page",
      request: authorizeQuery,
      responses: {
        302: { description: "Redirect to Google" },
        400: htmlPage("Bad parameters"),
        404: htmlPage("Google sign-in is not configured"),
        502: htmlPage("Google cannot be reached"),
      },
    }),
    async (c) => {
      const checked = await validateAuthorize(c.req.valid("query"), clients);
      if (!checked.ok) return await page(c, errorPage(checked.error), 400);
      if (!google) return await page(c, errorPage("Google sign-in is not configured"), 404);
      let started;
      try {
        started = await google.start();
      } catch (err) {
        logger.error("Google discovery failed", { error: String(err) });
        return await page(c, errorPage("Google sign-in is unavailable right now"), 502);
      }
      await store.grants.saveGoogleState(started.state, {
        code_verifier: started.codeVerifier,
        nonce: started.nonce,
        params: checked.params,
      });
      c.header("cache-control", "no-store");
      stateCookie(c, started.state, GOOGLE_STATE_TTL_MS / 1000);
      return c.redirect(started.url.toString(), 302);
    },
    refuseAsPage,
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
        400: htmlPage("Unknown state or a failed exchange"),
        403: htmlPage("Account disabled or rejected"),
        404: htmlPage("Google sign-in is not configured"),
      },
    }),
    async (c) => {
      const { state } = c.req.valid("query");
      if (!google) return await page(c, errorPage("Google sign-in is not configured"), 404);
      // The state must come back to the browser that started the round trip (its cookie), so
      // nobody can finish their own Google sign-in in someone else's browser (login CSRF).
      const bound = getCookie(c, GOOGLE_STATE_COOKIE);
      stateCookie(c, "", 0);
      if (!state || !bound || !timingSafeEqual(bound, state)) {
        const message = "The Google sign-in was not started in this browser; start again";
        return await page(c, errorPage(message), 400);
      }
      const saved = await store.grants.takeGoogleState(state);
      if (!saved) {
        const message = "The Google sign-in expired or is unknown; start again";
        return await page(c, errorPage(message), 400);
      }
      const callbackUrl = new URL(google.redirectUri);
      callbackUrl.search = new URL(c.req.url).search;
      let identity;
      try {
        identity = await google.finish(callbackUrl, {
          state,
          nonce: saved.nonce,
          codeVerifier: saved.code_verifier,
        });
      } catch (err) {
        if (!(err instanceof GoogleSignInError)) throw err;
        logger.warn("Google sign-in failed", { error: err.message });
        return await page(c, errorPage(`Google sign-in failed: ${err.message}`), 400);
      }
      let user: UserRecord;
      try {
        user = await googleAccount(accounts, identity);
        accounts.requireUsable(user);
      } catch (err) {
        if (!(err instanceof AppError) || err.status !== 403) throw err;
        const again = loginPage({
          params: saved.params,
          error: err.message,
          googleUrl: googleUrl(google, saved.params),
          csrfToken: csrfToken(c, secure),
        });
        const formHeaders = pageHeaders(
          redirectOrigins([saved.params.redirect_uri], publicOrigin),
        );
        return await page(c, again, 403, formHeaders);
      }
      return await redirectWithCode(c, store, user, saved.params);
    },
  );
}
