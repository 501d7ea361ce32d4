/**
 * What the auth routes do, without HTTP: each operation checks its input against the account
 * rules (accounts.ts), changes the store and answers a typed result or an `AppError`. The route
 * files (account_routes.ts, setup_routes.ts, session_routes.ts, authorize_routes.ts,
 * google_routes.ts) only read the request, call one of these and write the response.
 */
import type { z } from "zod";
import { calculatePKCECodeChallenge } from "oauth4webapi";
import type { OutgoingMessage } from "../../shared/delivery/message.ts";
import { AppError, tooManyRequests } from "../../shared/http/app_error.ts";
import { timingSafeEqual } from "../../shared/crypto/ids.ts";
import { type Accounts, confirmationCode, INVALID_REFRESH } from "./accounts.ts";
import { hashPassword } from "./passwords.ts";
import { checkRecaptcha } from "./recaptcha.ts";
import {
  type callbackBodySchema,
  passwordPolicyViolation,
  type resetPasswordBodySchema,
  type setupBodySchema,
  type signupBodySchema,
  type UserRecord,
} from "./schemas.ts";
import type { MailKind } from "./store.ts";
import type { IssuedTokens } from "./tokens.ts";

const EMAIL_EXISTS = "An account with this email already exists";
const SETUP_NOT_NEEDED = "Setup is already done: an admin account exists";
const INVALID_AUTH_CODE = "Invalid, used or expired authorization code";

/** Tokens and a refresh token that starts a new session. */
export type SessionTokens = IssuedTokens & { refresh_token: string };

/** A new member's account: enabled, pending approval. */
function newMember(
  fields: Pick<UserRecord, "email" | "name" | "password_hash" | "google_sub">,
  confirmed: boolean,
) {
  return {
    ...fields,
    role: "member",
    approved: false,
    status: "pending",
    confirmed,
    enabled: true,
  } as const;
}

/** 400 naming the first rule of the password policy that `password` breaks. */
export function requirePasswordPolicy(password: string): void {
  const violation = passwordPolicyViolation(password);
  if (violation) throw new AppError(400, violation);
}

/**
 * Counts one code mail against the email's and the client address's allowance; 429 beyond
 * it. A clear 429 rather than a silent 200: the count is kept for every email, registered or
 * not, so the status still tells nothing about whether an account exists.
 */
async function takeMailAllowance(
  accounts: Accounts,
  kind: MailKind,
  email: string,
  address: string,
): Promise<void> {
  const taken = await accounts.deps.store.codes.takeMailAllowance(kind, email, address);
  if (!taken.allowed) {
    throw tooManyRequests(
      "Too many requests for this email or address; try again later",
      taken.waitMs,
    );
  }
}

/**
 * A new account, pending confirmation, with a code mailed. An email whose account was never
 * confirmed is not owned by it: this signup replaces its name and password, and
 * as each replacement mails a code it counts against the confirmation-mail allowance.
 */
export async function signUp(
  accounts: Accounts,
  body: z.infer<typeof signupBodySchema>,
  address: string,
): Promise<void> {
  const { store, config, logger } = accounts.deps;
  requirePasswordPolicy(body.password);
  await checkRecaptcha(
    { secret: config.recaptchaSecret, verifyUrl: config.recaptchaVerifyUrl, logger },
    body.recaptcha_token,
  );
  const existing = await store.users.getUserByEmail(body.email);
  if (existing?.confirmed) throw new AppError(409, EMAIL_EXISTS);
  const code = confirmationCode();
  const message = accounts.confirmMessage(body, code);
  const password_hash = await hashPassword(body.password);
  if (!existing) {
    const created = await store.users.createUser(
      newMember({ email: body.email, name: body.name, password_hash, google_sub: null }, false),
      { confirmCode: code, message },
    );
    if (created) return;
  }
  const current = existing ?? await store.users.getUserByEmail(body.email);
  if (!current || current.confirmed) throw new AppError(409, EMAIL_EXISTS);
  await takeMailAllowance(accounts, "confirm", body.email, address);
  const replaced = await store.codes.replaceUnconfirmed(
    current.user_id,
    { name: body.name, password_hash },
    code,
    message,
  );
  if (replaced.kind !== "replaced") throw new AppError(409, EMAIL_EXISTS);
  logger.info("unconfirmed account replaced by a new signup", { user_id: current.user_id });
}

/**
 * Confirms the email with its code (404 unknown, 400 wrong); the workspaces service then
 * counts its pending invites as memberships of this account.
 * Each try from the client `address` counts against its allowance first (429 beyond it); a
 * right code gives its try back.
 */
export async function confirmEmail(
  accounts: Accounts,
  email: string,
  code: string,
  address: string,
): Promise<"confirmed" | "already"> {
  const { store } = accounts.deps;
  const window = await store.codes.takeConfirmTry(address);
  if (!window.allowed) {
    throw tooManyRequests(
      "Too many confirmation tries from this address; try again later",
      window.waitMs,
    );
  }
  const result = await store.codes.confirmEmail(email, code, await pendingAnnouncer(accounts));
  if (result.kind === "unknown") throw new AppError(404, "User not found");
  if (result.kind === "invalid") throw new AppError(400, "Invalid or expired confirmation code");
  await store.codes.giveBackConfirmTry(address, window.value);
  return result.kind === "already" ? "already" : "confirmed";
}

/**
 * Mails a new code of `kind` (a confirmation code to an unconfirmed account, a reset code to
 * any account), counted against the allowance whether or not the account exists (429 beyond
 * it). Nothing tells the caller whether a mail went out.
 */
export async function mailCode(
  accounts: Accounts,
  kind: MailKind,
  email: string,
  address: string,
): Promise<void> {
  const { store } = accounts.deps;
  await takeMailAllowance(accounts, kind, email, address);
  const user = await store.users.getUserByEmail(email);
  if (!user) return;
  const code = confirmationCode();
  if (kind === "reset") {
    await store.codes.replaceResetCode(user.user_id, code, accounts.resetMessage(user, code));
  } else if (!user.confirmed) {
    await store.codes.replaceConfirmCode(user.user_id, code, accounts.confirmMessage(user, code));
  }
}

/**
 * An account that has confirmed its email (a code, Google's verified email, a password reset)
 * and awaits approval is announced to every enabled admin: answers the `account_pending` DMs
 * for such an account, to be queued in the commit that confirms it.
 */
async function pendingAnnouncer(
  accounts: Accounts,
): Promise<(user: UserRecord) => OutgoingMessage[]> {
  const { store, buildMessage, config } = accounts.deps;
  const admins = (await store.users.getUsers(await store.setup.adminIds())).filter((a) =>
    a.enabled
  );
  return (user) =>
    user.approved ? [] : admins.map((admin) =>
      buildMessage("dm", admin.email, "account_pending", {
        name: user.name,
        email: user.email,
        user_id: user.user_id,
        url: `${config.base.publicUrl}/admin`,
      })
    );
}

/**
 * Sets the password with the mailed reset code (400 wrong, used or expired), confirms the email
 * (its invites become memberships) and revokes every session of the account.
 */
export async function resetPassword(
  accounts: Accounts,
  body: z.infer<typeof resetPasswordBodySchema>,
): Promise<void> {
  const { store, logger } = accounts.deps;
  requirePasswordPolicy(body.password);
  const result = await store.codes.resetPassword(
    body.email,
    body.code,
    () => hashPassword(body.password),
    await pendingAnnouncer(accounts),
  );
  if (result.kind === "invalid") throw new AppError(400, "Invalid, used or expired reset code");
  await store.throttle.clearLoginFailures(body.email);
  logger.info("password reset; sessions revoked", { user_id: result.after.user_id });
}

/** 410 once any admin account exists: first-run setup is over, whatever the request holds. */
export async function requireSetupOpen(accounts: Accounts): Promise<void> {
  if (await accounts.deps.store.setup.adminExists()) throw new AppError(410, SETUP_NOT_NEEDED);
}

/** First run: the one-time setup token makes the first admin (410 once an admin exists). */
export async function setUpAdmin(
  accounts: Accounts,
  body: z.infer<typeof setupBodySchema>,
): Promise<void> {
  requirePasswordPolicy(body.password);
  const { store, logger } = accounts.deps;
  if (await store.setup.adminExists()) throw new AppError(410, SETUP_NOT_NEEDED);
  if (!(await store.setup.takeSetupToken(body.token))) {
    if (await store.setup.adminExists()) throw new AppError(410, SETUP_NOT_NEEDED);
    throw new AppError(401, "Invalid or used setup token");
  }
  await accounts.ensureAdmin({ email: body.email, name: body.name, password: body.password });
  logger.info("first admin created through setup");
}

/** Email and password sign-in: tokens and a new session. */
export async function signIn(
  accounts: Accounts,
  email: string,
  password: string,
  address: string,
): Promise<SessionTokens> {
  const user = await accounts.authenticate(email, password, address);
  const session = await accounts.deps.store.sessions.issueRefreshToken(user.user_id);
  const tokens = await accounts.tokensFor(user, session.family_id);
  return { ...tokens, refresh_token: session.token };
}

/**
 * Rotation: new tokens for a refresh token. `refused` when the token is unknown, used or
 * expired (a reused one revokes its family); a family whose account is gone, unusable or whose
 * sessions were revoked after it began is revoked, with 401: a disabled or rejected account's
 * refresh is refused like any other request of theirs.
 */
export async function refreshSession(
  accounts: Accounts,
  token: string,
  client: SigningClient = FIRST_PARTY,
): Promise<{ kind: "refused" } | { kind: "refreshed"; tokens: SessionTokens }> {
  const { store, logger } = accounts.deps;
  const rotated = await store.sessions.rotateRefreshToken(token, registeredId(client));
  if (rotated.kind !== "rotated") {
    if (rotated.kind === "reused") logger.warn("refresh token reused; family revoked");
    return { kind: "refused" };
  }
  const user = await store.users.getUser(rotated.user_id);
  if (!user) {
    await store.sessions.revokeFamily(rotated.family_id);
    throw new AppError(401, INVALID_REFRESH);
  }
  try {
    accounts.requireUsable(user, 401);
    accounts.requireLiveSession(user, rotated.family_id);
  } catch (err) {
    await store.sessions.revokeFamily(rotated.family_id);
    throw err;
  }
  const tokens = await accounts.tokensFor(user, rotated.family_id);
  return { kind: "refreshed", tokens: { ...tokens, refresh_token: rotated.refresh_token } };
}

/** The client a session is signed in through: the web app's own, or a registered one. */
export interface SigningClient {
  client_id: string | null;
}
/** The first-party client (the web app, `/api/auth/*`). */
export const FIRST_PARTY: SigningClient = { client_id: null };
const registeredId = (client: SigningClient) => client.client_id ?? undefined;

/**
 * The hosted login's code for tokens and a new session: 400 when the code is unknown, used or
 * expired, was issued to another client, its redirect_uri differs, its resource differs from
 * the one asked for, or the PKCE verifier is missing or wrong (a code without a challenge is
 * never exchanged); 403 when the account is unusable. Only an exchange that passes these
 * checks uses the code up: a refused one leaves it to the right request.
 */
export async function exchangeCode(
  accounts: Accounts,
  body: z.infer<typeof callbackBodySchema> & { resource?: string },
  client: SigningClient = FIRST_PARTY,
): Promise<SessionTokens> {
  const { store, config } = accounts.deps;
  const record = await store.grants.findAuthCode(body.code);
  if (!record) throw new AppError(400, INVALID_AUTH_CODE);
  if (record.client_id !== (client.client_id ?? config.clientId)) {
    throw new AppError(400, INVALID_AUTH_CODE);
  }
  if (body.resource !== undefined && record.resource && record.resource !== body.resource) {
    throw new AppError(400, "resource differs from the authorization request");
  }
  if (record.redirect_uri !== body.redirect_uri) {
    throw new AppError(400, "redirect_uri does not match the authorization request");
  }
  if (!record.code_challenge) throw new AppError(400, INVALID_AUTH_CODE);
  if (!body.code_verifier) throw new AppError(400, "code_verifier is required");
  const challenge = await calculatePKCECodeChallenge(body.code_verifier);
  if (!timingSafeEqual(challenge, record.code_challenge)) {
    throw new AppError(400, "code_verifier does not match the code_challenge");
  }
  // Of two exchanges of one code, one gets it.
  if (!(await store.grants.consumeAuthCode(body.code))) {
    throw new AppError(400, INVALID_AUTH_CODE);
  }
  const user = await store.users.getUser(record.user_id);
  if (!user) throw new AppError(400, INVALID_AUTH_CODE);
  accounts.requireUsable(user);
  const session = await store.sessions.issueRefreshToken(user.user_id, registeredId(client));
  const tokens = await accounts.tokensFor(user, session.family_id);
  return { ...tokens, refresh_token: session.token };
}

/**
 * The account of a Google identity: found by its subject, else linked by its (verified)
 * email, else created confirmed and pending approval. A newly confirmed email accepts its
 * pending invites. An account that was never confirmed did not own the email:
 * Google's verified email claims it, clearing the password whoever signed up chose and revoking
 * its sessions. 403 when the email is linked to another Google account.
 */
export async function googleAccount(
  accounts: Accounts,
  identity: { sub: string; email: string; name: string },
): Promise<UserRecord> {
  const { store } = accounts.deps;
  const bySub = await store.users.getUserByGoogleSub(identity.sub);
  if (bySub) return bySub;
  const byEmail = await store.users.getUserByEmail(identity.email);
  if (byEmail) {
    if (byEmail.confirmed && byEmail.google_sub && byEmail.google_sub !== identity.sub) {
      throw new AppError(403, "This email is linked to another Google account");
    }
    const announce = byEmail.confirmed ? null : await pendingAnnouncer(accounts);
    const updated = await store.users.updateUser(byEmail.user_id, (u) => {
      if (u.confirmed) return { user: { ...u, google_sub: identity.sub } };
      const claimed: UserRecord = {
        ...u,
        name: identity.name,
        google_sub: identity.sub,
        confirmed: true,
        password_hash: null,
        sessions_revoked_at: Date.now() + 1,
      };
      return { user: claimed, messages: announce?.(claimed) };
    });
    if (!updated) throw new AppError(403, "Account not found");
    return updated.after;
  }
  const created = await store.users.createUser(
    newMember({
      email: identity.email,
      name: identity.name,
      password_hash: null,
      google_sub: identity.sub,
    }, true),
    { messagesFor: await pendingAnnouncer(accounts) },
  );
  if (!created) {
    // Someone else created the account in the meantime: use theirs.
    const again = await store.users.getUserByGoogleSub(identity.sub) ??
      await store.users.getUserByEmail(identity.email);
    if (!again) throw new Error("The Google account could not be stored");
    return again;
  }
  return created;
}
