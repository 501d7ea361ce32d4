import type { OutgoingMessage } from "../../shared/delivery/message.ts";
import { z } from "zod";
import type { UserAccess } from "../../shared/http/access_cache.ts";
import { InternalClient } from "../../shared/service/internal_client.ts";
import type { ServiceDirectory } from "../../shared/service/service_directory.ts";

/** A user as other services see it (never the password hash). */
export const userProfileSchema = z.object({
  user_id: z.string(),
  email: z.string(),
  name: z.string(),
  role: z.enum(["admin", "member"]),
  /** `approved`, `pending` or `rejected` (derived as the spec's admin list does) */
  status: z.enum(["approved", "pending", "rejected"]),
  approved: z.boolean(),
  confirmed: z.boolean(),
  enabled: z.boolean(),
  created_at: z.string(),
  updated_at: z.string(),
  last_login: z.string().nullable(),
});
export type UserProfile = z.infer<typeof userProfileSchema>;

export const authStatsSchema = z.object({
  total_users: z.number().int(),
  pending_users: z.number().int(),
  active_users_last_7_days: z.number().int(),
});
export type AuthStats = z.infer<typeof authStatsSchema>;

export const wsTicketSchema = z.object({
  user_id: z.string(),
  role: z.enum(["admin", "member"]),
  approved: z.boolean(),
  expires_at: z.string(),
  /** the sign-in session whose access token minted the ticket; null without one */
  sid: z.string().nullable().default(null),
});
export type WsTicket = z.infer<typeof wsTicketSchema>;

export type { UserAccess };

export const userAccessSchema = z.object({
  user_id: z.string(),
  active: z.boolean(),
  role: z.enum(["admin", "member"]),
  sessions_revoked_at: z.number().nullable().optional(),
  session_live: z.boolean().optional(),
});

/** The typed client other services use to reach the auth service's `/internal` routes. */
export class AuthClient {
  readonly #client: InternalClient;

  constructor(directory: ServiceDirectory, secret: string) {
    this.#client = new InternalClient("auth", directory.handler("auth"), secret);
  }

  getUser(userId: string): Promise<UserProfile | null> {
    return this.#client.json(userProfileSchema, "GET", `/internal/users/${enc(userId)}`);
  }

  /** Looks a user up by email (trimmed and lower-cased by the auth service). */
  getUserByEmail(email: string): Promise<UserProfile | null> {
    return this.#client.json(userProfileSchema, "GET", `/internal/users/by-email/${enc(email)}`);
  }

  /** Profiles for many ids at once; unknown ids are simply absent from the answer. */
  /** Sends the DM `template` to the user `userId` through auth's queue (a peer without one). */
  async sendDm(userId: string, template: "member_added", data: Record<string, unknown>) {
    await this.#client.send("POST", "/internal/dms", { body: { user_id: userId, template, data } });
  }

  /** Keeps a DM for its recipient's notifications (the queue message's id makes it once). */
  async keepNotification(message: OutgoingMessage, messageId: string): Promise<void> {
    await this.#client.send("POST", "/internal/notifications", {
      body: { message_id: messageId, message },
    });
  }

  async getUsers(userIds: string[]): Promise<Map<string, UserProfile>> {
    if (userIds.length === 0) return new Map();
    const found = await this.#client.json(
      z.object({ users: z.array(userProfileSchema) }),
      "POST",
      "/internal/users/lookup",
      { body: { user_ids: [...new Set(userIds)] } },
    );
    return new Map((found?.users ?? []).map((u) => [u.user_id, u]));
  }

  /** Every user, for the admin list. */
  async listUsers(): Promise<UserProfile[]> {
    const found = await this.#client.json(
      z.object({ users: z.array(userProfileSchema) }),
      "GET",
      "/internal/users",
    );
    return found?.users ?? [];
  }

  /**
   * One page of the admin list: at most `limit` users, oldest first, after the user `after`;
   * with `status`, only those whose derived status it is. `next_after` is null on the last page.
   */
  async listUsersPage(
    page: { limit: number; after?: string; status?: "pending" | "approved" },
  ): Promise<{ users: UserProfile[]; next_after: string | null }> {
    const query = new URLSearchParams({ limit: String(page.limit) });
    if (page.after !== undefined) query.set("after", page.after);
    if (page.status !== undefined) query.set("status", page.status);
    return await this.#client.call(
      z.object({ users: z.array(userProfileSchema), next_after: z.string().nullable() }),
      "GET",
      `/internal/users?${query}`,
    );
  }

  /**
   * The user's live access state (`active` false for a disabled or rejected account), or null
   * for an unknown user; with `sid`, also whether that session still stands (`session_live`).
   * Callers on a hot path wrap it in `AccessCache` (shared/http/access_cache.ts).
   */
  access(userId: string, sid?: string): Promise<UserAccess | null> {
    const query = sid === undefined ? "" : `?sid=${enc(sid)}`;
    return this.#client.json(
      userAccessSchema,
      "GET",
      `/internal/users/${enc(userId)}/access${query}`,
    );
  }

  /**
   * Uses a WebSocket ticket up (the socket it opens is its only one) and answers its snapshot,
   * or null when it is unknown, used or expired, its account has been disabled or rejected
   * since, or it was minted before the account's sessions or its own session were revoked; the
   * role is the lower of the snapshot's and the live one (an account auth no longer knows keeps
   * the snapshot).
   */
  redeemWsTicket(ticket: string): Promise<WsTicket | null> {
    return this.#client.json(
      wsTicketSchema,
      "POST",
      `/internal/ws-tickets/${enc(ticket)}/redeem`,
    );
  }

  async approve(userId: string): Promise<UserProfile | null> {
    return await this.#client.json(
      userProfileSchema,
      "POST",
      `/internal/users/${enc(userId)}/approve`,
    );
  }

  async reject(userId: string): Promise<UserProfile | null> {
    return await this.#client.json(
      userProfileSchema,
      "POST",
      `/internal/users/${enc(userId)}/reject`,
    );
  }

  async setRole(userId: string, role: "admin" | "member"): Promise<UserProfile | null> {
    return await this.#client.json(
      userProfileSchema,
      "PUT",
      `/internal/users/${enc(userId)}/role`,
      {
        body: { role },
      },
    );
  }

  async setEnabled(userId: string, enabled: boolean): Promise<UserProfile | null> {
    return await this.#client.json(
      userProfileSchema,
      "PUT",
      `/internal/users/${enc(userId)}/enabled`,
      { body: { enabled } },
    );
  }

  /** The maintained counters the admin metrics show. */
  async stats(): Promise<AuthStats> {
    return await this.#client.json(authStatsSchema, "GET", "/internal/stats") ??
      { total_users: 0, pending_users: 0, active_users_last_7_days: 0 };
  }
}

const enc = encodeURIComponent;
