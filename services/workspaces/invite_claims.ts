import type { AuthClient } from "../auth/client.ts";
import type { MemberNews } from "./member_news.ts";
import type { WorkspacesStore } from "./store.ts";

/** How long a user found with no pending invite is not looked at again by this process. */
const CHECKED_TTL_MS = 60_000;
/** At most this many users are remembered as checked (the oldest are forgotten first). */
const CHECKED_MAX = 10_000;

/**
 * Pending invites become memberships of the account that confirmed their email. The workspaces
 * service claims them itself, wherever it is about to answer about memberships:
 *
 * - for a caller (every public route): the caller's token was issued to a confirmed account, so
 *   its email is verified; one `["invites_by_email", email]` read, then nothing for a minute;
 * - for a user known only by id (the membership check when the membership is missing, the
 *   internal list of a user's workspaces): the account's email from auth, when it is confirmed;
 * - for a workspace's member and invite lists: each pending invite whose email now belongs to
 *   a confirmed account is claimed for it before the list is answered.
 *
 * An invite is only ever made for an email no confirmed account holds, so once a confirmed user
 * was found with none, none appears for them later (the minute bounds a race with a concurrent
 * invite). Claiming is idempotent (`InvitesStore.accept`), and each membership it makes sends
 * the new member one `member_added` DM, as adding an existing account does.
 */
export class InviteClaims {
  /** user id → when they were last found with no pending invite */
  readonly #checked = new Map<string, number>();

  constructor(
    private readonly store: WorkspacesStore,
    private readonly auth: AuthClient,
    private readonly news: MemberNews,
  ) {}

  /** Turns the pending invites for `email` into memberships of `userId`, telling them of each. */
  async accept(email: string, userId: string): Promise<void> {
    const joined = await this.store.invites.accept(email, userId);
    await Promise.all(
      joined.map((invite) =>
        this.news.added(invite.workspace_id, userId, invite.role, { userId: invite.invited_by })
      ),
    );
  }

  /** Claims the pending invites of a caller's verified email for them. */
  async forCaller(userId: string, email: string): Promise<void> {
    if (this.#recentlyChecked(userId)) return;
    const normalized = email.trim().toLowerCase();
    if (await this.store.invites.existFor(normalized)) {
      await this.accept(normalized, userId);
    }
    this.#markChecked(userId);
  }

  /** Claims a user's pending invites, their email read from auth (a confirmed account only). */
  async forUser(userId: string): Promise<void> {
    if (this.#recentlyChecked(userId)) return;
    const user = await this.auth.getUser(userId);
    if (user?.confirmed) await this.forCaller(userId, user.email);
    // Only a confirmed account gets a token, so an unknown or unconfirmed one is not asked
    // about again for a while either.
    else this.#markChecked(userId);
  }

  /** Claims each pending invite of the workspace whose email a confirmed account now holds. */
  async forWorkspace(workspaceId: string): Promise<void> {
    const invites = await this.store.invites.list(workspaceId);
    if (invites.length === 0) return;
    await Promise.all(invites.map(async (invite) => {
      const user = await this.auth.getUserByEmail(invite.email);
      if (user?.confirmed) await this.accept(invite.email, user.user_id);
    }));
  }

  #recentlyChecked(userId: string): boolean {
    const at = this.#checked.get(userId);
    if (at === undefined) return false;
    if (Date.now() - at < CHECKED_TTL_MS) return true;
    this.#checked.delete(userId);
    return false;
  }

  #markChecked(userId: string): void {
    this.#checked.delete(userId);
    this.#checked.set(userId, Date.now());
    if (this.#checked.size > CHECKED_MAX) {
      this.#checked.delete(this.#checked.keys().next().value!);
    }
  }
}
