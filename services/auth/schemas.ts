import { z } from "@hono/zod-openapi";

/** Emails are compared trimmed and lower-cased everywhere. */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

/** Blank is missing (400 `email is required`), as for the other required fields. */
export const emailField = z.string().trim().toLowerCase().min(1, "email is required").max(254)
  .pipe(z.email({ message: "email is not a valid email address" }));

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

/**
 * The password policy, one rule each, in the order a violation is named: what
 * `passwordPolicyViolation` checks and what the document states of a new password.
 */
const PASSWORD_RULES: readonly (readonly [RegExp, string])[] = [
  [/^[\s\S]{8,}$/, "Password must be at least 8 characters long"],
  [/[a-z]/, "Password must contain a lowercase letter"],
  [/[A-Z]/, "Password must contain an uppercase letter"],
  [/[0-9]/, "Password must contain a digit"],
  [/[^A-Za-z0-9]/, "Password must contain a symbol"],
];

/** The policy as one pattern (each rule a lookahead), for the document. */
const PASSWORD_POLICY_PATTERN = "^" +
  PASSWORD_RULES.map(([re]) =>
    re.source.startsWith("^") ? `(?=${re.source})` : `(?=[\\s\\S]*${re.source})`
  ).join("");

/**
 * A password being set (signup, reset, setup): the route names the broken rule of the policy
 * (400); the document states the policy as a pattern.
 */
export const PASSWORD_POLICY_DOC = {
  minLength: 8,
  pattern: PASSWORD_POLICY_PATTERN,
  description: "At least 8 characters with a lowercase and an uppercase letter, a digit and a " +
    "symbol",
};
const newPasswordField = secretField("password", 256).openapi(PASSWORD_POLICY_DOC);

/** How the document states an IANA time zone (the schema's refinement checks it). */
export const TIME_ZONE_DOC = {
  description: "An IANA time zone name (the tz database's, such as `Europe/Zurich`, " +
    "`America/New_York` or `UTC`); any other value is refused",
  examples: ["Europe/Zurich", "UTC"],
};

export const signupBodySchema = z.object({
  email: emailField,
  password: newPasswordField,
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
  password: newPasswordField,
}).openapi("ResetPasswordRequest");

export const setupBodySchema = z.object({
  token: secretField("token", 256),
  email: emailField,
  name: z.string().trim().min(1, "name is required").max(200, "name is too long"),
  password: newPasswordField,
}).openapi("SetupRequest");

export const setupStatusSchema = z.object({ needed: z.boolean() }).openapi("SetupStatus");

export const loginBodySchema = z.object({
  email: emailField,
  password: secretField("password", 256),
}).openapi("LoginRequest");

export const refreshBodySchema = z.object({
  // Any other credential (an access token is longer than a refresh token) is an unknown refresh
  // token: 401 at refresh, 204 at logout, not a 400 about its length.
  refresh_token: secretField("refresh_token", 16_384).openapi({
    description: "When the body has none, the `cp_refresh` cookie's is used (the web app); " +
      "one of the two is required",
  }),
}).openapi("RefreshRequest");

export const callbackBodySchema = z.object({
  code: secretField("code"),
  redirect_uri: secretField("redirect_uri", 2000),
  // PKCE is required: every code has a challenge, so its verifier is always needed.
  code_verifier: secretField("code_verifier", 256),
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

/** An S256 PKCE challenge: the base64url SHA-256 of the verifier (43 characters). */
const PKCE_REQUIRED = "code_challenge is required (PKCE S256)";
export const PKCE_CHALLENGE = /^[A-Za-z0-9_-]{43,128}$/;

const oauthParam = (field: string, max: number) =>
  z.string({ error: `${field} is required` }).min(1, `${field} is required`).max(
    max,
    `${field} is too long`,
  );

/**
 * The parameters of the hosted login (query of GET, form of POST): the authorization code flow
 * with PKCE (S256 only). Whether the client and its redirect URI are registered is checked
 * after these (login_flow.ts), and no refusal ever redirects.
 */
export const authorizeParamsSchema = z.object({
  client_id: oauthParam("client_id", 200),
  redirect_uri: oauthParam("redirect_uri", 2000),
  response_type: z.literal("code", { error: "response_type must be code" }),
  state: z.string().max(1024, "state is too long").optional(),
  code_challenge: z.string({ error: PKCE_REQUIRED }).min(1, PKCE_REQUIRED).regex(
    PKCE_CHALLENGE,
    "code_challenge must be a base64url S256 challenge",
  ).openapi({ description: "PKCE is required" }),
  code_challenge_method: z.literal("S256", { error: "code_challenge_method must be S256" }),
  scope: z.string().max(1000, "scope is too long").optional().openapi({
    description: "Accepted and ignored: a token grants what its account may do",
  }),
  resource: z.url({ error: "resource must be an absolute URL" }).max(2000, "resource is too long")
    .optional().openapi({
      description: "RFC 8707: an address of this service (such as `{PUBLIC_URL}/mcp`), which " +
        "the token is for",
    }),
});
export type AuthorizeParams = z.infer<typeof authorizeParamsSchema>;

export const authorizeFormSchema = authorizeParamsSchema.extend({
  email: z.string({ error: "Email and password are required" }).min(
    1,
    "Email and password are required",
  ).max(320, "email is too long"),
  password: z.string({ error: "Email and password are required" }).min(
    1,
    "Email and password are required",
  ).max(256, "password is too long"),
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
  return PASSWORD_RULES.find(([rule]) => !rule.test(password))?.[1] ?? null;
}
