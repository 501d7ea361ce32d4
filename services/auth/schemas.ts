import { z } from "@hono/zod-openapi";

/** Emails are compared trimmed and lower-cased everywhere. */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

export const emailField = z.string().trim().toLowerCase().max(254).pipe(
  z.email({ message: "email is not a valid email address" }),
);

const secretField = (name: string, max = 512) =>
  z.string().min(1, `${name} is required`).max(max, `${name} is too long`);

export const roleSchema = z.enum(["admin", "member"]);
export type Role = z.infer<typeof roleSchema>;

/** What the auth KV keeps of an account. */
export const userRecordSchema = z.object({
  user_id: z.string(),
  email: z.string(),
  name: z.string(),
  role: roleSchema,
  approved: z.boolean(),
  status: z.enum(["pending", "approved", "rejected"]),
  confirmed: z.boolean(),
  enabled: z.boolean(),
  password_hash: z.string().nullable(),
  google_sub: z.string().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
  last_login: z.string().nullable(),
  /**
   * Refresh-token families started before this time (ms since the epoch) are revoked: set by a
   * password reset, a replacing signup and a Google claim. Absent on older records.
   */
  sessions_revoked_at: z.number().optional(),
  /** the IANA time zone the user reads times in (personal settings); absent: the browser's */
  timezone: z.string().optional(),
});
export type UserRecord = z.infer<typeof userRecordSchema>;

export const signupBodySchema = z.object({
  email: emailField,
  password: secretField("password", 256),
  name: z.string().trim().min(1, "name is required").max(200, "name is too long"),
  recaptcha_token: secretField("recaptcha_token", 4096),
}).openapi("SignupRequest");

export const messageSchema = z.object({ message: z.string() }).openapi("Message");

export const confirmBodySchema = z.object({
  email: emailField,
  code: z.string().trim().min(1, "code is required").max(32, "code is too long"),
}).openapi("ConfirmRequest");

export const resendBodySchema = z.object({ email: emailField }).openapi("ResendRequest");

export const forgotPasswordBodySchema = z.object({ email: emailField }).openapi(
  "ForgotPasswordRequest",
);

export const resetPasswordBodySchema = z.object({
  email: emailField,
  code: z.string().trim().min(1, "code is required").max(32, "code is too long"),
  password: secretField("password", 256),
}).openapi("ResetPasswordRequest");

export const setupBodySchema = z.object({
  token: secretField("token", 256),
  email: emailField,
  name: z.string().trim().min(1, "name is required").max(200, "name is too long"),
  password: secretField("password", 256),
}).openapi("SetupRequest");

export const setupStatusSchema = z.object({ needed: z.boolean() }).openapi("SetupStatus");

export const loginBodySchema = z.object({
  email: emailField,
  password: secretField("password", 256),
}).openapi("LoginRequest");

export const refreshBodySchema = z.object({
  refresh_token: secretField("refresh_token"),
}).openapi("RefreshRequest");

export const callbackBodySchema = z.object({
  code: secretField("code"),
  redirect_uri: secretField("redirect_uri", 2000),
  code_verifier: z.string().max(256, "code_verifier is too long").optional(),
}).openapi("CallbackRequest");

export const tokenResponseSchema = z.object({
  access_token: z.string(),
  id_token: z.string(),
  refresh_token: z.string(),
  expires_in: z.number().int(),
  token_type: z.literal("Bearer"),
}).openapi("TokenResponse");

export const callbackResponseSchema = tokenResponseSchema.omit({ refresh_token: true })
  .openapi("CallbackResponse");

export const meSchema = z.object({
  user_id: z.string(),
  email: z.string(),
  name: z.string(),
  role: roleSchema,
  status: z.enum(["approved", "pending"]),
  created_at: z.string(),
  updated_at: z.string(),
  timezone: z.string().nullable(),
}).openapi("Me");

export const ticketSchema = z.object({ ticket: z.string().uuid() }).openapi("WsTicket");

/** The parameters of the hosted login page (query of GET, form of POST). */
export const authorizeParamsSchema = z.object({
  response_type: z.string().max(50).optional(),
  client_id: z.string().max(200).optional(),
  redirect_uri: z.string().max(2000).optional(),
  state: z.string().max(1024).optional(),
  code_challenge: z.string().max(256).optional(),
  code_challenge_method: z.string().max(20).optional(),
});
export type AuthorizeParams = z.infer<typeof authorizeParamsSchema>;

export const authorizeFormSchema = authorizeParamsSchema.extend({
  email: z.string().max(320).optional(),
  password: z.string().max(256).optional(),
});

export const userIdParam = z.object({ id: z.string().min(1).max(100) });
export const lookupBodySchema = z.object({
  user_ids: z.array(z.string().min(1).max(100)).max(1000),
});
export const roleBodySchema = z.object({ role: roleSchema });
export const enabledBodySchema = z.object({ enabled: z.boolean() });

/** The profile other services see (services/auth/client.ts `userProfileSchema`). */
export function toProfile(user: UserRecord) {
  return {
    user_id: user.user_id,
    email: user.email,
    name: user.name,
    role: user.role,
    status: derivedStatus(user),
    approved: user.approved,
    confirmed: user.confirmed,
    enabled: user.enabled,
    created_at: user.created_at,
    updated_at: user.updated_at,
    last_login: user.last_login,
  };
}

/**
 * A page of the admin list (peers only): at most `limit` accounts, oldest first, after the
 * account `after`, with `status` only those.
 */
export const userPageQuerySchema = z.object({
  limit: z.coerce.number().int().min(1).max(200).optional(),
  after: z.string().max(200).optional(),
  status: z.enum(["pending", "approved"]).optional(),
});

/** The spec's derived status: stored `rejected` wins, then `approved`, else `pending`. */
export function derivedStatus(user: UserRecord): "approved" | "pending" | "rejected" {
  if (user.status === "rejected") return "rejected";
  return user.approved ? "approved" : "pending";
}

/** The password policy: at least 8 characters, lowercase, uppercase, digit and symbol. */
export function passwordPolicyViolation(password: string): string | null {
  if (password.length < 8) return "Password must be at least 8 characters long";
  if (!/[a-z]/.test(password)) return "Password must contain a lowercase letter";
  if (!/[A-Z]/.test(password)) return "Password must contain an uppercase letter";
  if (!/[0-9]/.test(password)) return "Password must contain a digit";
  if (!/[^A-Za-z0-9]/.test(password)) return "Password must contain a symbol";
  return null;
}
