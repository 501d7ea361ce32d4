import { retryCommit } from "../../../shared/kv/kv.ts";
import type { OutgoingMessage } from "../../../shared/delivery/message.ts";
import { sha256Hex, timingSafeEqual } from "../../../shared/crypto/ids.ts";
import { nowIso } from "../../../shared/time.ts";
import { type UserRecord } from "../schemas.ts";
import {
  confirmCodeKey,
  confirmTriesKey,
  emailKey,
  mailLimitKey,
  resetCodeKey,
  userKey,
} from "../keys.ts";
import {
  addressBucket,
  type Allowance,
  CONFIRM_CODE_MAX_ATTEMPTS,
  CONFIRM_CODE_TTL_MS,
  CONFIRM_TRIES_PER_ADDRESS,
  ConfirmCodeRecord,
  ConfirmResult,
  liveWindow,
  MAIL_LIMIT_PER_ADDRESS,
  MAIL_LIMIT_PER_EMAIL,
  MAIL_WINDOW_MS,
  MailKind,
  ReplaceResult,
  RESET_CODE_MAX_ATTEMPTS,
  RESET_CODE_TTL_MS,
  ResetResult,
  WindowCount,
} from "./common.ts";
import type { ServiceQueue } from "../../../shared/queue/queue.ts";
import type { AuthJob } from "../jobs.ts";

/** Email confirmation and password-reset codes, and the mail and confirm-try limits. */
export class CodeStore {
  constructor(
    private readonly kv: Deno.Kv,
    private readonly queue: ServiceQueue<AuthJob>,
  ) {}

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
   * Checks a confirmation code; a right one confirms the account and is kept, marked used, until
   * it expires (the same code sent again answers `already`; any other code for a confirmed
   * account is `invalid`), and after CONFIRM_CODE_MAX_ATTEMPTS wrong ones the code is deleted.
   */
  async confirmEmail(
    email: string,
    code: string,
    /** the DMs to send (in the same commit) for the account this confirms */
    announce?: (user: UserRecord) => OutgoingMessage[],
  ): Promise<ConfirmResult> {
    const codeHash = await sha256Hex(code);
    return await retryCommit<ConfirmResult>(async () => {
      const id = (await this.kv.get<string>(emailKey(email))).value;
      const userEntry = id ? await this.kv.get<UserRecord>(userKey(id)) : null;
      const user = userEntry?.value;
      if (!userEntry || !user) return { ok: true, value: { kind: "unknown" } };
      const codeEntry = await this.kv.get<ConfirmCodeRecord>(confirmCodeKey(user.user_id));
      const record = codeEntry.value;
      if (user.confirmed) {
        // Only the code that confirmed the account, while it lives, confirms it again.
        const repeat = record?.used_at !== undefined && record.expires_at > Date.now() &&
          timingSafeEqual(codeHash, record.code_hash);
        return { ok: true, value: repeat ? { kind: "already", user } : { kind: "invalid" } };
      }
      if (!record || record.used_at !== undefined || record.expires_at <= Date.now()) {
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
      const tell = announce?.(after) ?? [];
      const op = this.kv.atomic()
        .check(userEntry)
        .check(codeEntry)
        .set(codeEntry.key, { ...record, used_at: Date.now() } satisfies ConfirmCodeRecord, {
          expireIn: Math.max(1, record.expires_at - Date.now()),
        })
        .set(userEntry.key, after);
      for (const message of tell) this.queue.enqueue(op, { type: "deliver", message });
      const res = await op.commit();
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
   * allowance (MAIL_LIMIT_PER_EMAIL, MAIL_LIMIT_PER_ADDRESS per MAIL_WINDOW_MS). Refused, and
   * nothing counted, when either is used up. Emails without an account count too, so the
   * answer says nothing about whether one exists.
   */
  async takeMailAllowance(kind: MailKind, email: string, address: string): Promise<Allowance> {
    const taken = await this.#takeWindowed([
      { key: mailLimitKey(kind, "email", email), limit: MAIL_LIMIT_PER_EMAIL },
      { key: mailLimitKey(kind, "address", address), limit: MAIL_LIMIT_PER_ADDRESS },
    ]);
    return taken.allowed ? { allowed: true, value: undefined } : taken;
  }

  /**
   * Counts one confirmation-code try against the client address's allowance
   * (CONFIRM_TRIES_PER_ADDRESS per MAIL_WINDOW_MS), before the code is checked, so concurrent
   * tries cannot outrun it. The window the try was counted in, to give it back with
   * `giveBackConfirmTry`; refused, and nothing counted, when the allowance is used up.
   */
  async takeConfirmTry(address: string): Promise<Allowance<number>> {
    const taken = await this.#takeWindowed([
      { key: confirmTriesKey(addressBucket(address)), limit: CONFIRM_TRIES_PER_ADDRESS },
    ]);
    return taken.allowed ? { allowed: true, value: taken.value[0] } : taken;
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
   * against what was read. Each count's window start; or refused, nothing counted, when any
   * allowance is used up, with the wait until the last used-up window ends.
   */
  async #takeWindowed(
    allowances: { key: Deno.KvKey; limit: number }[],
  ): Promise<Allowance<number[]>> {
    return await retryCommit<Allowance<number[]>>(async () => {
      const entries = await this.kv.getMany<WindowCount[]>(allowances.map((a) => a.key));
      const now = Date.now();
      const lives = entries.map((e) => liveWindow(e.value, now));
      const full = lives.filter((w, i) => w.count >= allowances[i].limit);
      if (full.length) {
        const waitMs = Math.max(...full.map((w) => w.window_start + MAIL_WINDOW_MS - now));
        return { ok: true, value: { allowed: false, waitMs } };
      }
      const op = this.kv.atomic();
      for (const [i, w] of lives.entries()) {
        op.check(entries[i]).set(
          allowances[i].key,
          { count: w.count + 1, window_start: w.window_start } satisfies WindowCount,
          { expireIn: Math.max(1, w.window_start + MAIL_WINDOW_MS - now) },
        );
      }
      const res = await op.commit();
      return res.ok
        ? { ok: true, value: { allowed: true, value: lives.map((w) => w.window_start) } }
        : { ok: false };
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
    /** the DMs to send (in the same commit) when the reset confirms the account */
    announce?: (user: UserRecord) => OutgoingMessage[],
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
      const tell = user.confirmed ? [] : announce?.(after) ?? [];
      const op = this.kv.atomic().check(userEntry).check(codeEntry)
        .delete(codeEntry.key)
        .set(userEntry.key, after);
      for (const message of tell) this.queue.enqueue(op, { type: "deliver", message });
      const res = await op.commit();
      return res.ok ? { ok: true, value: { kind: "reset", before: user, after } } : { ok: false };
    });
  }
}
