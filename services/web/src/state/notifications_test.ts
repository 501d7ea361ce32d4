/// <reference lib="deno.ns" />
import assert from "node:assert/strict";
import { Hono } from "hono";
import { serve } from "./test_server.ts";
import {
  loadNotifications,
  loadOlderNotifications,
  markAllNotificationsRead,
  markNotificationsRead,
  type Notification,
  notifications,
  olderCursor,
  onNewNotifications,
  resetNotifications,
  unreadCount,
  watchNotifications,
} from "./notifications.ts";

const note = (id: string, read = false): Notification => ({
  notification_id: id,
  template: "mentioned",
  data: {},
  created_at: "2026-01-01T00:00:00.000Z",
  read_at: read ? "2026-01-01T00:01:00.000Z" : null,
});

/** A server holding `items` newest first, paging by 2 with the id as the cursor. */
function notificationServer(items: Notification[]) {
  return new Hono()
    .get("/api/notifications", (c) => {
      const limit = Number(c.req.query("limit") ?? 50);
      const cursor = c.req.query("cursor");
      const from = cursor ? items.findIndex((n) => n.notification_id === cursor) + 1 : 0;
      const page = items.slice(from, from + Math.min(limit, 2));
      const more = from + page.length < items.length;
      return c.json({
        items: page,
        unread_count: items.filter((n) => !n.read_at).length,
        next_cursor: more ? page[page.length - 1].notification_id : null,
      });
    })
    .post("/api/notifications/read", async (c) => {
      const body = await c.req.json();
      for (const n of items) {
        if (body.all || body.notification_ids.includes(n.notification_id)) n.read_at = "now";
      }
      return c.json({ unread_count: items.filter((n) => !n.read_at).length });
    });
}

Deno.test("notifications store: the newest page, older pages under it, marks and the count", async () => {
  resetNotifications();
  const items = [note("05"), note("04"), note("03", true), note("02"), note("01")];
  using server = serve(notificationServer(items));
  await loadNotifications();
  assert.deepEqual(server.seen[0].query, { limit: "20" });
  assert.deepEqual(notifications.value?.map((n) => n.notification_id), ["05", "04"]);
  assert.equal(unreadCount.value, 4);
  assert.equal(olderCursor.value, "04");
  await loadOlderNotifications();
  assert.deepEqual(server.seen[1].query, { limit: "20", cursor: "04" });
  assert.deepEqual(notifications.value?.map((n) => n.notification_id), ["05", "04", "03", "02"]);
  // a new one arrives: the next read puts it on top and keeps the older pages
  items.unshift(note("06"));
  await loadNotifications();
  assert.deepEqual(
    notifications.value?.map((n) => n.notification_id),
    ["06", "05", "04", "03", "02"],
  );
  await markNotificationsRead(["05"]);
  assert.deepEqual(server.seen.at(-1)?.body, { notification_ids: ["05"] });
  assert.equal(unreadCount.value, 4);
  assert.ok(notifications.value?.find((n) => n.notification_id === "05")?.read_at);
  await markAllNotificationsRead();
  assert.deepEqual(server.seen.at(-1)?.body, { all: true });
  assert.equal(unreadCount.value, 0);
  assert.ok(notifications.value?.every((n) => n.read_at));
});

Deno.test("notifications store: a read that began before a mark does not bring the old count back", async () => {
  resetNotifications();
  const items = [note("02"), note("01")];
  let release = () => {};
  let slow = false;
  const app = notificationServer(items);
  using _server = serve(
    // A slow read: answered (with the count of its time) before the mark, delivered after it.
    new Hono().use("/api/notifications", async (_c, next) => {
      const hold = slow;
      await next();
      if (hold) await new Promise<void>((r) => release = r);
    }).route("/", app),
  );
  await loadNotifications();
  slow = true;
  const stale = loadNotifications();
  await new Promise((r) => setTimeout(r, 10));
  slow = false;
  await markAllNotificationsRead();
  release();
  await stale;
  assert.equal(unreadCount.value, 0);
});

Deno.test("notifications store: the watch reads at once, on a timer and on focus, and tells what arrived", async () => {
  resetNotifications();
  const items = [note("01")];
  using server = serve(notificationServer(items));
  const arrived: string[] = [];
  const unsubscribe = onNewNotifications((fresh) =>
    arrived.push(...fresh.map((n) => n.notification_id))
  );
  const stop = watchNotifications(60_000);
  const settle = () => new Promise((r) => setTimeout(r, 30));
  await settle();
  assert.equal(server.seen.length, 1, "read at once");
  assert.deepEqual(arrived, [], "the first read is what was there");
  items.unshift(note("02"));
  globalThis.dispatchEvent(new Event("focus"));
  await settle();
  assert.equal(server.seen.length, 2, "read on focus");
  assert.deepEqual(arrived, ["02"]);
  assert.equal(unreadCount.value, 2);
  stop();
  unsubscribe();
  globalThis.dispatchEvent(new Event("focus"));
  await settle();
  assert.equal(server.seen.length, 2, "nothing after stop");

  const timed = watchNotifications(40);
  await new Promise((r) => setTimeout(r, 150));
  timed();
  assert.ok(server.seen.length >= 4, `read again on the timer (${server.seen.length})`);
});
