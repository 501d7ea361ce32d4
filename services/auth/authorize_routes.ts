import { createRoute } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { ZodError } from "zod";
import { AppError, errorHeaders } from "../../shared/http/app_error.ts";
import { clientAddress } from "../../shared/http/client_address.ts";
import { retryAfter, retryAfterHeader } from "../../shared/http/openapi.ts";
import type { ServiceApp, ServiceEnv } from "../../shared/http/service_app.ts";
import type { Accounts } from "./accounts.ts";
import type { GoogleSignIn } from "./google.ts";
import {
  authorizeQuery,
  csrfRefusal,
  csrfToken,
  googleUrl,
  htmlPage,
  page,
  parseAuthorizeParams,
  redirectWithCode,
  refuseAsPage,
  validateAuthorize,
  type ValidParams,
} from "./login_flow.ts";
import { destinationOf, type OAuthClient, type OAuthClients } from "./oauth_clients.ts";
import { errorPage, loginPage, pageHeaders, redirectOrigins } from "./pages.ts";
import { authorizeFormSchema, normalizeEmail, type UserRecord } from "./schemas.ts";

/** The hosted login: `GET /oauth/authorize` shows the form, `POST` signs in and redirects. */
export function mountAuthorizeRoutes(
  app: ServiceApp,
  accounts: Accounts,
  clients: OAuthClients,
  google: GoogleSignIn | null,
): void {
  const { store, config } = accounts.deps;
  const publicOrigin = new URL(config.base.publicUrl).origin;
  const secure = config.secureCookie;
  /** The form may post here and be redirected to this request's redirect URI only. */
  const formHeaders = (params: ValidParams) =>
    pageHeaders(redirectOrigins([params.redirect_uri], publicOrigin));
  const form = (
    c: Context<ServiceEnv>,
    { params, client }: { params: ValidParams; client: OAuthClient },
    status: 200 | 400 | 401 | 403 | 429 | 503,
    extra: { email?: string; error?: string } = {},
  ) =>
    page(
      c,
      loginPage({
        params,
        ...extra,
        googleUrl: googleUrl(google, params),
        csrfToken: csrfToken(c, secure),
        requester: client.first_party ? null : {
          name: client.client_name,
          destination: destinationOf(params.redirect_uri),
        },
      }),
      status,
      formHeaders(params),
    );

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
      const checked = await validateAuthorize(c.req.valid("query"), clients);
      if (!checked.ok) return await page(c, errorPage(checked.error), 400);
      return await form(c, checked, 200);
    },
    refuseAsPage,
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/oauth/authorize",
      tags: ["OAuth"],
      summary: "Submit the hosted login form",
      request: {
        body: {
          content: { "application/x-www-form-urlencoded": { schema: authorizeFormSchema } },
          required: true,
        },
      },
      responses: {
        302: { description: "Signed in: redirect to redirect_uri?code=...&state=..." },
        400: htmlPage("Bad parameters (PKCE S256 is required), or email or password missing"),
        401: htmlPage("Wrong credentials: the page again with an error"),
        403: htmlPage(
          "Posted from another site (Origin), or a form token (or `Origin: null`) not matching the page's cookie; email not confirmed, or account disabled or rejected",
        ),
        429: {
          ...htmlPage("Too many login tries for this account or from this address"),
          headers: retryAfterHeader,
        },
        503: {
          ...htmlPage("Too many sign-ins being checked at once; try again"),
          headers: retryAfter("1: the sign-ins queued ahead are checked by then"),
        },
      },
    }),
    async (c) => {
      const body = c.req.valid("form");
      const checked = await validateAuthorize(body, clients);
      if (!checked.ok) return await page(c, errorPage(checked.error), 400);
      const refusal = csrfRefusal(c, (await c.req.parseBody())["csrf_token"], publicOrigin);
      if (refusal) return await page(c, errorPage(refusal), 403);
      const email = normalizeEmail(body.email);
      let user: UserRecord;
      try {
        user = await accounts.authenticate(email, body.password, clientAddress(c));
      } catch (err) {
        if (err instanceof AppError && [401, 403, 429, 503].includes(err.status)) {
          const status = err.status as 401 | 403 | 429 | 503;
          // The throttle's delay goes with the page as it goes with the JSON refusal.
          for (const [name, value] of Object.entries(errorHeaders(err))) c.header(name, value);
          return await form(c, checked, status, { email, error: err.message });
        }
        throw err;
      }
      return await redirectWithCode(c, store, user, checked.params);
    },
    (result, c) => result.success ? undefined : refuseForm(result.error, c),
  );

  /** A form without its email or password is the form again, with the reason (400). */
  async function refuseForm(error: ZodError, c: Context<ServiceEnv>): Promise<Response> {
    const field = String(error.issues[0]?.path[0] ?? "");
    const raw = await c.req.parseBody();
    const params = parseAuthorizeParams(raw);
    const checked = params && await validateAuthorize(params, clients);
    if ((field === "email" || field === "password") && checked?.ok) {
      const email = typeof raw.email === "string" ? normalizeEmail(raw.email).slice(0, 320) : "";
      return await form(c, checked, 400, { email, error: error.issues[0].message });
    }
    return await refuseAsPage({ success: false, error }, c)!;
  }
}
