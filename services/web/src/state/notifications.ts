/**
 * The signed-in user's notifications (every DM sent to them is kept): the newest page, the
 * unread count, marking read. `watchNotifications` keeps them fresh without a reload: a read
 * every `everyMs` while the tab is visible, and at once when the window regains focus or the
 * tab becomes visible again.
 */
import { signal } from "@preact/signals";
import { call, client, type Schemas } from "./api.ts";

export type Notification = Schemas["Notification"];

/** How many the list shows (and each poll reads). */
export const PAGE_SIZE = 20;
/** How often the count is re-read while the tab is visible (the bar promises 30 s at most). */
export const POLL_MS = 15_000;

/** The newest notifications first (null until the first read). */
export const notifications = signal<Notification[] | null>(null);
export const unreadCount = signal(0);
/** The cursor of the next older page (null on the last one). */
export const olderCursor = signal<string | null>(null);
/** The last poll's failure (null after a good read). */
export const notificationsError = signal<unknown>(null);

type Listener = (arrived: Notification[]) => void;
const listeners = new Set<Listener>();
let known: Set<string> | null = null;
/** Bumped by every mark: a read that began before it answers old states, and is dropped. */
let generation = 0;

/** Calls `listener` with the notifications each read brings that were not there before. */
export function onNewNotifications(listener: Listener): () => void {
  listeners.add(listener);
  return () => void listeners.delete(listener);
}

/** Reads the newest page; older pages already shown stay below it. */
export async function loadNotifications(): Promise<void> {
  const started = generation;
  try {
    const page = await call(
      client().GET("/api/notifications", { params: { query: { limit: PAGE_SIZE } } }),
    );
    if (started !== generation) return;
    const fresh = page.items;
    const ids = new Set(fresh.map((n) => n.notification_id));
    const oldestFresh = fresh[fresh.length - 1]?.notification_id ?? "";
    // Ids are ULIDs: an older one sorts lower. Keep older pages the user already opened.
    const older = (notifications.value ?? []).filter((n) =>
      !ids.has(n.notification_id) && n.notification_id < oldestFresh
    );
    const arrived = known ? fresh.filter((n) => !known!.has(n.notification_id)) : [];
    known = new Set([...(known ?? []), ...ids]);
    notifications.value = [...fresh, ...older];
    if (older.length === 0) olderCursor.value = page.next_cursor;
    unreadCount.value = page.unread_count;
    notificationsError.value = null;
    if (arrived.length > 0) { for (const listener of listeners) listener(arrived); }
  } catch (err) {
    notificationsError.value = err;
    throw err;
  }
}

/** Adds the next older page under the list. */
export async function loadOlderNotifications(): Promise<void> {
  const cursor = olderCursor.value;
  if (!cursor) return;
  const started = generation;
  const page = await call(
    client().GET("/api/notifications", {
      params: { query: { limit: PAGE_SIZE, cursor } },
    }),
  );
  if (started !== generation) return;
  const have = new Set((notifications.value ?? []).map((n) => n.notification_id));
  notifications.value = [
    ...(notifications.value ?? []),
    ...page.items.filter((n) => !have.has(n.notification_id)),
  ];
  for (const n of page.items) known?.add(n.notification_id);
  olderCursor.value = page.next_cursor;
  unreadCount.value = page.unread_count;
}

function markedLocally(ids: Set<string> | "all") {
  generation++;
  const now = new Date().toISOString();
  notifications.value = (notifications.value ?? []).map((n) =>
    !n.read_at && (ids === "all" || ids.has(n.notification_id)) ? { ...n, read_at: now } : n
  );
}

/** Marks these read; the count comes from the answer. */
export async function markNotificationsRead(ids: string[]): Promise<void> {
  if (ids.length === 0) return;
  const answer = await call(
    client().POST("/api/notifications/read", { body: { notification_ids: ids } }),
  );
  markedLocally(new Set(ids));
  unreadCount.value = answer.unread_count;
}

export async function markAllNotificationsRead(): Promise<void> {
  const answer = await call(client().POST("/api/notifications/read", { body: { all: true } }));
  markedLocally("all");
  unreadCount.value = answer.unread_count;
}

/** Forgets everything (sign-out: the next user starts empty). */
export function resetNotifications() {
  notifications.value = null;
  unreadCount.value = 0;
  olderCursor.value = null;
  notificationsError.value = null;
  known = null;
  generation++;
}

/**
 * Reads now, then every `everyMs` while the page is visible, and again on focus or when the
 * tab comes back. Answers the function that stops it.
 */
export function watchNotifications(everyMs = POLL_MS): () => void {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let live = true;
  let inFlight = false;
  const visible = () => globalThis.document?.visibilityState !== "hidden";
  const schedule = () => {
    clearTimeout(timer);
    if (live) timer = setTimeout(tick, everyMs);
  };
  const tick = async () => {
    // A read under way schedules the next one itself.
    if (!live || inFlight) return;
    if (visible()) {
      inFlight = true;
      clearTimeout(timer);
      await loadNotifications().catch(() => {});
      inFlight = false;
    }
    schedule();
  };
  const wake = () => {
    if (visible()) void tick();
  };
  void tick();
  globalThis.addEventListener?.("focus", wake);
  globalThis.document?.addEventListener("visibilitychange", wake);
  return () => {
    live = false;
    clearTimeout(timer);
    globalThis.removeEventListener?.("focus", wake);
    globalThis.document?.removeEventListener("visibilitychange", wake);
  };
}
