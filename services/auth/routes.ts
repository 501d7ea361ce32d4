import { createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { getCookie } from "hono/cookie";
import { AppError } from "../../shared/http/app_error.ts";
import type { ServiceApp, ServiceEnv } from "../../shared/http/service_app.ts";
import { base64url, timingSafeEqual } from "../../shared/ids.ts";
import { clientAddress } from "../../shared/http/client_address.ts";
import { type Accounts, confirmationCode, INVALID_REFRESH } from "./accounts.ts";
import { hashPassword } from "./passwords.ts";
import { checkRecaptcha } from "./recaptcha.ts";
import {
  callbackBodySchema,
  callbackResponseSchema,
  confirmBodySchema,
  errorSchema,
  forgotPasswordBodySchema,
  loginBodySchema,
  meSchema,
  messageSchema,
  passwordPolicyViolation,
  refreshBodySchema,
  resendBodySchema,
  resetPasswordBodySchema,
  setupBodySchema,
  setupStatusSchema,
  signupBodySchema,
  ticketSchema,
  tokenResponseSchema,
} from "./schemas.ts";
import {
  MAIL_LIMIT_PER_ADDRESS,
  MAIL_LIMIT_PER_EMAIL,
  MAIL_WINDOW_MS,
  type MailKind,
  RESET_CODE_MAX_ATTEMPTS,
} from "./store.ts";
import { TOKEN_TTL_SECONDS } from "./tokens.ts";
import { REFRESH_TOKEN_TTL_MS } from "./store.ts";

export const SIGNUP_MESSAGE =
  "Signup successful. Check your email for the 6-digit confirmation code.";
export const CONFIRMED_MESSAGE = "Email confirmed";
export const RESEND_MESSAGE =
  "If an unconfirmed account exists for this email, a new confirmation code has been sent";
export const EMAIL_EXISTS = "An account with this email already exists";
export const INVALID_CODE = "Invalid or expired confirmation code";
export { INVALID_REFRESH };
export const FORGOT_MESSAGE =
  "If an account exists for this email, a password reset code has been sent";
export const RESET_MESSAGE = "Password has been reset";
export const INVALID_RESET_CODE = "Invalid, used or expired reset code";
export const TOO_MANY_MAILS = "Too many requests for this email or address; try again later";
export const SETUP_DONE_MESSAGE = "Admin account created";
export const SETUP_NOT_NEEDED = "Setup is already done: an admin account exists";
export const INVALID_SETUP_TOKEN = "Invalid or used setup token";

const LIMITS =
  `At most ${MAIL_LIMIT_PER_EMAIL} per email and ${MAIL_LIMIT_PER_ADDRESS} per client ` +
  `address every ${MAIL_WINDOW_MS / 60_000} minutes, counted whether or not the account exists, ` +
  "so a 429 says nothing about it.";
export const INVALID_AUTH_CODE = "Invalid, used or expired authorization code";

const json = <T extends z.ZodType>(schema: T) => ({ content: { "application/json": { schema } } });
const error = (description: string) => ({ description, ...json(errorSchema) });
/** Refresh and logout: `refresh_token` in the body, or else the `cp_refresh` cookie. */
const refreshOrCookieSchema = refreshBodySchema.partial().openapi("RefreshRequest");
const refreshResponseSchema = tokenResponseSchema.partial({ refresh_token: true })
  .openapi("RefreshResponse");
const jsonBody = <T extends z.ZodType>(schema: T) => ({ body: json(schema) });

/** The caller the gateway verified; 401 `no sub` without one. */
function callerId(c: Context<ServiceEnv>) {
  const caller = c.get("caller");
  if (!caller?.user_id) throw new AppError(401, "no sub");
  return caller;
}

/** `POST /api/auth/*`, `GET /api/auth/me` and `POST /api/ws/ticket`. */
export function mountAuthRoutes(app: ServiceApp, accounts: Accounts): void {
  const { store, config, logger } = accounts.deps;

  /**
   * Counts one code mail against the email's and the client address's allowance; 429 beyond
   * it. A clear 429 rather than a silent 200: the count is kept for every email, registered or
   * not, so the status still tells nothing about whether an account exists.
   */
  const takeAllowance = async (c: Context<ServiceEnv>, kind: MailKind, email: string) => {
    if (!(await store.takeMailAllowance(kind, email, clientAddress(c)))) {
      throw new AppError(429, TOO_MANY_MAILS);
    }
  };

  app.openapi(
    createRoute({
      method: "post",
      path: "/api/auth/signup",
      tags: ["Auth"],
      summary: "Sign up with email and password",
      request: jsonBody(signupBodySchema),
      responses: {
        200: {
          description: "Account created; a confirmation code was emailed",
          ...json(messageSchema),
        },
        400: error(
          "A field is missing or invalid, the password breaks the policy, or the reCAPTCHA token failed",
        ),
        409: error("A confirmed account with this email exists"),
        429: error("This signup replaces an unconfirmed account, and its code mails are used up"),
      },
      description:
        "An account that was never confirmed does not own its email: signing up again with it " +
        "replaces that account's name and password, sends a new code (the old one stops " +
        "working) and revokes its sessions. Such a replacement counts as a confirmation mail " +
        "(see resend-confirmation's limits).",
    }),
    async (c) => {
      const body = c.req.valid("json");
      const violation = passwordPolicyViolation(body.password);
      if (violation) throw new AppError(400, violation);
      await checkRecaptcha(
        { secret: config.recaptchaSecret, verifyUrl: config.recaptchaVerifyUrl, logger },
        body.recaptcha_token,
      );
      const existing = await store.getUserByEmail(body.email);
      if (existing?.confirmed) throw new AppError(409, EMAIL_EXISTS);
      const code = confirmationCode();
      const message = accounts.confirmMessage(body, code);
      const password_hash = await hashPassword(body.password);
      if (!existing) {
        const created = await store.createUser({
          email: body.email,
          name: body.name,
          role: "member",
          approved: false,
          status: "pending",
          confirmed: false,
          enabled: true,
          password_hash,
          google_sub: null,
        }, { confirmCode: code, message });
        if (created) return c.json({ message: SIGNUP_MESSAGE }, 200);
      }
      // The email has an account that was never confirmed: it does not own the email, and this
      // signup replaces its name and password (CONTRACT 11). Each replacement mails a code, so it
      // counts against the confirmation-mail allowance.
      const current = existing ?? await store.getUserByEmail(body.email);
      if (!current || current.confirmed) throw new AppError(409, EMAIL_EXISTS);
      await takeAllowance(c, "confirm", body.email);
      const replaced = await store.replaceUnconfirmed(
        current.user_id,
        { name: body.name, password_hash },
        code,
        message,
      );
      if (replaced.kind !== "replaced") throw new AppError(409, EMAIL_EXISTS);
      logger.info("unconfirmed account replaced by a new signup", { user_id: current.user_id });
      return c.json({ message: SIGNUP_MESSAGE }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/api/auth/confirm",
      tags: ["Auth"],
      summary: "Confirm an email address with the emailed code",
      request: jsonBody(confirmBodySchema),
      responses: {
        200: {
          description: "Confirmed; pending invites became memberships",
          ...json(messageSchema),
        },
        400: error("Wrong or expired code"),
        404: error("Unknown email"),
      },
    }),
    async (c) => {
      const body = c.req.valid("json");
      const result = await store.confirmEmail(body.email, body.code);
      if (result.kind === "unknown") throw new AppError(404, "User not found");
      if (result.kind === "invalid") throw new AppError(400, INVALID_CODE);
      await accounts.acceptInvites(result.user);
      return c.json({
        message: result.kind === "already" ? "Email already confirmed" : CONFIRMED_MESSAGE,
      }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/api/auth/resend-confirmation",
      tags: ["Auth"],
      summary: "Send a new confirmation code",
      description: "A new code replaces the old one and has its own 5 tries; tries are per " +
        "code and a resend never gives the old code more. " + LIMITS,
      request: jsonBody(resendBodySchema),
      responses: {
        200: { description: "Answered whether or not the account exists", ...json(messageSchema) },
        400: error("email missing or invalid"),
        429: error("Over the limit for this email or client address; nothing was sent"),
      },
    }),
    async (c) => {
      const { email } = c.req.valid("json");
      await takeAllowance(c, "confirm", email);
      const user = await store.getUserByEmail(email);
      if (user && !user.confirmed) {
        const code = confirmationCode();
        await store.replaceConfirmCode(user.user_id, code, accounts.confirmMessage(user, code));
      }
      return c.json({ message: RESEND_MESSAGE }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/api/auth/forgot-password",
      tags: ["Auth"],
      summary: "Email a password reset code",
      description: "For an existing account, sends the `password_reset` email with a 6-digit " +
        `code valid 30 minutes; a new request replaces the old code, and ${RESET_CODE_MAX_ATTEMPTS} ` +
        "wrong tries kill a code. " + LIMITS,
      request: jsonBody(forgotPasswordBodySchema),
      responses: {
        200: { description: "Answered whether or not the account exists", ...json(messageSchema) },
        400: error("email missing or invalid"),
        429: error("Over the limit for this email or client address; nothing was sent"),
      },
    }),
    async (c) => {
      const { email } = c.req.valid("json");
      await takeAllowance(c, "reset", email);
      const user = await store.getUserByEmail(email);
      if (user) {
        const code = confirmationCode();
        await store.replaceResetCode(user.user_id, code, accounts.resetMessage(user, code));
      }
      return c.json({ message: FORGOT_MESSAGE }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/api/auth/reset-password",
      tags: ["Auth"],
      summary: "Set a new password with the emailed reset code",
      description: "Sets the password, confirms the email if it was unconfirmed (pending " +
        "invites become memberships) and revokes every refresh token of the account.",
      request: jsonBody(resetPasswordBodySchema),
      responses: {
        200: { description: "Password reset", ...json(messageSchema) },
        400: error(
          "A field is missing, the code is wrong, used or expired, or the password " +
            "breaks the policy",
        ),
      },
    }),
    async (c) => {
      const body = c.req.valid("json");
      const violation = passwordPolicyViolation(body.password);
      if (violation) throw new AppError(400, violation);
      const result = await store.resetPassword(
        body.email,
        body.code,
        () => hashPassword(body.password),
      );
      if (result.kind === "invalid") throw new AppError(400, INVALID_RESET_CODE);
      await store.clearLoginFailures(body.email);
      logger.info("password reset; sessions revoked", { user_id: result.after.user_id });
      if (!result.before.confirmed) await accounts.acceptInvites(result.after);
      return c.json({ message: RESET_MESSAGE }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/api/setup",
      tags: ["Setup"],
      summary: "Whether first-run setup is possible (no admin account exists yet)",
      responses: { 200: { description: "Setup status", ...json(setupStatusSchema) } },
    }),
    async (c) => c.json({ needed: !(await store.adminExists()) }, 200),
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/api/setup",
      tags: ["Setup"],
      summary: "Create the first admin with the one-time setup token",
      description: "When no admin exists and ADMIN_EMAIL is unset, start-up logs one line with " +
        "`{PUBLIC_URL}/setup?token=<token>` (only a hash of the token is stored; each start-up " +
        "makes a new one). The token is single use. An existing account with this email " +
        "becomes the admin and takes this password. A wrong token is 401 (it is a credential).",
      request: jsonBody(setupBodySchema),
      responses: {
        201: {
          description: "The admin was created, confirmed and approved",
          ...json(messageSchema),
        },
        400: error("A field is missing or invalid, or the password breaks the policy"),
        401: error("Wrong or used setup token"),
        410: error("An admin account exists: setup is over"),
      },
    }),
    async (c) => {
      const body = c.req.valid("json");
      const violation = passwordPolicyViolation(body.password);
      if (violation) throw new AppError(400, violation);
      if (await store.adminExists()) throw new AppError(410, SETUP_NOT_NEEDED);
      if (!(await store.takeSetupToken(body.token))) {
        if (await store.adminExists()) throw new AppError(410, SETUP_NOT_NEEDED);
        throw new AppError(401, INVALID_SETUP_TOKEN);
      }
      await accounts.ensureAdmin({ email: body.email, name: body.name, password: body.password });
      logger.info("first admin created through setup");
      return c.json({ message: SETUP_DONE_MESSAGE }, 201);
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/api/auth/login",
      tags: ["Auth"],
      summary: "Sign in with email and password",
      request: jsonBody(loginBodySchema),
      responses: {
        200: { description: "Tokens", ...json(tokenResponseSchema) },
        400: error("email or password missing"),
        401: error("Invalid email or password"),
        403: error("Email not confirmed, or account disabled or rejected"),
        429: error(
          "Too many login tries in 15 minutes for this account from this address, from this address, or for this account",
        ),
        503: error("Too many sign-ins are being checked at once; try again shortly"),
      },
    }),
    async (c) => {
      const { email, password } = c.req.valid("json");
      const user = await accounts.authenticate(email, password, clientAddress(c));
      const tokens = await accounts.tokensFor(user);
      const refresh_token = await store.issueRefreshToken(user.user_id);
      return c.json({ ...tokens, refresh_token }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/api/auth/refresh",
      tags: ["Auth"],
      summary: "Exchange a refresh token for new tokens (rotation)",
      description: "The refresh token comes in the body or, when the body has none, in the " +
        "`cp_refresh` cookie; with the cookie the new token is set in the cookie, not the body.",
      request: jsonBody(refreshOrCookieSchema),
      responses: {
        200: { description: "New tokens and a new refresh token", ...json(refreshResponseSchema) },
        400: error("refresh_token missing"),
        401: error("Unknown, used or expired refresh token (a reused one revokes its family)"),
        403: error("Account disabled or rejected"),
      },
    }),
    async (c) => {
      const { token: refresh_token, fromCookie } = refreshTokenOf(c, c.req.valid("json"));
      const rotated = await store.rotateRefreshToken(refresh_token);
      if (rotated.kind !== "rotated") {
        if (rotated.kind === "reused") logger.warn("refresh token reused; family revoked");
        if (fromCookie) c.header("set-cookie", refreshCookie("", config.secureCookie));
        throw new AppError(401, INVALID_REFRESH);
      }
      const user = await store.getUser(rotated.user_id);
      if (!user) {
        await store.revokeFamily(rotated.family_id);
        throw new AppError(401, INVALID_REFRESH);
      }
      try {
        accounts.requireUsable(user);
        accounts.requireLiveSession(user, rotated.family_id);
      } catch (err) {
        await store.revokeFamily(rotated.family_id);
        throw err;
      }
      const tokens = await accounts.tokensFor(user);
      if (fromCookie) {
        c.header("set-cookie", refreshCookie(rotated.refresh_token, config.secureCookie));
        c.header("cache-control", "no-store");
        return c.json(tokens, 200);
      }
      return c.json({ ...tokens, refresh_token: rotated.refresh_token }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/api/auth/logout",
      tags: ["Auth"],
      summary: "Revoke a refresh token (and its rotation family)",
      description: "The refresh token comes in the body or, when the body has none, in the " +
        "`cp_refresh` cookie; the cookie is cleared either way.",
      request: jsonBody(refreshOrCookieSchema),
      responses: {
        204: { description: "Revoked (also when the token was unknown)" },
        400: error("refresh_token missing"),
      },
    }),
    async (c) => {
      const { token } = refreshTokenOf(c, c.req.valid("json"));
      await store.revokeRefreshToken(token);
      c.header("set-cookie", refreshCookie("", config.secureCookie));
      return c.body(null, 204);
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/api/auth/callback",
      tags: ["Auth"],
      summary: "Exchange an authorization code from the hosted login for tokens",
      request: jsonBody(callbackBodySchema),
      responses: {
        200: {
          description: "Tokens; also sets the `svc_token` cookie to the id token and the " +
            "HttpOnly `cp_refresh` cookie (Path=/api/auth) to a new refresh token",
          headers: { "Set-Cookie": { schema: { type: "string" } } },
          ...json(callbackResponseSchema),
        },
        400: error(
          "code or redirect_uri missing; code unknown, used or expired; redirect_uri or PKCE mismatch",
        ),
        403: error("Account disabled or rejected"),
      },
    }),
    async (c) => {
      const body = c.req.valid("json");
      const record = await store.consumeAuthCode(body.code);
      if (!record) throw new AppError(400, INVALID_AUTH_CODE);
      if (record.redirect_uri !== body.redirect_uri) {
        throw new AppError(400, "redirect_uri does not match the authorization request");
      }
      // PKCE is required (CONTRACT 11): a code without a challenge is never exchanged.
      if (!record.code_challenge) throw new AppError(400, INVALID_AUTH_CODE);
      if (!body.code_verifier) throw new AppError(400, "code_verifier is required");
      if (!timingSafeEqual(await pkceChallenge(body.code_verifier), record.code_challenge)) {
        throw new AppError(400, "code_verifier does not match the code_challenge");
      }
      const user = await store.getUser(record.user_id);
      if (!user) throw new AppError(400, INVALID_AUTH_CODE);
      accounts.requireUsable(user);
      const tokens = await accounts.tokensFor(user);
      c.header("set-cookie", svcTokenCookie(tokens.id_token, config.secureCookie));
      const refresh = await store.issueRefreshToken(user.user_id);
      c.header("set-cookie", refreshCookie(refresh, config.secureCookie), { append: true });
      c.header("cache-control", "no-store");
      return c.json(tokens, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/api/auth/me",
      tags: ["Auth"],
      summary: "The caller's own profile (status read live)",
      security: [{ bearer: [] }],
      responses: {
        200: { description: "Profile", ...json(meSchema) },
        401: error("No sub in the token"),
        404: error("No profile for this user"),
      },
    }),
    async (c) => {
      const caller = callerId(c);
      const user = await store.getUser(caller.user_id);
      if (!user) throw new AppError(404, "User not found");
      return c.json(
        {
          user_id: user.user_id,
          email: user.email,
          name: user.name,
          role: user.role,
          status: user.approved && user.status !== "rejected" ? "approved" : "pending",
          created_at: user.created_at,
          updated_at: user.updated_at,
        } as const,
        200,
      );
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/api/ws/ticket",
      tags: ["Auth"],
      summary: "Mint a WebSocket ticket (valid 8 hours)",
      security: [{ bearer: [] }],
      responses: {
        200: { description: "A UUID v4 ticket", ...json(ticketSchema) },
        401: error("No sub in the token"),
      },
    }),
    async (c) => {
      const caller = callerId(c);
      const ticket = await store.createWsTicket({
        user_id: caller.user_id,
        role: caller.role,
        approved: caller.approved,
      });
      return c.json({ ticket }, 200);
    },
  );
}

/** PKCE S256: base64url(sha256(verifier)). */
export async function pkceChallenge(verifier: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier));
  return base64url(new Uint8Array(digest));
}

/** The web app's refresh token cookie: out of reach of scripts, sent only to /api/auth. */
export const REFRESH_COOKIE = "cp_refresh";

/** `cp_refresh=<token>`; an empty token clears the cookie. */
export function refreshCookie(token: string, secure: boolean): string {
  const maxAge = token ? Math.floor(REFRESH_TOKEN_TTL_MS / 1000) : 0;
  return `${REFRESH_COOKIE}=${token}; HttpOnly;${
    secure ? " Secure;" : ""
  } SameSite=Strict; Path=/api/auth; Max-Age=${maxAge}`;
}

/** The body's refresh token, else the cookie's (the web app); 400 naming the field without. */
function refreshTokenOf(
  c: Context<ServiceEnv>,
  body: { refresh_token?: string },
): { token: string; fromCookie: boolean } {
  if (body.refresh_token) return { token: body.refresh_token, fromCookie: false };
  const cookie = getCookie(c, REFRESH_COOKIE);
  if (cookie && cookie.length <= 512) return { token: cookie, fromCookie: true };
  throw new AppError(400, "refresh_token is required");
}

export function svcTokenCookie(idToken: string, secure: boolean): string {
  return `svc_token=${idToken}; HttpOnly;${
    secure ? " Secure;" : ""
  } SameSite=Strict; Path=/; Max-Age=${TOKEN_TTL_SECONDS}`;
}
