import { DELIVERY_KEYS } from "../../shared/delivery/mod.ts";
import { declareKeys } from "../../shared/kv/kv_keys.ts";
import { QUEUE_KEYS } from "../../shared/queue/queue.ts";
import type { LOGIN_LIMITS, MailKind } from "./store.ts";
import { derivedStatus, type UserRecord } from "./schemas.ts";

// Key builders: the only place the auth KV layout is spelled out (store.ts uses them).
export const userKey = (userId: string) => ["users", userId];
export const emailKey = (email: string) => ["users_by_email", email];
export const googleKey = (sub: string) => ["users_by_google", sub];
export const COUNT_TOTAL_KEY = ["user_counts", "total"];
export const COUNT_PENDING_KEY = ["user_counts", "pending"];
export const confirmCodeKey = (userId: string) => ["confirm_codes", userId];
export const refreshTokenKey = (hash: string) => ["refresh_tokens", hash];
export const refreshFamilyKey = (familyId: string) => ["refresh_families", familyId];
export const authCodeKey = (hash: string) => ["auth_codes", hash];
export const loginTriesKeys = (
  email: string,
  bucket: string,
): Record<keyof typeof LOGIN_LIMITS, Deno.KvKey> => ({
  account_address: ["login_tries", "account_address", email, bucket],
  address: ["login_tries", "address", bucket],
  account: ["login_tries", "account", email],
});
export const wsTicketKey = (hash: string) => ["ws_tickets", hash];
export const googleStateKey = (hash: string) => ["google_states", hash];
export const activityDayKey = (
  day: string,
  userId: string,
) => ["user_activity_by_day", day, userId];
export const signingKeyKey = (kid: string) => ["signing_keys", kid];
export const resetCodeKey = (userId: string) => ["reset_codes", userId];
export const mailLimitKey = (kind: MailKind, scope: "email" | "address", value: string) => [
  "mail_limits",
  kind,
  scope,
  value,
];
export const confirmTriesKey = (address: string) => ["rate_limits", "confirm_tries", address];
export const clientRegistrationsKey = (
  address: string,
) => ["rate_limits", "client_registrations", address];
export const oauthClientKey = (clientId: string) => ["oauth_clients", clientId];
export const adminKey = (userId: string) => ["users_by_role", "admin", userId];
export const ADMINS_PREFIX = ["users_by_role", "admin"];
export const SETUP_TOKEN_KEY = ["setup_token"];
/**
 * The admin list's index by derived status (`pending`, `approved`, `rejected`); each entry's
 * key ends in the user id, so a range of one is oldest first, like `["users"]` itself.
 */
export const usersByStatus = (status: string): Deno.KvKey => ["users_by_status", status];
/** The index entries of one account. */
export const userIndexKeys = (user: UserRecord): Deno.KvKey[] => [
  [...usersByStatus(derivedStatus(user)), user.user_id],
];
/** Set once every account is in the index above (start-up, and after a restore). */
export const USER_INDEXES_BUILT: Deno.KvKey = ["index_builds", "user_lists"];
export const CURRENT_SIGNING_KEY = ["signing_key_current"];
/** A notification kept for its recipient (store/notifications.ts), newest last by id */
export const notificationKey = (userId: string, id: string) => ["notifications", userId, id];
export const notificationsPrefix = (userId: string) => ["notifications", userId];
/** The unread ones of a user, by id (an index beside the notifications) */
export const unreadNotificationKey = (userId: string, id: string) => [
  "notifications_unread",
  userId,
  id,
];
export const unreadNotificationsPrefix = (userId: string) => ["notifications_unread", userId];
/** How many unread notifications a user has (a counter changed with each write) */
export const unreadCountKey = (userId: string) => ["notification_counts", userId];

/**
 * Every key family the auth service writes, with its backup class: the one list its backup
 * and restore read.
 */
export const KEY_FAMILIES = declareKeys(
  {
    // accounts and what is counted about them
    users: "data",
    users_by_email: "data",
    users_by_google: "data",
    users_by_role: "data",
    user_counts: "data",
    user_activity_by_day: "data",
    notifications: "data",
    notifications_unread: "data",
    notification_counts: "data",
    // OAuth clients registered dynamically (public, no secret): they outlive sessions
    oauth_clients: "data",
    // the admin list's index, built from the accounts (start-up and after a restore)
    users_by_status: "derived",
    index_builds: "derived",
    // sessions and one-time secrets: after a restore everyone signs in again (the signing keys
    // stay, so access tokens already issued run out their hour)
    refresh_tokens: "session",
    refresh_families: "session",
    auth_codes: "session",
    ws_tickets: "session",
    google_states: "session",
    confirm_codes: "session",
    reset_codes: "session",
    setup_token: "session",
    // this deployment's secrets: tokens issued here keep verifying after a restore
    signing_keys: "local",
    signing_key_current: "local",
    // throttles and rate-limit windows: a restore neither brings old ones back nor resets live ones
    login_tries: "local",
    mail_limits: "local",
    rate_limits: "local",
  },
  QUEUE_KEYS,
  DELIVERY_KEYS,
);
