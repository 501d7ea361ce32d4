import { getManyBatched, retryCommit } from "../../../shared/kv/kv.ts";
import {
  buildIndexes,
  getValues,
  indexChanges,
  type KvPage,
  readRangePage,
} from "../../../shared/kv/kv_pages.ts";
import type { OutgoingMessage } from "../../../shared/delivery/message.ts";
import { newId, sha256Hex } from "../../../shared/crypto/ids.ts";
import { nowIso } from "../../../shared/time.ts";
import { derivedStatus, type UserRecord } from "../schemas.ts";
import {
  activityDayKey,
  adminKey,
  confirmCodeKey,
  COUNT_PENDING_KEY,
  COUNT_TOTAL_KEY,
  emailKey,
  googleKey,
  USER_INDEXES_BUILT,
  userIndexKeys,
  userKey,
  usersByStatus,
} from "../keys.ts";
import {
  ACTIVITY_DAYS,
  CONFIRM_CODE_TTL_MS,
  ConfirmCodeRecord,
  DAY,
  isAdmin,
  isPending,
  MINUS_ONE,
  NewUser,
  ONE,
} from "./common.ts";
import type { ServiceQueue } from "../../../shared/queue/queue.ts";
import type { AuthJob } from "../jobs.ts";

/** Accounts: users by id, email and Google subject, counts, activity. */
export class UserStore {
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
   * One page of the accounts, oldest first, after the account `after`; with `status`, only
   * those whose derived status it is (read from their index).
   */
  async listUsersPage(
    status: "pending" | "approved" | undefined,
    page: { limit: number; after?: string },
  ): Promise<KvPage<UserRecord>> {
    return await readRangePage<UserRecord>(this.kv, {
      prefix: status ? usersByStatus(status) : ["users"],
      reverse: false,
      limit: page.limit,
      after: page.after,
      load: status ? (ids) => getValues(this.kv, ids.map(userKey)) : undefined,
      keep: (u) => status === undefined || derivedStatus(u) === status,
    });
  }

  /**
   * Puts every account into the admin list's index unless that was done: accounts stored before
   * the index existed (at start-up), or restored from a backup (the index is not in it).
   */
  buildListIndexes(): Promise<number> {
    return buildIndexes<UserRecord>(this.kv, USER_INDEXES_BUILT, [
      { records: ["users"], indexKeys: userIndexKeys },
    ]);
  }

  /**
   * Creates an account unless its email (or Google subject) is taken: the index keys are
   * checked empty in the same commit, so of two concurrent signups exactly one wins. A
   * confirmation code and outgoing messages (`message`, and those `messagesFor` makes for
   * the new account) commit with it.
   */
  async createUser(
    input: NewUser,
    extras: {
      confirmCode?: string;
      message?: OutgoingMessage;
      messagesFor?: (user: UserRecord) => OutgoingMessage[];
    } = {},
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
      indexChanges(op, [], userIndexKeys(user));
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
      const messages = [
        ...(extras.message ? [extras.message] : []),
        ...(extras.messagesFor?.(user) ?? []),
      ];
      for (const message of messages) this.queue.enqueue(op, { type: "deliver", message });
      const res = await op.commit();
      return res.ok ? { ok: true, value: user } : { ok: false };
    });
  }

  /**
   * Read-modify-write of one account. `change` answers the new record (or null to leave it
   * as it is) and may add messages that are queued in the same commit. The pending counter
   * follows the derived status.
   */
  async updateUser(
    userId: string,
    change: (
      user: UserRecord,
    ) => { user: UserRecord; messages?: OutgoingMessage[] } | null,
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
      indexChanges(op, userIndexKeys(before), userIndexKeys(after));
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
      for (const message of changed.messages ?? []) {
        this.queue.enqueue(op, { type: "deliver", message });
      }
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
}
