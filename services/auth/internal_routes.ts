import type { Context } from "hono";
import { effectiveRole, type UserAccess } from "../../shared/http/access_cache.ts";
import { AppError } from "../../shared/http/app_error.ts";
import { internalBody } from "../../shared/http/internal_input.ts";
import {
  describeZodError,
  type ServiceApp,
  type ServiceEnv,
} from "../../shared/http/service_app.ts";
import { toIso } from "../../shared/time.ts";
import { type Accounts, sessionOutlivedRevocation } from "./accounts.ts";
import {
  enabledBodySchema,
  lookupBodySchema,
  normalizeEmail,
  roleBodySchema,
  toProfile,
  userPageQuerySchema,
  type UserRecord,
} from "./schemas.ts";
import type { WsTicketRecord } from "./store.ts";

const MAX_ID = 100;

function userId(c: Context<ServiceEnv>): string {
  const id = c.req.param("id") ?? "";
  if (!id || id.length > MAX_ID) throw new AppError(404, "User not found");
  return id;
}

/** Active unless disabled or rejected; a pending account is active (its token says unapproved). */
function toAccess(user: UserRecord): UserAccess {
  return {
    user_id: user.user_id,
    active: user.enabled && user.status !== "rejected",
    role: user.role,
  };
}

function found(result: { after: UserRecord } | null) {
  if (!result) throw new AppError(404, "User not found");
  return toProfile(result.after);
}

/**
 * The routes peers call (services/auth/client.ts). The gateway never routes `/internal`, and
 * they are left out of the public OpenAPI document.
 */
export function mountInternalRoutes(
  app: ServiceApp,
  accounts: Accounts,
  rotateKey: () => Promise<string>,
): void {
  const { store, buildMessage, config } = accounts.deps;

  app.get("/internal/users", async (c) => {
    const query = userPageQuerySchema.safeParse(c.req.query());
    if (!query.success) throw new AppError(400, describeZodError(query.error));
    const { limit, after, status } = query.data;
    if (limit !== undefined) {
      const page = await store.users.listUsersPage(status, { limit, after });
      return c.json({ users: page.items.map(toProfile), next_after: page.next });
    }
    const users = await store.users.listUsers();
    return c.json({ users: users.map(toProfile) });
  });

  app.post("/internal/users/lookup", async (c) => {
    const { user_ids } = await internalBody(c, lookupBodySchema);
    const users = await store.users.getUsers([...new Set(user_ids)]);
    return c.json({ users: users.map(toProfile) });
  });

  app.get("/internal/users/by-email/:email", async (c) => {
    const email = normalizeEmail(c.req.param("email"));
    const user = email.length <= 320 ? await store.users.getUserByEmail(email) : null;
    if (!user) throw new AppError(404, "User not found");
    return c.json(toProfile(user));
  });

  app.get("/internal/users/:id", async (c) => {
    const user = await store.users.getUser(userId(c));
    if (!user) throw new AppError(404, "User not found");
    return c.json(toProfile(user));
  });

  // The live access state the gateway, ideas and collab check on every request (through
  // shared/http/access_cache.ts): revocation lands within seconds, not at the token's expiry.
  // `?sid=` (a token's session) adds whether that session still stands.
  app.get("/internal/users/:id/access", async (c) => {
    const sid = c.req.query("sid");
    const [user, revoked] = await Promise.all([
      store.users.getUser(userId(c)),
      sid && sid.length <= MAX_ID ? store.sessions.sessionRevoked(sid) : Promise.resolve(true),
    ]);
    if (!user) throw new AppError(404, "User not found");
    const access: UserAccess = {
      ...toAccess(user),
      sessions_revoked_at: user.sessions_revoked_at ?? null,
    };
    if (sid !== undefined) {
      access.session_live = !revoked && sessionOutlivedRevocation(user, sid);
    }
    return c.json(access);
  });

  app.post("/internal/users/:id/approve", async (c) => {
    const result = await store.users.updateUser(userId(c), (u) => {
      if (u.approved && u.status === "approved" && u.enabled) return null;
      return {
        user: { ...u, approved: true, status: "approved", enabled: true },
        messages: u.approved ? [] : [
          buildMessage("dm", u.email, "user_approved", {
            name: u.name,
            login_url: `${config.base.publicUrl}/`,
          }),
        ],
      };
    });
    return c.json(found(result));
  });

  app.post("/internal/users/:id/reject", async (c) => {
    const result = await store.users.updateUser(userId(c), (u) => {
      if (!u.approved && u.status === "rejected" && !u.enabled) return null;
      return { user: { ...u, approved: false, status: "rejected", enabled: false } };
    });
    return c.json(found(result));
  });

  app.put("/internal/users/:id/role", async (c) => {
    const id = userId(c);
    const { role } = await internalBody(c, roleBodySchema);
    const result = await store.users.updateUser(
      id,
      (u) => (u.role === role ? null : { user: { ...u, role } }),
    );
    return c.json(found(result));
  });

  app.put("/internal/users/:id/enabled", async (c) => {
    const id = userId(c);
    const { enabled } = await internalBody(c, enabledBodySchema);
    // Enabling or disabling changes the account's sign-in, not its profile: updated_at stays.
    const result = await store.users.updateUser(
      id,
      (u) => (u.enabled === enabled ? null : { user: { ...u, enabled } }),
      { touch: false },
    );
    return c.json(found(result));
  });

  /**
   * A ticket's snapshot as it may be used now. A ticket of an account disabled or rejected
   * since it was minted opens nothing, nor one minted before the account's sessions were
   * revoked (a password reset) or by a session revoked since (logout); a demoted admin's
   * ticket carries the lower role.
   */
  async function ticketAnswer(record: WsTicketRecord | null) {
    if (!record) throw new AppError(404, "Ticket not found");
    const user = await store.users.getUser(record.user_id);
    const access = user ? toAccess(user) : null;
    if (access && !access.active) throw new AppError(404, "Ticket not found");
    if (user && !(await ticketSessionLive(user, record))) {
      throw new AppError(404, "Ticket not found");
    }
    return {
      user_id: record.user_id,
      role: access ? effectiveRole(record.role, access.role) : record.role,
      approved: record.approved,
      expires_at: toIso(new Date(record.expires_at)),
      sid: record.sid,
    };
  }

  async function ticketSessionLive(user: UserRecord, record: WsTicketRecord): Promise<boolean> {
    if (record.created_at < (user.sessions_revoked_at ?? 0)) return false;
    if (!record.sid) return true;
    return sessionOutlivedRevocation(user, record.sid) &&
      !(await store.sessions.sessionRevoked(record.sid));
  }

  // Uses the ticket up as its socket opens (collab, or the gateway before it relays to collab
  // deployed apart): a ticket opens one socket.
  app.post("/internal/ws-tickets/:ticket/redeem", async (c) => {
    const ticket = c.req.param("ticket");
    return c.json(
      await ticketAnswer(ticket.length <= 100 ? await store.grants.takeWsTicket(ticket) : null),
    );
  });

  app.get("/internal/stats", async (c) => c.json(await store.users.stats()));

  app.post("/internal/signing-keys/rotate", async (c) => {
    try {
      return c.json({ kid: await rotateKey() });
    } catch (err) {
      throw new AppError(409, err instanceof Error ? err.message : String(err));
    }
  });
}
