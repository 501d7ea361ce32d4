import { errorMessage, type Logger } from "../../shared/log.ts";
import { MESSAGES } from "../../shared/http/messages.ts";
import { countMetric } from "../../shared/service/metrics.ts";
import { CloseCode } from "./protocol.ts";
import type { Connection, DocumentRoom } from "./room.ts";

/** Closes the connections of `rooms` silent for longer than `idleTimeoutMs`. */
export function closeIdle(rooms: Iterable<{ room: DocumentRoom | null }>, idleTimeoutMs: number) {
  const now = Date.now();
  for (const slot of rooms) {
    const room = slot.room;
    if (!room) continue;
    for (const conn of room.idleConnections(now, idleTimeoutMs)) {
      countMetric("collab_idle_closed");
      try {
        conn.close(CloseCode.Timeout, "Connection idle");
      } catch { /* already closed */ }
      room.leave(conn);
    }
  }
}

export interface MembershipSweepOptions {
  logger: Logger;
  /** true: still a member; false: not any more (close); throws: unknown (keep) */
  isMember(workspaceId: string, userId: string): Promise<boolean>;
  /**
   * Whether the account may still edit through the session a socket was opened by: "active";
   * "disabled" (disabled or rejected) or "signed_out" (the session ended: logout, a password
   * reset) close with 4401; throws: unknown (keep). Absent: accounts are not re-checked.
   */
  accountState?(userId: string, sessionId: string | null): Promise<AccountState>;
}

export type AccountState = "active" | "disabled" | "signed_out";

/** The periodic re-check of every open connection's account and workspace membership. */
export class MembershipSweep {
  readonly #options: MembershipSweepOptions;
  #sweeping = false;

  constructor(options: MembershipSweepOptions) {
    this.#options = options;
  }

  /**
   * Checks every open connection again (revocation lands within 5 s): once per user and
   * session that the account is still active and the session still stands (else 4401), and
   * once per (workspace, user) pair that the user is still a member and the workspace still
   * there (else 4403). A check that fails keeps the sockets until the next sweep.
   */
  async run(connections: Iterable<{ room: DocumentRoom; conn: Connection }>): Promise<void> {
    if (this.#sweeping) return;
    this.#sweeping = true;
    try {
      const bySession = new Map<string, { room: DocumentRoom; conn: Connection }[]>();
      const byPair = new Map<string, { room: DocumentRoom; conn: Connection }[]>();
      for (const entry of connections) {
        const { userId, workspaceId, sessionId = null } = entry.conn;
        group(bySession, JSON.stringify([userId, sessionId]), entry);
        group(byPair, JSON.stringify([workspaceId, userId]), entry);
      }
      const accountState = this.#options.accountState;
      const closed = new Set<string>();
      if (accountState) {
        await Promise.all([...bySession.entries()].map(async ([key, entries]) => {
          const [userId, sessionId] = JSON.parse(key) as [string, string | null];
          let state: AccountState;
          try {
            state = await accountState(userId, sessionId);
          } catch (err) {
            this.#options.logger.warn("account re-check failed; keeping the sockets", {
              user_id: userId,
              error: errorMessage(err),
            });
            return;
          }
          if (state === "active") return;
          for (const { conn } of entries) closed.add(conn.id);
          if (state === "disabled") {
            closeEach(entries, CloseCode.Unauthorized, "Account disabled", "collab_account_closed");
          } else {
            closeEach(entries, CloseCode.Unauthorized, "Session ended", "collab_session_closed");
          }
        }));
      }
      await Promise.all([...byPair.entries()].map(async ([key, entries]) => {
        const [workspaceId, userId] = JSON.parse(key) as [string, string];
        const open = entries.filter(({ conn }) => !closed.has(conn.id));
        if (open.length === 0) return;
        let member: boolean;
        try {
          member = await this.#options.isMember(workspaceId, userId);
        } catch (err) {
          this.#options.logger.warn("membership re-check failed; keeping the sockets", {
            workspace_id: workspaceId,
            error: errorMessage(err),
          });
          return;
        }
        if (member) return;
        closeEach(
          open,
          CloseCode.Forbidden,
          MESSAGES.notMember,
          "collab_membership_closed",
        );
      }));
    } finally {
      this.#sweeping = false;
    }
  }
}

function group<T>(map: Map<string, T[]>, key: string, value: T): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

function closeEach(
  entries: { room: DocumentRoom; conn: Connection }[],
  code: CloseCode,
  reason: string,
  metric: string,
): void {
  for (const { room, conn } of entries) {
    countMetric(metric);
    try {
      conn.close(code, reason);
    } catch { /* already closed */ }
    room.leave(conn);
  }
}
