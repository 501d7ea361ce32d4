import { getManyBatched, retryCommit } from "../../shared/kv.ts";
import type { OutgoingMessage } from "../../shared/delivery/message.ts";
import { newId, randomToken, sha256Hex, timingSafeEqual } from "../../shared/ids.ts";
import type { ServiceQueue } from "../../shared/queue.ts";
import { nowIso } from "../../shared/time.ts";
import type { AuthJob } from "./jobs.ts";
import { derivedStatus, type Role, type UserRecord } from "./schemas.ts";
import {
  activityDayKey,
  adminKey,
  ADMINS_PREFIX,
  authCodeKey,
  confirmCodeKey,
  confirmTriesKey,
  COUNT_PENDING_KEY,
  COUNT_TOTAL_KEY,
  CURRENT_SIGNING_KEY,
  emailKey,
  googleKey,
  googleStateKey,
  loginTriesKeys,
  mailLimitKey,
  refreshFamilyKey,
  refreshTokenKey,
  resetCodeKey,
  SETUP_TOKEN_KEY,
  signingKeyKey,
  userKey,
  wsTicketKey,
} from "./keys.ts";

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

export const CONFIRM_CODE_TTL_MS = DAY;
export const CONFIRM_CODE_MAX_ATTEMPTS = 5;
export const REFRESH_TOKEN_TTL_MS = 30 * DAY;
export const AUTH_CODE_TTL_MS = 5 * MINUTE;
/** A WebSocket ticket only has to last until its socket opens; it opens one socket. */
export const WS_TICKET_TTL_MS = MINUTE;
export const GOOGLE_STATE_TTL_MS = 10 * MINUTE;
/** Login throttle: tries counted per window, before the password is verified. */
export const LOGIN_WINDOW_MS = 15 * MINUTE;
/**
 * Tries per window and scope. `account_address` (one email from one client address) is what
 * a guesser gets at an account: a burst gets at most 10 verifications. `address` caps one
 * client address across every email (spraying one password over many accounts). `account`
 * counts tries at an account from every address; once it reaches its cap (a spread-out attack
 * from 10+ addresses) the account is not locked: each address is held to
 * LOGIN_TRIES_OVER_ACCOUNT_CAP tries at it instead of 10, so the owner, whose address has
 * tried little or not at all, still signs in while every attacking address is refused. A
 * successful sign-in resets its `account_address` count and gives its own try back to the
 * other two.
 */
export const LOGIN_LIMITS = { account_address: 10, address: 50, account: 100 } as const;
/** Tries per address at an account whose `account` count is at its cap (see LOGIN_LIMITS). */
export const LOGIN_TRIES_OVER_ACCOUNT_CAP = 3;
export const LOGIN_MAX_FAILURES = LOGIN_LIMITS.account_address;
/** A refresh family (one sign-in) ends this long after the sign-in, however often it rotates. */
export const SESSION_MAX_AGE_MS = 30 * DAY;
const ACTIVITY_DAYS = 7;
export const RESET_CODE_TTL_MS = 30 * MINUTE;
export const RESET_CODE_MAX_ATTEMPTS = 5;
/** Confirmation and reset emails: at most this many per email, and per client address, per window. */
export const MAIL_WINDOW_MS = 15 * MINUTE;
export const MAIL_LIMIT_PER_EMAIL = 3;
export const MAIL_LIMIT_PER_ADDRESS = 10;
/**
 * Confirmation-code tries per client address per MAIL_WINDOW_MS, across every email (beside
 * each code's own CONFIRM_CODE_MAX_ATTEMPTS): a right code gives its try back, so only wrong
 * codes and unknown emails use it up.
 */
export const CONFIRM_TRIES_PER_ADDRESS = 10;

type LoginScope = keyof typeof LOGIN_LIMITS;
/** How many instances' setup links stay valid at once. */
const SETUP_TOKENS_KEPT = 16;

/** `token_hash` is the shape one instance wrote before several could. */
type SetupTokensRecord = { token_hashes?: string[]; token_hash?: string };

function setupHashes(record: SetupTokensRecord | null): string[] {
  if (!record) return [];
  return record.token_hashes ?? (record.token_hash ? [record.token_hash] : []);
}

const ONE = new Deno.KvU64(1n);
/** `sum` wraps at 2^64, so adding 2^64 - 1 subtracts one. */
const MINUS_ONE = new Deno.KvU64(0xffff_ffff_ffff_ffffn);

interface ConfirmCodeRecord {
  code_hash: string;
  expires_at: number;
  attempts: number;
}

/** The emails whose sending is rate-limited: confirmation codes and password-reset codes. */
export type MailKind = "confirm" | "reset";

interface WindowCount {
  count: number;
  window_start: number;
}

interface RefreshTokenRecord {
  user_id: string;
  family_id: string;
  expires_at: number;
  used_at: number | null;
}

interface RefreshFamilyRecord {
  user_id: string;
  revoked: boolean;
  /** When the sign-in that started the family happened (ms); absent on older families. */
  created_at?: number;
}

export interface AuthCodeRecord {
  user_id: string;
  client_id: string;
  redirect_uri: string;
  code_challenge: string | null;
  expires_at: number;
}

export interface WsTicketRecord {
  user_id: string;
  role: Role;
  approved: boolean;
  /** The session (refresh family) of the access token that minted it; null without one. */
  sid: string | null;
  created_at: number;
  expires_at: number;
}

export interface GoogleStateRecord {
  code_verifier: string;
  nonce: string;
  /** The hosted-login parameters to resume with once Google answers. */
  params: {
    client_id: string;
    redirect_uri: string;
    state: string | null;
    code_challenge: string | null;
  };
  expires_at: number;
}

export interface SigningKeyRecord {
  kid: string;
  private_jwk: JsonWebKey;
  public_jwk: JsonWebKey;
  created_at: string;
}

interface LoginTriesRecord {
  count: number;
  window_start: number;
}

/** A counted login try, handed back to `endLoginTry` once the password was checked. */
export interface LoginTry {
  email: string;
  keys: Record<LoginScope, Deno.KvKey>;
  /** The window each count was taken in, so a refund never lands in a later window. */
  windows: Record<LoginScope, number>;
}

/**
 * The throttle's unit for a client address: an IPv4 address as it is, an IPv6 address by its
 * /64 (one subscriber usually holds a whole /64, so single addresses would be free to rotate),
 * an IPv4-mapped IPv6 address as its IPv4 address.
 */
export function addressBucket(address: string): string {
  let a = address.trim().toLowerCase().replace(/^\[|\]$/g, "").replace(/%.*$/, "");
  const mapped = /^(?:0{0,4}:){0,5}:?ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(a);
  if (mapped) a = mapped[1];
  if (!a.includes(":")) return a.slice(0, 64);
  const [head, tail] = a.split("::", 2);
  const left = head ? head.split(":") : [];
  const right = tail ? tail.split(":") : [];
  const groups = a.includes("::")
    ? [...left, ...Array(Math.max(0, 8 - left.length - right.length)).fill("0"), ...right]
    : left;
  if (groups.length < 4 || groups.some((g) => !/^[0-9a-f]{1,4}$/.test(g))) return a.slice(0, 64);
  return `${groups.slice(0, 4).map((g) => g.replace(/^0+(?=.)/, "")).join(":")}::/64`;
}

export type NewUser = Omit<UserRecord, "user_id" | "created_at" | "updated_at" | "last_login">;

export type ConfirmResult =
  | { kind: "unknown" }
  | { kind: "already"; user: UserRecord }
  | { kind: "invalid" }
  | { kind: "confirmed"; user: UserRecord };

export type RotateResult =
  | { kind: "invalid" }
  | { kind: "reused" }
  | { kind: "rotated"; user_id: string; family_id: string; refresh_token: string };

export type ReplaceResult =
  | { kind: "missing" }
  | { kind: "confirmed" }
  | { kind: "replaced"; user: UserRecord };

export type ResetResult =
  | { kind: "invalid" }
  | { kind: "reset"; before: UserRecord; after: UserRecord };

const isPending = (u: UserRecord | null) => !!u && derivedStatus(u) === "pending";

/** A login count's live window, or a fresh one when its 15 minutes are over. */
function liveLoginWindow(record: LoginTriesRecord | null, now: number): LoginTriesRecord {
  return record && now - record.window_start < LOGIN_WINDOW_MS
    ? record
    : { count: 0, window_start: now };
}
const isAdmin = (u: UserRecord | null) => !!u && u.role === "admin";

/** The count of a fixed window, or a fresh window when it is over. */
function liveWindow(record: WindowCount | null, now: number): WindowCount {
  return record && now - record.window_start < MAIL_WINDOW_MS
    ? record
    : { count: 0, window_start: now };
}

/** The only code that touches the auth service's KV. */
export class AuthStore {
  constructor(
    private readonly kv: Deno.Kv,
    private readonly queue: ServiceQueue<AuthJob>,
  ) {}

  // ---------------------------------------------------------------- users

  async getUser(userId: string): Promise<UserRecord | null> {
    return (await this.kv.get<UserRecord>(userKey(userId))).value;
  }

  async getUserByEmail(email: string): Promise<UserRecord | null> {
    const id = (await this.kv.get<string>(emailKey(email))).value;
    return id ? await this.getUser(id) : null;
  }

  async getUserByGoogleSub(sub: string): Promise<UserRecord | null> {
    const id = (await this.kv.get<string>(googleKey(sub))).value;
    return id ? await this.getUser(id) : null;
  }

  async getUsers(userIds: string[]): Promise<UserRecord[]> {
    const entries = await getManyBatched<UserRecord>(this.kv, userIds.map(userKey));
    return entries.flatMap((e) => (e.value ? [e.value] : []));
  }

  async listUsers(): Promise<UserRecord[]> {
    const out: UserRecord[] = [];
    for await (const e of this.kv.list<UserRecord>({ prefix: ["users"] })) out.push(e.value);
    return out;
  }

  /**
   * Creates an account unless its email (or Google subject) is taken: the index keys are
   * checked empty in the same commit, so of two concurrent signups exactly one wins. A
   * confirmation code and an outgoing message commit with it.
   */
  async createUser(
    input: NewUser,
    extras: { confirmCode?: string; message?: OutgoingMessage } = {},
  ): Promise<UserRecord | null> {
    const now = nowIso();
    const user: UserRecord = {
      ...input,
      user_id: newId(),
      created_at: now,
      updated_at: now,
      last_login: null,
    };
    const codeHash = extras.confirmCode ? await sha256Hex(extras.confirmCode) : null;
    return await retryCommit<UserRecord | null>(async () => {
      if ((await this.kv.get(emailKey(user.email))).value) return { ok: true, value: null };
      if (user.google_sub && (await this.kv.get(googleKey(user.google_sub))).value) {
        return { ok: true, value: null };
      }
      const op = this.kv.atomic()
        .check({ key: emailKey(user.email), versionstamp: null })
        .set(userKey(user.user_id), user)
        .set(emailKey(user.email), user.user_id)
        .sum(COUNT_TOTAL_KEY, ONE.value);
      if (user.google_sub) {
        op.check({ key: googleKey(user.google_sub), versionstamp: null })
          .set(googleKey(user.google_sub), user.user_id);
      }
      if (isPending(user)) op.sum(COUNT_PENDING_KEY, ONE.value);
      if (isAdmin(user)) op.set(adminKey(user.user_id), true);
      if (codeHash) {
        op.set(
          confirmCodeKey(user.user_id),
          {
            code_hash: codeHash,
            expires_at: Date.now() + CONFIRM_CODE_TTL_MS,
            attempts: 0,
          } satisfies ConfirmCodeRecord,
          { expireIn: CONFIRM_CODE_TTL_MS },
        );
      }
      if (extras.message) this.queue.enqueue(op, { type: "deliver", message: extras.message });
      const res = await op.commit();
      return res.ok ? { ok: true, value: user } : { ok: false };
    });
  }

  /**
   * Read-modify-write of one account. `change` answers the new record (or null to leave it
   * as it is) and may add a message that is queued in the same commit. The pending counter
   * follows the derived status.
   */
  async updateUser(
    userId: string,
    change: (user: UserRecord) => { user: UserRecord; message?: OutgoingMessage } | null,
    { touch = true }: { touch?: boolean } = {},
  ): Promise<{ before: UserRecord; after: UserRecord } | null> {
    return await retryCommit<{ before: UserRecord; after: UserRecord } | null>(async () => {
      const entry = await this.kv.get<UserRecord>(userKey(userId));
      if (!entry.value) return { ok: true, value: null };
      const before = entry.value;
      const changed = change(structuredClone(before));
      if (!changed) return { ok: true, value: { before, after: before } };
      const after = touch ? { ...changed.user, updated_at: nowIso() } : changed.user;
      const op = this.kv.atomic().check(entry).set(userKey(userId), after);
      if (after.google_sub && after.google_sub !== before.google_sub) {
        op.check({ key: googleKey(after.google_sub), versionstamp: null })
          .set(googleKey(after.google_sub), userId);
      }
      if (isPending(before) !== isPending(after)) {
        op.sum(COUNT_PENDING_KEY, (isPending(after) ? ONE : MINUS_ONE).value);
      }
      if (isAdmin(before) !== isAdmin(after)) {
        if (isAdmin(after)) op.set(adminKey(userId), true);
        else op.delete(adminKey(userId));
      }
      if (changed.message) this.queue.enqueue(op, { type: "deliver", message: changed.message });
      const res = await op.commit();
      return res.ok ? { ok: true, value: { before, after } } : { ok: false };
    });
  }

  /** Stamps `last_login` and records the day's activity (for active_users_last_7_days). */
  async recordLogin(userId: string): Promise<void> {
    const iso = nowIso();
    await this.updateUser(userId, (u) => ({ user: { ...u, last_login: iso } }), {
      touch: false,
    });
    await this.kv.set(activityDayKey(iso.slice(0, 10), userId), true, {
      expireIn: (ACTIVITY_DAYS + 1) * DAY,
    });
  }

  async stats(): Promise<
    { total_users: number; pending_users: number; active_users_last_7_days: number }
  > {
    const [total, pending] = await this.kv.getMany<[Deno.KvU64, Deno.KvU64]>([
      COUNT_TOTAL_KEY,
      COUNT_PENDING_KEY,
    ]);
    const active = new Set<string>();
    for (let i = 0; i < ACTIVITY_DAYS; i++) {
      const day = new Date(Date.now() - i * DAY).toISOString().slice(0, 10);
      for await (const e of this.kv.list({ prefix: ["user_activity_by_day", day] })) {
        active.add(String(e.key[2]));
      }
    }
    return {
      total_users: Number(total.value?.value ?? 0n),
      pending_users: Number(pending.value?.value ?? 0n),
      active_users_last_7_days: active.size,
    };
  }

  // ---------------------------------------------------------------- email confirmation

  /** Replaces the account's confirmation code and queues the message in the same commit. */
  async replaceConfirmCode(userId: string, code: string, message: OutgoingMessage) {
    const op = this.kv.atomic().set(
      confirmCodeKey(userId),
      {
        code_hash: await sha256Hex(code),
        expires_at: Date.now() + CONFIRM_CODE_TTL_MS,
        attempts: 0,
      } satisfies ConfirmCodeRecord,
      { expireIn: CONFIRM_CODE_TTL_MS },
    );
    this.queue.enqueue(op, { type: "deliver", message });
    await op.commit();
  }

  /**
   * Checks a confirmation code; a right one confirms the account and is deleted, and after
   * CONFIRM_CODE_MAX_ATTEMPTS wrong ones the code is deleted too.
   */
  async confirmEmail(email: string, code: string): Promise<ConfirmResult> {
    const codeHash = await sha256Hex(code);
    return await retryCommit<ConfirmResult>(async () => {
      const id = (await this.kv.get<string>(emailKey(email))).value;
      const userEntry = id ? await this.kv.get<UserRecord>(userKey(id)) : null;
      const user = userEntry?.value;
      if (!userEntry || !user) return { ok: true, value: { kind: "unknown" } };
      if (user.confirmed) return { ok: true, value: { kind: "already", user } };
      const codeEntry = await this.kv.get<ConfirmCodeRecord>(confirmCodeKey(user.user_id));
      const record = codeEntry.value;
      if (!record || record.expires_at <= Date.now()) {
        return { ok: true, value: { kind: "invalid" } };
      }
      if (!timingSafeEqual(codeHash, record.code_hash)) {
        const attempts = record.attempts + 1;
        const op = this.kv.atomic().check(codeEntry);
        if (attempts >= CONFIRM_CODE_MAX_ATTEMPTS) op.delete(codeEntry.key);
        else {
          op.set(codeEntry.key, { ...record, attempts }, {
            expireIn: Math.max(1, record.expires_at - Date.now()),
          });
        }
        const res = await op.commit();
        return res.ok ? { ok: true, value: { kind: "invalid" } } : { ok: false };
      }
      const after: UserRecord = { ...user, confirmed: true, updated_at: nowIso() };
      const res = await this.kv.atomic()
        .check(userEntry)
        .check(codeEntry)
        .delete(codeEntry.key)
        .set(userEntry.key, after)
        .commit();
      return res.ok ? { ok: true, value: { kind: "confirmed", user: after } } : { ok: false };
    });
  }

  /**
   * Signup again with the email of an account that was never confirmed: the
   * account takes the new name and password, a new confirmation code replaces the old one, and
   * its sessions are revoked, in one commit with the message. `confirmed` when it was confirmed
   * in the meantime.
   */
  async replaceUnconfirmed(
    userId: string,
    input: { name: string; password_hash: string },
    code: string,
    message: OutgoingMessage,
  ): Promise<ReplaceResult> {
    const codeHash = await sha256Hex(code);
    return await retryCommit<ReplaceResult>(async () => {
      const entry = await this.kv.get<UserRecord>(userKey(userId));
      const user = entry.value;
      if (!user) return { ok: true, value: { kind: "missing" } };
      if (user.confirmed) return { ok: true, value: { kind: "confirmed" } };
      const now = Date.now();
      const after: UserRecord = {
        ...user,
        name: input.name,
        password_hash: input.password_hash,
        sessions_revoked_at: now + 1,
        updated_at: nowIso(),
      };
      const op = this.kv.atomic().check(entry).set(entry.key, after).set(
        confirmCodeKey(userId),
        {
          code_hash: codeHash,
          expires_at: now + CONFIRM_CODE_TTL_MS,
          attempts: 0,
        } satisfies ConfirmCodeRecord,
        { expireIn: CONFIRM_CODE_TTL_MS },
      );
      this.queue.enqueue(op, { type: "deliver", message });
      const res = await op.commit();
      return res.ok ? { ok: true, value: { kind: "replaced", user: after } } : { ok: false };
    });
  }

  /**
   * Counts one confirmation or reset email against both its email's and its client address's
   * allowance (MAIL_LIMIT_PER_EMAIL, MAIL_LIMIT_PER_ADDRESS per MAIL_WINDOW_MS). False, and
   * nothing counted, when either is used up. Emails without an account count too, so the
   * answer says nothing about whether one exists.
   */
  async takeMailAllowance(kind: MailKind, email: string, address: string): Promise<boolean> {
    return (await this.#takeWindowed([
      { key: mailLimitKey(kind, "email", email), limit: MAIL_LIMIT_PER_EMAIL },
      { key: mailLimitKey(kind, "address", address), limit: MAIL_LIMIT_PER_ADDRESS },
    ])) !== null;
  }

  /**
   * Counts one confirmation-code try against the client address's allowance
   * (CONFIRM_TRIES_PER_ADDRESS per MAIL_WINDOW_MS), before the code is checked, so concurrent
   * tries cannot outrun it. The window the try was counted in, to give it back with
   * `giveBackConfirmTry`; null, and nothing counted, when the allowance is used up.
   */
  async takeConfirmTry(address: string): Promise<number | null> {
    const windows = await this.#takeWindowed([
      { key: confirmTriesKey(addressBucket(address)), limit: CONFIRM_TRIES_PER_ADDRESS },
    ]);
    return windows ? windows[0] : null;
  }

  /** A right code gives its try back (unless its window has ended since). */
  async giveBackConfirmTry(address: string, windowStart: number): Promise<void> {
    const key = confirmTriesKey(addressBucket(address));
    await retryCommit(async () => {
      const entry = await this.kv.get<WindowCount>(key);
      const record = entry.value;
      if (!record || record.count === 0 || record.window_start !== windowStart) {
        return { ok: true, value: undefined };
      }
      const res = await this.kv.atomic().check(entry).set(
        key,
        { ...record, count: record.count - 1 },
        { expireIn: Math.max(1, record.window_start + MAIL_WINDOW_MS - Date.now()) },
      ).commit();
      return res.ok ? { ok: true, value: undefined } : { ok: false };
    });
  }

  /**
   * Counts one use against each fixed-window allowance (MAIL_WINDOW_MS) in one commit checked
   * against what was read. Each count's window start, or null, and nothing counted, when any
   * allowance is used up.
   */
  async #takeWindowed(
    allowances: { key: Deno.KvKey; limit: number }[],
  ): Promise<number[] | null> {
    return await retryCommit<number[] | null>(async () => {
      const entries = await this.kv.getMany<WindowCount[]>(allowances.map((a) => a.key));
      const now = Date.now();
      const lives = entries.map((e) => liveWindow(e.value, now));
      if (lives.some((w, i) => w.count >= allowances[i].limit)) return { ok: true, value: null };
      const op = this.kv.atomic();
      for (const [i, w] of lives.entries()) {
        op.check(entries[i]).set(
          allowances[i].key,
          { count: w.count + 1, window_start: w.window_start } satisfies WindowCount,
          { expireIn: Math.max(1, w.window_start + MAIL_WINDOW_MS - now) },
        );
      }
      const res = await op.commit();
      return res.ok ? { ok: true, value: lives.map((w) => w.window_start) } : { ok: false };
    });
  }

  // ---------------------------------------------------------------- password reset

  /** A new reset code for the account (the old one stops working), queued with its message. */
  async replaceResetCode(userId: string, code: string, message: OutgoingMessage) {
    const op = this.kv.atomic().set(
      resetCodeKey(userId),
      {
        code_hash: await sha256Hex(code),
        expires_at: Date.now() + RESET_CODE_TTL_MS,
        attempts: 0,
      } satisfies ConfirmCodeRecord,
      { expireIn: RESET_CODE_TTL_MS },
    );
    this.queue.enqueue(op, { type: "deliver", message });
    await op.commit();
  }

  /**
   * Checks a reset code: a wrong one counts a try (the code dies at RESET_CODE_MAX_ATTEMPTS);
   * the right one, in one commit, is deleted and the account gets the new password (hashed only
   * once the code matched), is confirmed, and has every session revoked.
   */
  async resetPassword(
    email: string,
    code: string,
    passwordHash: () => Promise<string>,
  ): Promise<ResetResult> {
    const codeHash = await sha256Hex(code);
    let hash: string | null = null;
    return await retryCommit<ResetResult>(async () => {
      const id = (await this.kv.get<string>(emailKey(email))).value;
      if (!id) return { ok: true, value: { kind: "invalid" } };
      const [userEntry, codeEntry] = await this.kv.getMany<[UserRecord, ConfirmCodeRecord]>([
        userKey(id),
        resetCodeKey(id),
      ]);
      const user = userEntry.value;
      const record = codeEntry.value;
      if (!user || !record || record.expires_at <= Date.now()) {
        return { ok: true, value: { kind: "invalid" } };
      }
      if (!timingSafeEqual(codeHash, record.code_hash)) {
        const attempts = record.attempts + 1;
        const op = this.kv.atomic().check(codeEntry);
        if (attempts >= RESET_CODE_MAX_ATTEMPTS) op.delete(codeEntry.key);
        else {
          op.set(codeEntry.key, { ...record, attempts }, {
            expireIn: Math.max(1, record.expires_at - Date.now()),
          });
        }
        const res = await op.commit();
        return res.ok ? { ok: true, value: { kind: "invalid" } } : { ok: false };
      }
      hash ??= await passwordHash();
      const after: UserRecord = {
        ...user,
        password_hash: hash,
        confirmed: true,
        sessions_revoked_at: Date.now() + 1,
        updated_at: nowIso(),
      };
      const res = await this.kv.atomic().check(userEntry).check(codeEntry)
        .delete(codeEntry.key)
        .set(userEntry.key, after)
        .commit();
      return res.ok ? { ok: true, value: { kind: "reset", before: user, after } } : { ok: false };
    });
  }

  // ---------------------------------------------------------------- first run

  /** True when any account has the role admin (kept by the `users_by_role` index). */
  async adminExists(): Promise<boolean> {
    for await (const _ of this.kv.list({ prefix: ADMINS_PREFIX }, { limit: 1 })) return true;
    return false;
  }

  /** Fills the admin index from the accounts when it is empty (data from before the index). */
  async backfillAdminIndex(): Promise<void> {
    if (await this.adminExists()) return;
    for await (const e of this.kv.list<UserRecord>({ prefix: ["users"] })) {
      if (isAdmin(e.value)) await this.kv.set(adminKey(e.value.user_id), true);
    }
  }

  /**
   * Keeps the hash of a one-time setup token beside those other instances printed (each
   * instance that starts with no admin prints its own link; any one of them works, once, and
   * using it voids the others). At most SETUP_TOKENS_KEPT, the oldest dropped.
   */
  async saveSetupToken(token: string): Promise<void> {
    const hash = await sha256Hex(token);
    await retryCommit(async () => {
      const entry = await this.kv.get<SetupTokensRecord>(SETUP_TOKEN_KEY);
      const hashes = [...setupHashes(entry.value), hash].slice(-SETUP_TOKENS_KEPT);
      const res = await this.kv.atomic().check(entry).set(SETUP_TOKEN_KEY, { token_hashes: hashes })
        .commit();
      return res.ok ? { ok: true, value: undefined } : { ok: false };
    });
  }

  async deleteSetupToken(): Promise<void> {
    await this.kv.delete(SETUP_TOKEN_KEY);
  }

  /** Takes the setup token if `token` is one of them (single use): false for a wrong or used one. */
  async takeSetupToken(token: string): Promise<boolean> {
    const entry = await this.kv.get<SetupTokensRecord>(SETUP_TOKEN_KEY);
    const hash = await sha256Hex(token);
    if (!setupHashes(entry.value).some((known) => timingSafeEqual(hash, known))) return false;
    const res = await this.kv.atomic().check(entry).delete(entry.key).commit();
    return res.ok;
  }

  // ---------------------------------------------------------------- brute force

  /**
   * Counts a login try against its three allowances (LOGIN_LIMITS) before the password is
   * verified, in one atomic commit checked against what was read: of any number of concurrent
   * tries, only as many as the allowance holds get through. Null, and nothing counted, when an
   * allowance is used up (the caller answers 429 without hashing).
   */
  async beginLoginTry(email: string, address: string): Promise<LoginTry | null> {
    const keys = loginTriesKeys(email, addressBucket(address));
    const scopes = Object.keys(keys) as LoginScope[];
    return await retryCommit<LoginTry | null>(async () => {
      const entries = await this.kv.getMany<LoginTriesRecord[]>(scopes.map((s) => keys[s]));
      const now = Date.now();
      const op = this.kv.atomic();
      const windows = {} as Record<LoginScope, number>;
      const lives = scopes.map((_, i) => liveLoginWindow(entries[i].value, now));
      const byScope = Object.fromEntries(scopes.map((s, i) => [s, lives[i]])) as Record<
        LoginScope,
        LoginTriesRecord
      >;
      // The account's cap narrows each address's allowance rather than locking the account.
      const accountAddressLimit = byScope.account.count >= LOGIN_LIMITS.account
        ? LOGIN_TRIES_OVER_ACCOUNT_CAP
        : LOGIN_LIMITS.account_address;
      if (
        byScope.account_address.count >= accountAddressLimit ||
        byScope.address.count >= LOGIN_LIMITS.address
      ) return { ok: true, value: null };
      for (const [i, scope] of scopes.entries()) {
        const live = lives[i];
        windows[scope] = live.window_start;
        op.check(entries[i]).set(
          keys[scope],
          { count: live.count + 1, window_start: live.window_start } satisfies LoginTriesRecord,
          { expireIn: Math.max(1, live.window_start + LOGIN_WINDOW_MS - now) },
        );
      }
      const res = await op.commit();
      return res.ok ? { ok: true, value: { email, keys, windows } } : { ok: false };
    }, 200);
  }

  /**
   * After a successful sign-in: the account's count from this address starts again, and the
   * try is given back to the address's and the account's counts (a failed try stays counted).
   */
  async endLoginTry(attempt: LoginTry): Promise<void> {
    await this.kv.delete(attempt.keys.account_address);
    for (const scope of ["address", "account"] as const) {
      await retryCommit(async () => {
        const entry = await this.kv.get<LoginTriesRecord>(attempt.keys[scope]);
        const record = entry.value;
        if (!record || record.count === 0 || record.window_start !== attempt.windows[scope]) {
          return { ok: true, value: undefined };
        }
        const res = await this.kv.atomic().check(entry).set(
          entry.key,
          { ...record, count: record.count - 1 },
          { expireIn: Math.max(1, record.window_start + LOGIN_WINDOW_MS - Date.now()) },
        ).commit();
        return res.ok ? { ok: true, value: undefined } : { ok: false };
      }, 50);
    }
  }

  /** Forgets every login count of an account (the ADMIN_EMAIL bootstrap, a password reset). */
  async clearLoginFailures(email: string): Promise<void> {
    const op = this.kv.atomic().delete(loginTriesKeys(email, "").account);
    for await (
      const e of this.kv.list({ prefix: ["login_tries", "account_address", email] }, { limit: 500 })
    ) op.delete(e.key);
    await op.commit();
  }

  // ---------------------------------------------------------------- refresh tokens

  /**
   * A new refresh token starting a new family (a new session), and the family's id (the
   * access tokens of the session carry it as `sid`); rotation continues one.
   */
  async issueRefreshToken(userId: string): Promise<{ token: string; family_id: string }> {
    const token = randomToken(32);
    const familyId = newId();
    const family: RefreshFamilyRecord = { user_id: userId, revoked: false, created_at: Date.now() };
    const res = await this.kv.atomic()
      .set(refreshFamilyKey(familyId), family, { expireIn: SESSION_MAX_AGE_MS })
      .set(
        refreshTokenKey(await sha256Hex(token)),
        {
          user_id: userId,
          family_id: familyId,
          expires_at: family.created_at! + Math.min(REFRESH_TOKEN_TTL_MS, SESSION_MAX_AGE_MS),
          used_at: null,
        } satisfies RefreshTokenRecord,
        { expireIn: Math.min(REFRESH_TOKEN_TTL_MS, SESSION_MAX_AGE_MS) },
      )
      .commit();
    if (!res.ok) throw new Error("Cannot store the refresh token");
    return { token, family_id: familyId };
  }

  /**
   * Whether a session (refresh family) was revoked: by logout, a reused refresh token or a
   * refused refresh. A family the store no longer holds (expired, or dropped by a restore) is
   * not counted as revoked: a revoked one is kept longer than its access tokens live.
   */
  async sessionRevoked(familyId: string): Promise<boolean> {
    return (await this.kv.get<RefreshFamilyRecord>(refreshFamilyKey(familyId))).value?.revoked ===
      true;
  }

  /**
   * Rotation: a valid token is marked used and replaced by a new one of the same family. A
   * token presented a second time revokes its whole family. A family ends SESSION_MAX_AGE_MS
   * after its sign-in however often it rotates: rotation never extends it (a family stored
   * before `created_at` existed counts from its first rotation since).
   */
  async rotateRefreshToken(token: string): Promise<RotateResult> {
    const hash = await sha256Hex(token);
    const next = randomToken(32);
    const nextHash = await sha256Hex(next);
    return await retryCommit<RotateResult>(async () => {
      const entry = await this.kv.get<RefreshTokenRecord>(refreshTokenKey(hash));
      const record = entry.value;
      if (!record) return { ok: true, value: { kind: "invalid" } };
      const familyEntry = await this.kv.get<RefreshFamilyRecord>(
        refreshFamilyKey(record.family_id),
      );
      if (!familyEntry.value || familyEntry.value.revoked) {
        return { ok: true, value: { kind: "invalid" } };
      }
      if (record.used_at !== null) {
        const res = await this.kv.atomic().check(familyEntry).set(familyEntry.key, {
          ...familyEntry.value,
          revoked: true,
        }, { expireIn: REFRESH_TOKEN_TTL_MS }).commit();
        return res.ok ? { ok: true, value: { kind: "reused" } } : { ok: false };
      }
      const now = Date.now();
      if (record.expires_at <= now) return { ok: true, value: { kind: "invalid" } };
      const family = { ...familyEntry.value, created_at: familyEntry.value.created_at ?? now };
      const sessionEnd = family.created_at + SESSION_MAX_AGE_MS;
      if (sessionEnd <= now) return { ok: true, value: { kind: "invalid" } };
      const expiresAt = Math.min(now + REFRESH_TOKEN_TTL_MS, sessionEnd);
      const res = await this.kv.atomic()
        .check(entry)
        .check(familyEntry)
        .set(entry.key, { ...record, used_at: now }, {
          expireIn: Math.max(1, record.expires_at - now),
        })
        .set(familyEntry.key, family, { expireIn: sessionEnd - now })
        .set(
          refreshTokenKey(nextHash),
          {
            user_id: record.user_id,
            family_id: record.family_id,
            expires_at: expiresAt,
            used_at: null,
          } satisfies RefreshTokenRecord,
          { expireIn: expiresAt - now },
        )
        .commit();
      return res.ok
        ? {
          ok: true,
          value: {
            kind: "rotated",
            user_id: record.user_id,
            family_id: record.family_id,
            refresh_token: next,
          },
        }
        : { ok: false };
    });
  }

  /** Revokes the family of `token` (logout; a disabled account's refresh). */
  async revokeRefreshToken(token: string): Promise<void> {
    const record = (await this.kv.get<RefreshTokenRecord>(
      refreshTokenKey(await sha256Hex(token)),
    )).value;
    if (!record) return;
    await this.revokeFamily(record.family_id);
  }

  async revokeFamily(familyId: string): Promise<void> {
    await retryCommit(async () => {
      const entry = await this.kv.get<RefreshFamilyRecord>(refreshFamilyKey(familyId));
      if (!entry.value || entry.value.revoked) return { ok: true, value: undefined };
      const res = await this.kv.atomic().check(entry).set(entry.key, {
        ...entry.value,
        revoked: true,
      }, { expireIn: REFRESH_TOKEN_TTL_MS }).commit();
      return res.ok ? { ok: true, value: undefined } : { ok: false };
    });
  }

  // ---------------------------------------------------------------- authorization codes

  async createAuthCode(input: Omit<AuthCodeRecord, "expires_at">): Promise<string> {
    const code = randomToken(32);
    await this.kv.set(
      authCodeKey(await sha256Hex(code)),
      {
        ...input,
        expires_at: Date.now() + AUTH_CODE_TTL_MS,
      } satisfies AuthCodeRecord,
      { expireIn: AUTH_CODE_TTL_MS },
    );
    return code;
  }

  /** Takes a code out of the store (single use); null when unknown, used or expired. */
  async consumeAuthCode(code: string): Promise<AuthCodeRecord | null> {
    const entry = await this.kv.get<AuthCodeRecord>(authCodeKey(await sha256Hex(code)));
    if (!entry.value) return null;
    const res = await this.kv.atomic().check(entry).delete(entry.key).commit();
    if (!res.ok) return null;
    return entry.value.expires_at > Date.now() ? entry.value : null;
  }

  // ---------------------------------------------------------------- WebSocket tickets

  async createWsTicket(
    snapshot: Omit<WsTicketRecord, "created_at" | "expires_at">,
  ): Promise<string> {
    const ticket = crypto.randomUUID();
    const now = Date.now();
    await this.kv.set(
      wsTicketKey(await sha256Hex(ticket)),
      { ...snapshot, created_at: now, expires_at: now + WS_TICKET_TTL_MS } satisfies WsTicketRecord,
      { expireIn: WS_TICKET_TTL_MS },
    );
    return ticket;
  }

  /**
   * Takes a ticket out of the store as its socket opens (single use: of two connections with
   * one ticket, one gets it); null when unknown, used or expired.
   */
  async takeWsTicket(ticket: string): Promise<WsTicketRecord | null> {
    const entry = await this.kv.get<WsTicketRecord>(wsTicketKey(await sha256Hex(ticket)));
    if (!entry.value) return null;
    const res = await this.kv.atomic().check(entry).delete(entry.key).commit();
    if (!res.ok) return null;
    return entry.value.expires_at > Date.now() ? entry.value : null;
  }

  // ---------------------------------------------------------------- Google sign-in state

  async saveGoogleState(state: string, record: Omit<GoogleStateRecord, "expires_at">) {
    await this.kv.set(
      googleStateKey(await sha256Hex(state)),
      {
        ...record,
        expires_at: Date.now() + GOOGLE_STATE_TTL_MS,
      } satisfies GoogleStateRecord,
      { expireIn: GOOGLE_STATE_TTL_MS },
    );
  }

  /** Takes the state of one Google round trip (single use); null when unknown or expired. */
  async takeGoogleState(state: string): Promise<GoogleStateRecord | null> {
    const entry = await this.kv.get<GoogleStateRecord>(googleStateKey(await sha256Hex(state)));
    if (!entry.value) return null;
    const res = await this.kv.atomic().check(entry).delete(entry.key).commit();
    if (!res.ok) return null;
    return entry.value.expires_at > Date.now() ? entry.value : null;
  }

  // ---------------------------------------------------------------- signing keys

  async listSigningKeys(): Promise<SigningKeyRecord[]> {
    const out: SigningKeyRecord[] = [];
    for await (const e of this.kv.list<SigningKeyRecord>({ prefix: ["signing_keys"] })) {
      out.push(e.value);
    }
    return out;
  }

  async currentSigningKey(): Promise<SigningKeyRecord | null> {
    const kid = (await this.kv.get<string>(CURRENT_SIGNING_KEY)).value;
    return kid ? (await this.kv.get<SigningKeyRecord>(signingKeyKey(kid))).value : null;
  }

  /**
   * Stores a key and makes it the current one. With `onlyIfNone`, it is stored only when no
   * current key exists yet (two instances starting at once agree on one key).
   */
  async addSigningKey(key: SigningKeyRecord, { onlyIfNone = false } = {}): Promise<boolean> {
    const op = this.kv.atomic();
    if (onlyIfNone) op.check({ key: CURRENT_SIGNING_KEY, versionstamp: null });
    const res = await op.set(signingKeyKey(key.kid), key).set(CURRENT_SIGNING_KEY, key.kid)
      .commit();
    return res.ok;
  }

  async removeSigningKey(kid: string): Promise<void> {
    await this.kv.delete(signingKeyKey(kid));
  }
}
