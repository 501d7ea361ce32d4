import { retryCommit } from "../../../shared/kv/kv.ts";
import { loginTriesKeys } from "../keys.ts";
import {
  addressBucket,
  type Allowance,
  liveLoginWindow,
  LOGIN_LIMITS,
  LOGIN_TRIES_OVER_ACCOUNT_CAP,
  LOGIN_WINDOW_MS,
  LoginScope,
  LoginTriesRecord,
  LoginTry,
} from "./common.ts";

/** The login throttle: tries counted per window before a password is checked. */
export class LoginThrottle {
  constructor(private readonly kv: Deno.Kv) {}

  // ---------------------------------------------------------------- brute force

  /**
   * Counts a login try against its three allowances (LOGIN_LIMITS) before the password is
   * verified, in one atomic commit checked against what was read: of any number of concurrent
   * tries, only as many as the allowance holds get through. Refused, nothing counted, with the
   * wait until every used-up allowance lets a try through again, when one is used up (the
   * caller answers 429 without hashing).
   */
  async beginLoginTry(email: string, address: string): Promise<Allowance<LoginTry>> {
    const keys = loginTriesKeys(email, addressBucket(address));
    const scopes = Object.keys(keys) as LoginScope[];
    return await retryCommit<Allowance<LoginTry>>(async () => {
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
      const ends = (scope: LoginScope) => byScope[scope].window_start + LOGIN_WINDOW_MS - now;
      const waits: number[] = [];
      if (byScope.address.count >= LOGIN_LIMITS.address) waits.push(ends("address"));
      if (byScope.account_address.count >= accountAddressLimit) {
        // A count held only by the account's cap frees up as soon as either window ends.
        waits.push(
          byScope.account_address.count < LOGIN_LIMITS.account_address
            ? Math.min(ends("account_address"), ends("account"))
            : ends("account_address"),
        );
      }
      if (waits.length) return { ok: true, value: { allowed: false, waitMs: Math.max(...waits) } };
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
      return res.ok
        ? { ok: true, value: { allowed: true, value: { email, keys, windows } } }
        : { ok: false };
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
}
