import { retryCommit } from "../../../shared/kv/kv.ts";
import {
  notificationKey,
  notificationsPrefix,
  unreadCountKey,
  unreadNotificationKey,
  unreadNotificationsPrefix,
} from "../keys.ts";

/** A direct message as kept for its recipient. */
export interface NotificationRecord {
  notification_id: string;
  template: string;
  data: Record<string, unknown>;
  created_at: string;
  read_at: string | null;
}

const U64_WRAP = 1n << 64n;
/** Marks per commit when everything is read at once. */
const READ_BATCH = 200;

/**
 * Every DM kept for its recipient: `["notifications", userId, id]` (ids sort by time), an
 * unread index beside it, and an unread counter written in the same commits, so a page and the
 * count cost the same however many a user has.
 */
export class NotificationStore {
  constructor(private readonly kv: Deno.Kv) {}

  /** Keeps `record` for `userId`, once: a second call with the same id changes nothing. */
  async add(userId: string, record: NotificationRecord): Promise<boolean> {
    const key = notificationKey(userId, record.notification_id);
    const res = await this.kv.atomic().check({ key, versionstamp: null })
      .set(key, record)
      .set(unreadNotificationKey(userId, record.notification_id), true)
      .sum(unreadCountKey(userId), 1n)
      .commit();
    return res.ok;
  }

  /** A page of `userId`'s notifications, newest first, after the id `before` (exclusive). */
  async page(userId: string, limit: number, before: string | null) {
    const items: NotificationRecord[] = [];
    const selector: Deno.KvListSelector = before
      ? { prefix: notificationsPrefix(userId), end: notificationKey(userId, before) }
      : { prefix: notificationsPrefix(userId) };
    for await (
      const e of this.kv.list<NotificationRecord>(selector, { reverse: true, limit: limit + 1 })
    ) items.push(e.value);
    const more = items.length > limit;
    if (more) items.pop();
    return { items, next: more ? items[items.length - 1].notification_id : null };
  }

  async unreadCount(userId: string): Promise<number> {
    const count = (await this.kv.get<Deno.KvU64>(unreadCountKey(userId))).value;
    return count ? Number(count.value) : 0;
  }

  /** Marks `ids` of `userId` read; ids that are not theirs, or read already, change nothing. */
  async markRead(userId: string, ids: string[], at: string): Promise<void> {
    const unique = [...new Set(ids)];
    // getMany reads at most 10 keys: one commit per 10 notifications.
    for (let i = 0; i < unique.length; i += 10) {
      const keys = unique.slice(i, i + 10).map((id) => notificationKey(userId, id));
      await retryCommit(async () => {
        const entries = await this.kv.getMany<NotificationRecord[]>(keys);
        const unread = entries.filter((e) => e.value && !e.value.read_at);
        if (unread.length === 0) return { ok: true, value: undefined };
        const op = this.kv.atomic();
        for (const e of unread) {
          op.check(e).set(e.key, { ...e.value!, read_at: at })
            .delete(unreadNotificationKey(userId, e.value!.notification_id));
        }
        op.sum(unreadCountKey(userId), U64_WRAP - BigInt(unread.length));
        const res = await op.commit();
        return res.ok ? { ok: true, value: undefined } : { ok: false };
      });
    }
  }

  /** Marks every unread notification of `userId` read, a batch per commit. */
  async markAllRead(userId: string, at: string): Promise<void> {
    while (true) {
      const ids: string[] = [];
      for await (
        const e of this.kv.list({ prefix: unreadNotificationsPrefix(userId) }, {
          limit: READ_BATCH,
        })
      ) ids.push(e.key[2] as string);
      if (ids.length === 0) return;
      await this.markRead(userId, ids, at);
    }
  }
}
