import { retryCommit } from "../../../shared/kv/kv.ts";
import { sha256Hex, timingSafeEqual } from "../../../shared/crypto/ids.ts";
import { type UserRecord } from "../schemas.ts";
import { adminKey, ADMINS_PREFIX, SETUP_TOKEN_KEY } from "../keys.ts";
import { isAdmin, SETUP_TOKENS_KEPT, setupHashes, SetupTokensRecord } from "./common.ts";

/** First run: whether an admin exists, and the one-time setup tokens. */
export class SetupStore {
  constructor(private readonly kv: Deno.Kv) {}

  // ---------------------------------------------------------------- first run

  /** True when any account has the role admin (kept by the `users_by_role` index). */
  async adminExists(): Promise<boolean> {
    for await (const _ of this.kv.list({ prefix: ADMINS_PREFIX }, { limit: 1 })) return true;
    return false;
  }

  /** The ids of every admin account (the `users_by_role` index). */
  async adminIds(): Promise<string[]> {
    const ids: string[] = [];
    for await (const e of this.kv.list({ prefix: ADMINS_PREFIX })) ids.push(e.key[2] as string);
    return ids;
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
}
