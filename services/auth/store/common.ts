/** What the auth store's topics share: limits, record shapes and window helpers. */
import { derivedStatus, type Role, type UserRecord } from "../schemas.ts";

export const MINUTE = 60_000;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;

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
export const ACTIVITY_DAYS = 7;
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

export type LoginScope = keyof typeof LOGIN_LIMITS;
/** How many instances' setup links stay valid at once. */
export const SETUP_TOKENS_KEPT = 16;

/** `token_hash` is the shape one instance wrote before several could. */
export type SetupTokensRecord = { token_hashes?: string[]; token_hash?: string };

export function setupHashes(record: SetupTokensRecord | null): string[] {
  if (!record) return [];
  return record.token_hashes ?? (record.token_hash ? [record.token_hash] : []);
}

export const ONE = new Deno.KvU64(1n);
/** `sum` wraps at 2^64, so adding 2^64 - 1 subtracts one. */
export const MINUS_ONE = new Deno.KvU64(0xffff_ffff_ffff_ffffn);

export interface ConfirmCodeRecord {
  code_hash: string;
  expires_at: number;
  attempts: number;
  /** when the code confirmed its account (kept until it expires, so a repeat is recognised) */
  used_at?: number;
}

/** The emails whose sending is rate-limited: confirmation codes and password-reset codes. */
export type MailKind = "confirm" | "reset";

export interface WindowCount {
  count: number;
  window_start: number;
}

export interface RefreshTokenRecord {
  user_id: string;
  family_id: string;
  expires_at: number;
  used_at: number | null;
}

export interface RefreshFamilyRecord {
  user_id: string;
  revoked: boolean;
  /** When the sign-in that started the family happened (ms); absent on older families. */
  created_at?: number;
  /**
   * The OAuth client the session was signed in through, whose refresh tokens only it may use;
   * absent for the first-party client (the web app, `/api/auth/login`).
   */
  client_id?: string;
}

export interface AuthCodeRecord {
  user_id: string;
  client_id: string;
  redirect_uri: string;
  code_challenge: string | null;
  /** The RFC 8707 resource the authorization asked for; absent on older codes. */
  resource?: string | null;
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
    resource?: string | null;
  };
  expires_at: number;
}

export interface SigningKeyRecord {
  kid: string;
  private_jwk: JsonWebKey;
  public_jwk: JsonWebKey;
  created_at: string;
}

export interface LoginTriesRecord {
  count: number;
  window_start: number;
}

/**
 * A limiter's answer: the use was counted (with what giving it back needs), or it was refused,
 * nothing counted, with the wait (ms) until the allowance lets the next use through.
 */
export type Allowance<T = undefined> =
  | { allowed: true; value: T }
  | { allowed: false; waitMs: number };

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

export const isPending = (u: UserRecord | null) => !!u && derivedStatus(u) === "pending";

/** A login count's live window, or a fresh one when its 15 minutes are over. */
export function liveLoginWindow(record: LoginTriesRecord | null, now: number): LoginTriesRecord {
  return record && now - record.window_start < LOGIN_WINDOW_MS
    ? record
    : { count: 0, window_start: now };
}
export const isAdmin = (u: UserRecord | null) => !!u && u.role === "admin";

/** The count of a fixed window, or a fresh window when it is over. */
export function liveWindow(record: WindowCount | null, now: number): WindowCount {
  return record && now - record.window_start < MAIL_WINDOW_MS
    ? record
    : { count: 0, window_start: now };
}

/** The only code that touches the auth service's KV. */
