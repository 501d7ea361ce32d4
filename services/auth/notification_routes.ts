import { createRoute, z } from "@hono/zod-openapi";
import { internalBody } from "../../shared/http/internal_input.ts";
import { bearer, body, errors, json } from "../../shared/http/openapi.ts";
import { requireCaller, type ServiceApp } from "../../shared/http/service_app.ts";
import { outgoingMessageSchema } from "../../shared/delivery/message.ts";
import { nowIso } from "../../shared/time.ts";
import { normalizeEmail } from "./schemas.ts";
import type { AuthStore } from "./store.ts";

/** A notification id: the ULID of the queue message that carried the DM. */
const NOTIFICATION_ID = /^[0-9A-HJKMNP-TV-Z]{26}$/;

const notificationSchema = z.object({
  notification_id: z.string(),
  template: z.string(),
  data: z.record(z.string(), z.unknown()),
  created_at: z.string(),
  read_at: z.string().nullable(),
}).openapi("Notification");

const LIMIT_RULE = "limit must be a whole number from 1 to 100";

const listQuery = z.object({
  limit: z.coerce.number({ error: LIMIT_RULE }).int(LIMIT_RULE).min(1, LIMIT_RULE)
    .max(100, LIMIT_RULE).default(50).openapi({ description: "1 to 100 (default 50)" }),
  cursor: z.string().regex(NOTIFICATION_ID, "cursor is not a cursor this list gave").optional()
    .openapi({ description: "The `next_cursor` of the previous page" }),
});

const READ_BODY_RULE = "Give notification_ids (an array) or all: true";

/**
 * What is wrong with a mark-read body: the rule of the field it gives (`notification_ids` or
 * `all`), else how to give one.
 */
function readBodyProblem(issue: { input?: unknown; errors?: { message: string }[][] }): string {
  const input = issue.input;
  if (!input || typeof input !== "object" || Array.isArray(input)) return READ_BODY_RULE;
  const branch = "notification_ids" in input ? 0 : "all" in input ? 1 : -1;
  return issue.errors?.[branch]?.[0]?.message ?? READ_BODY_RULE;
}

const readBody = z.union([
  z.object({
    notification_ids: z.array(
      z.string({ error: "notification_ids must be notification ids" }).max(
        40,
        "notification_ids: an id is too long",
      ),
      { error: "notification_ids must be an array" },
    ).max(500, "notification_ids names at most 500 notifications"),
  }),
  z.object({ all: z.literal(true, { error: "all must be true" }) }),
], { error: readBodyProblem }).openapi("MarkNotificationsRead");

const dmBody = z.object({
  user_id: z.string().min(1).max(100),
  template: z.enum(["member_added"]),
  data: z.record(z.string(), z.unknown()),
});

const keepBody = z.object({
  message_id: z.string().regex(NOTIFICATION_ID),
  message: outgoingMessageSchema,
});

/** Keeps the DM `message` (queue message `messageId`) for the user whose email it went to. */
export async function keepNotification(
  store: AuthStore,
  message: z.infer<typeof outgoingMessageSchema>,
  messageId: string,
): Promise<void> {
  if (message.channel !== "dm" || !NOTIFICATION_ID.test(messageId)) return;
  const user = await store.users.getUserByEmail(normalizeEmail(message.to));
  if (!user) return;
  await store.notifications.add(user.user_id, {
    notification_id: messageId,
    template: message.template,
    data: message.data,
    created_at: nowIso(),
    read_at: null,
  });
}

/**
 * The notifications a user has: every DM sent to them, kept (peers hand theirs over through
 * `/internal/notifications`). A user sees only their own; ids of others' are ignored.
 */
export function mountNotificationRoutes(
  app: ServiceApp,
  store: AuthStore,
  send: (
    userEmail: string,
    template: "member_added",
    data: Record<string, unknown>,
  ) => Promise<void>,
): void {
  /** A peer without a queue of its own (workspaces) sends a DM to a user through this one. */
  app.post("/internal/dms", async (c) => {
    const { user_id, template, data } = await internalBody(c, dmBody);
    const user = await store.users.getUser(user_id);
    if (user?.enabled) await send(user.email, template, data);
    return c.json({ queued: !!user?.enabled }, 200);
  });

  app.post("/internal/notifications", async (c) => {
    const { message_id, message } = await internalBody(c, keepBody);
    await keepNotification(store, message, message_id);
    return c.json({ kept: true as const }, 200);
  });

  app.openapi(
    createRoute({
      tags: ["Notifications"],
      security: bearer,
      method: "get",
      path: "/api/notifications",
      summary: "The caller's notifications, newest first, a page at a time, with the unread count",
      request: { query: listQuery },
      responses: {
        200: json(
          z.object({
            items: z.array(notificationSchema),
            unread_count: z.number().int(),
            next_cursor: z.string().nullable(),
          }).openapi("NotificationPage"),
          "A page",
        ),
        ...errors(400, 401),
      },
    }),
    async (c) => {
      const caller = requireCaller(c);
      const { limit, cursor = null } = c.req.valid("query");
      const [page, unread] = await Promise.all([
        store.notifications.page(caller.user_id, limit, cursor),
        store.notifications.unreadCount(caller.user_id),
      ]);
      return c.json({ items: page.items, unread_count: unread, next_cursor: page.next }, 200);
    },
  );

  app.openapi(
    createRoute({
      tags: ["Notifications"],
      security: bearer,
      method: "post",
      path: "/api/notifications/read",
      summary: "Mark notifications read: `notification_ids`, or `all: true`",
      request: body(readBody),
      responses: {
        200: json(z.object({ unread_count: z.number().int() }), "The unread count"),
        ...errors(400, 401),
      },
    }),
    async (c) => {
      const caller = requireCaller(c);
      const input = c.req.valid("json");
      const at = nowIso();
      if ("all" in input) await store.notifications.markAllRead(caller.user_id, at);
      else {
        const ids = input.notification_ids.filter((id) => NOTIFICATION_ID.test(id));
        await store.notifications.markRead(caller.user_id, ids, at);
      }
      return c.json({ unread_count: await store.notifications.unreadCount(caller.user_id) }, 200);
    },
  );
}
