import type { OutgoingMessage } from "../../shared/delivery/message.ts";
import { AppError, tooManyRequests } from "../../shared/http/app_error.ts";
import { randomToken } from "../../shared/crypto/ids.ts";
import type { Logger } from "../../shared/log.ts";
import type { AuthConfig } from "./config.ts";
import { dummyHash, hashPassword, verifyPassword } from "./passwords.ts";
import type { UserRecord } from "./schemas.ts";
import type { AuthStore } from "./store.ts";
import type { IssuedTokens, TokenIssuer } from "./tokens.ts";

export const INVALID_CREDENTIALS = "Invalid email or password";
export const LOCKED_OUT = "Too many failed login attempts; try again later";
export const NOT_CONFIRMED = "Email not confirmed";
export const ACCOUNT_DISABLED = "Account is disabled";
export const ACCOUNT_REJECTED = "Account has been rejected";
export const INVALID_REFRESH = "Invalid or expired refresh token";

/** Renders an outgoing message (shared/delivery's `buildMessage`). */
export type BuildMessage = (
  channel: OutgoingMessage["channel"],
  to: string,
  template: OutgoingMessage["template"],
  data: Record<string, unknown>,
) => OutgoingMessage;

export interface AccountsDeps {
  config: AuthConfig;
  store: AuthStore;
  issuer: TokenIssuer;
  logger: Logger;
  buildMessage: BuildMessage;
}

/** A 6-digit code from a uniform draw (rejection sampling, no modulo bias). */
export function confirmationCode(): string {
  const limit = Math.floor(0x1_0000_0000 / 1_000_000) * 1_000_000;
  const buf = new Uint32Array(1);
  do crypto.getRandomValues(buf); while (buf[0] >= limit);
  return String(buf[0] % 1_000_000).padStart(6, "0");
}

const ULID_ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

/** The creation time (ms) a ULID encodes in its first 10 characters; 0 when it is not one. */
export function ulidTime(id: string): number {
  if (id.length < 10) return 0;
  let t = 0;
  for (const ch of id.slice(0, 10).toUpperCase()) {
    const v = ULID_ALPHABET.indexOf(ch);
    if (v < 0) return 0;
    t = t * 32 + v;
  }
  return t;
}

/**
 * Whether a session (refresh family, a ULID, so it carries its start time) began after the
 * account's sessions were last revoked (a password reset, a replacing signup, a Google claim).
 */
export function sessionOutlivedRevocation(user: UserRecord, familyId: string): boolean {
  const revokedAt = user.sessions_revoked_at;
  return revokedAt === undefined || ulidTime(familyId) >= revokedAt;
}

/** The account rules shared by the JSON routes and the hosted login page. */
export class Accounts {
  /**
   * The stored hash the configured ADMIN_PASSWORD was last verified against (or made into) by
   * this process. A restore's `afterImport` re-runs the bootstrap; an imported admin record that
   * carries this very hash string needs no argon2 call (which would start the hashing worker).
   */
  #knownAdminHash: { email: string; password: string; hash: string } | null = null;

  constructor(readonly deps: AccountsDeps) {}

  confirmMessage(user: { email: string; name: string }, code: string): OutgoingMessage {
    return this.deps.buildMessage("email", user.email, "confirm_email", {
      code,
      name: user.name,
      url: this.#screenUrl("/confirm", user.email),
    });
  }

  resetMessage(user: { email: string; name: string }, code: string): OutgoingMessage {
    return this.deps.buildMessage("email", user.email, "password_reset", {
      code,
      name: user.name,
      url: this.#screenUrl("/reset", user.email),
    });
  }

  /** The web app's screen where the emailed code is entered, with the email filled in. */
  #screenUrl(path: string, email: string): string {
    return `${this.deps.config.base.publicUrl}${path}?email=${encodeURIComponent(email)}`;
  }

  /**
   * 401 when a refresh-token family began before the account's sessions were revoked (a
   * password reset, a replacing signup, a Google claim). Family ids are ULIDs, so they carry
   * the time they were started.
   */
  requireLiveSession(user: UserRecord, familyId: string): void {
    if (!sessionOutlivedRevocation(user, familyId)) throw new AppError(401, INVALID_REFRESH);
  }

  /**
   * Email and password sign-in from the client `address`: 429 while a throttle allowance is
   * used up, 401 for wrong credentials (an unknown email costs one argon2 verification too),
   * then 403 unconfirmed, rejected or disabled. The try is counted before the password is
   * verified (store.beginLoginTry), so concurrent wrong passwords cannot outrun the count.
   */
  async authenticate(email: string, password: string, address: string): Promise<UserRecord> {
    const { store } = this.deps;
    const attempt = await store.throttle.beginLoginTry(email, address);
    if (!attempt.allowed) throw tooManyRequests(LOCKED_OUT, attempt.waitMs);
    const user = await store.users.getUserByEmail(email);
    const hash = user?.password_hash ?? await dummyHash();
    const matches = await verifyPassword(password, hash);
    if (!matches || !user?.password_hash) throw new AppError(401, INVALID_CREDENTIALS);
    await store.throttle.endLoginTry(attempt.value);
    this.requireUsable(user);
    return user;
  }

  /**
   * Refused (403 at sign-in; `status` 401 where the account's requests are refused as
   * unauthenticated, as a refresh is) unless the account is confirmed, not rejected and enabled.
   */
  requireUsable(user: UserRecord, status: 401 | 403 = 403): void {
    if (!user.confirmed) throw new AppError(status, NOT_CONFIRMED);
    if (user.status === "rejected") throw new AppError(status, ACCOUNT_REJECTED);
    if (!user.enabled) throw new AppError(status, ACCOUNT_DISABLED);
  }

  /**
   * Access and id tokens with the account's role and approval as they are now, of the session
   * (refresh family) `sid`.
   */
  async tokensFor(user: UserRecord, sid: string): Promise<IssuedTokens> {
    await this.deps.store.users.recordLogin(user.user_id);
    return await this.deps.issuer.issue(user, sid);
  }

  /**
   * ADMIN_EMAIL bootstrap: the account exists, is confirmed, approved, enabled and admin, and
   * its password is the configured one.
   */
  async bootstrapAdmin(): Promise<void> {
    const admin = this.deps.config.admin;
    if (!admin) return;
    await this.ensureAdmin(admin);
  }

  /**
   * First run: with no admin account and no ADMIN_EMAIL, a one-time setup token
   * is made and only its hash stored; the URL holding it is logged once, for the operator.
   * Answers the URL, or null when no setup is needed.
   */
  async prepareFirstRun(): Promise<string | null> {
    const { store, config, logger } = this.deps;
    await store.setup.backfillAdminIndex();
    if (config.admin || await store.setup.adminExists()) {
      await store.setup.deleteSetupToken();
      return null;
    }
    const token = randomToken(32);
    await store.setup.saveSetupToken(token);
    const url = `${config.base.publicUrl}/setup?token=${token}`;
    logger.info(`No admin account exists: create the first one at ${url}`, { setup_url: url });
    return url;
  }

  /**
   * The account for `email` exists, is confirmed, approved, enabled and admin, with this
   * password. An existing account whose password changes loses its sessions. One that was never
   * confirmed did not own the email (CONTRACT 11), so it also takes this name.
   */
  async ensureAdmin(admin: { email: string; name: string; password: string }): Promise<void> {
    const { store } = this.deps;
    const existing = await store.users.getUserByEmail(admin.email);
    if (!existing) {
      const created = await store.users.createUser({
        email: admin.email,
        name: admin.name,
        role: "admin",
        approved: true,
        status: "approved",
        confirmed: true,
        enabled: true,
        password_hash: await hashPassword(admin.password),
        google_sub: null,
      });
      if (created) {
        this.#remember(admin, created.password_hash);
        this.deps.logger.info("admin account created", { user_id: created.user_id });
        return;
      }
    }
    const current = existing ?? await store.users.getUserByEmail(admin.email);
    if (!current) throw new Error("The admin account could not be created");
    const samePassword = current.password_hash
      ? this.#isKnownAdminHash(admin, current.password_hash) ||
        await verifyPassword(admin.password, current.password_hash)
      : false;
    const passwordHash = samePassword ? current.password_hash : await hashPassword(admin.password);
    const updated = await store.users.updateUser(current.user_id, (u) => {
      const next: UserRecord = {
        ...u,
        role: "admin",
        approved: true,
        status: "approved",
        confirmed: true,
        enabled: true,
        password_hash: passwordHash,
        name: u.confirmed ? u.name : admin.name,
      };
      if (next.password_hash !== u.password_hash) next.sessions_revoked_at = Date.now() + 1;
      const same = next.name === u.name && next.role === u.role && next.approved === u.approved &&
        next.status === u.status && next.confirmed === u.confirmed &&
        next.enabled === u.enabled && next.password_hash === u.password_hash;
      return same ? null : { user: next };
    });
    if (updated) this.#remember(admin, passwordHash);
    await store.throttle.clearLoginFailures(admin.email);
  }

  /** Whether `hash` is the one this process made from, or verified against, `admin.password`. */
  #isKnownAdminHash(admin: { email: string; password: string }, hash: string): boolean {
    const known = this.#knownAdminHash;
    return known !== null && known.email === admin.email && known.password === admin.password &&
      known.hash === hash;
  }

  /** Remembers `hash` as made from (or verified against) the configured admin password. */
  #remember(admin: { email: string; password: string }, hash: string | null): void {
    const configured = this.deps.config.admin;
    if (!hash || configured?.email !== admin.email || configured.password !== admin.password) {
      return;
    }
    this.#knownAdminHash = { email: admin.email, password: admin.password, hash };
  }
}
