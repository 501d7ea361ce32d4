import { createRoute } from "@hono/zod-openapi";
import { AppError } from "../../shared/http/app_error.ts";
import { clientAddress } from "../../shared/http/client_address.ts";
import type { ServiceApp } from "../../shared/http/service_app.ts";
import type { Accounts } from "./accounts.ts";
import type { GoogleSignIn } from "./google.ts";
import {
  authorizeQuery,
  csrfRefusal,
  csrfToken,
  googleUrl,
  htmlPage,
  page,
  redirectWithCode,
  validateAuthorize,
} from "./login_flow.ts";
import { errorPage, loginPage, pageHeaders, redirectOrigins } from "./pages.ts";
import { authorizeFormSchema, normalizeEmail, type UserRecord } from "./schemas.ts";

/** The hosted login: `GET /oauth/authorize` shows the form, `POST` signs in and redirects. */
export function mountAuthorizeRoutes(
  app: ServiceApp,
  accounts: Accounts,
  google: GoogleSignIn | null,
): void {
  const { store, config } = accounts.deps;
  const allowed = { clientId: config.clientId, redirectUris: config.redirectUris };
  const publicOrigin = new URL(config.base.publicUrl).origin;
  const secure = config.secureCookie;
  const formHeaders = pageHeaders(redirectOrigins(config.redirectUris, publicOrigin));

  app.openapi(
    createRoute({
      method: "get",
      path: "/oauth/authorize",
      tags: ["OAuth"],
      summary: "The hosted login page",
      request: authorizeQuery,
      responses: {
        200: htmlPage("The login form"),
        400: htmlPage("Unknown client_id, unregistered redirect_uri or bad parameters"),
      },
    }),
    async (c) => {
      const checked = validateAuthorize(c.req.valid("query"), allowed);
      if (!checked.ok) return await page(c, errorPage(checked.error), 400);
      const form = loginPage({
        params: checked.params,
        googleUrl: googleUrl(google, checked.params),
        csrfToken: csrfToken(c, secure),
      });
      return await page(c, form, 200, formHeaders);
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
        400: htmlPage("Bad parameters (PKCE S256 is required)"),
        401: htmlPage("Wrong credentials: the page again with an error"),
        403: htmlPage(
          "Posted from another site (Origin) or without the form token; email not confirmed, or account disabled or rejected",
        ),
        429: htmlPage("Too many login tries for this account or from this address"),
        503: htmlPage("Too many sign-ins being checked at once; try again"),
      },
    }),
    async (c) => {
      const form = c.req.valid("form");
      const checked = validateAuthorize(form, allowed);
      if (!checked.ok) return await page(c, errorPage(checked.error), 400);
      const refusal = csrfRefusal(c, (await c.req.parseBody())["csrf_token"], publicOrigin);
      if (refusal) return await page(c, errorPage(refusal), 403);
      const email = normalizeEmail(form.email ?? "");
      const again = (error: string) =>
        loginPage({
          params: checked.params,
          email,
          error,
          googleUrl: googleUrl(google, checked.params),
          csrfToken: csrfToken(c, secure),
        });
      if (!email || !form.password) {
        return await page(c, again("Email and password are required"), 400, formHeaders);
      }
      let user: UserRecord;
      try {
        user = await accounts.authenticate(email, form.password, clientAddress(c));
      } catch (err) {
        if (err instanceof AppError && [401, 403, 429, 503].includes(err.status)) {
          const status = err.status as 401 | 403 | 429 | 503;
          return await page(c, again(err.message), status, formHeaders);
        }
        throw err;
      }
      return await redirectWithCode(c, store, user, checked.params);
    },
  );
}
