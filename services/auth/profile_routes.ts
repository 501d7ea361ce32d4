import { createRoute, z } from "@hono/zod-openapi";
import { AppError } from "../../shared/http/app_error.ts";
import { bearer, body, err, json } from "../../shared/http/openapi.ts";
import { requireCaller, type ServiceApp } from "../../shared/http/service_app.ts";
import type { Accounts } from "./accounts.ts";
import { setRefreshCookie } from "./cookies.ts";
import { requirePasswordPolicy } from "./operations.ts";
import { hashPassword, verifyPassword } from "./passwords.ts";
import { meSchema, PASSWORD_POLICY_DOC, TIME_ZONE_DOC, tokenResponseSchema } from "./schemas.ts";
import { meOf } from "./session_routes.ts";
import { isTimeZone } from "../../shared/time.ts";

const profileBody = z.object({
  name: z.string({ error: "name must be a string" }).trim().min(1, "name must not be blank")
    .max(100, "name is longer than 100 characters").optional(),
  timezone: z.string({ error: "timezone must be an IANA time zone name" })
    .refine(isTimeZone, "timezone is not a known IANA time zone").openapi(TIME_ZONE_DOC)
    .nullable().optional(),
}).openapi("UpdateProfileRequest");

const passwordBody = z.object({
  current_password: z.string({ error: "current_password is required" }).min(
    1,
    "current_password is required",
  ).max(200, "current_password is too long"),
  new_password: z.string({ error: "new_password is required" }).max(
    200,
    "new_password is too long",
  ).openapi(PASSWORD_POLICY_DOC),
}).openapi("ChangePasswordRequest");

/**
 * Personal settings: the caller's name and time zone, and a password change that needs the
 * current password and revokes every other session (the caller gets a fresh one).
 */
export function mountProfileRoutes(app: ServiceApp, accounts: Accounts): void {
  const { store, logger, config } = accounts.deps;
  const secure = config.base.stage !== "dev";

  app.openapi(
    createRoute({
      method: "patch",
      path: "/api/auth/me",
      tags: ["Auth"],
      summary: "Change the caller's name or time zone",
      security: bearer,
      request: body(profileBody),
      responses: {
        200: json(meSchema, "Profile"),
        400: err("A blank or long name, an unknown time zone"),
        401: err("No sub in the token"),
      },
    }),
    async (c) => {
      const caller = requireCaller(c);
      const input = c.req.valid("json");
      const result = await store.users.updateUser(caller.user_id, (user) => {
        if (input.name !== undefined) user.name = input.name;
        if (input.timezone !== undefined) {
          if (input.timezone === null) delete user.timezone;
          else user.timezone = input.timezone;
        }
        return { user };
      });
      if (!result) throw new AppError(404, "User not found");
      return c.json(meOf(result.after), 200);
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/api/auth/password",
      tags: ["Auth"],
      summary: "Change the caller's password: every other session is signed out",
      description: "Answers a new session for the caller (as login does); the refresh token " +
        "also goes in the `cp_refresh` cookie.",
      security: bearer,
      request: body(passwordBody),
      responses: {
        200: json(tokenResponseSchema, "The caller's new session"),
        400: err("The new password breaks the password policy"),
        401: err("No sub in the token"),
        403: err("Current password is incorrect"),
      },
    }),
    async (c) => {
      const caller = requireCaller(c);
      const { current_password, new_password } = c.req.valid("json");
      requirePasswordPolicy(new_password);
      const user = await store.users.getUser(caller.user_id);
      if (!user) throw new AppError(404, "User not found");
      if (!user.password_hash || !await verifyPassword(current_password, user.password_hash)) {
        throw new AppError(403, "Current password is incorrect");
      }
      const hash = await hashPassword(new_password);
      const revokedAt = Date.now();
      const result = await store.users.updateUser(caller.user_id, (u) => ({
        user: { ...u, password_hash: hash, sessions_revoked_at: revokedAt },
      }));
      if (!result) throw new AppError(404, "User not found");
      // Sessions begun before `revokedAt` are revoked; the new one begins after it.
      await new Promise((r) => setTimeout(r, 2));
      const session = await store.sessions.issueRefreshToken(caller.user_id);
      const tokens = await accounts.tokensFor(result.after, session.family_id);
      setRefreshCookie(c, session.token, secure);
      c.header("cache-control", "no-store");
      logger.info("password changed; other sessions revoked", { user_id: caller.user_id });
      return c.json({ ...tokens, refresh_token: session.token }, 200);
    },
  );
}
