import type { AuthClient } from "../auth/client.ts";
import type { InviteClaims } from "./invite_claims.ts";
import type { MemberNews } from "./member_news.ts";
import { requireActiveMember } from "./rules.ts";
import type { MembershipRecord, PendingInvite } from "./schemas.ts";
import type { WorkspacesStore } from "./store.ts";

/** What adding an email answers: the membership, or the pending invite it became. */
export type AddMemberResult =
  | { kind: "member"; membership: MembershipRecord }
  | { kind: "invited"; email: string; role: "editor" | "viewer" };

/**
 * The member operations that need the auth service besides this service's store: adding by
 * email (a user lookup decides between a membership and an invite) and the member list with
 * each member's profile.
 */
export class MemberOperations {
  constructor(
    private readonly store: WorkspacesStore,
    private readonly auth: AuthClient,
    private readonly claims: InviteClaims,
    private readonly news: MemberNews,
  ) {}

  /**
   * Adds the account that owns `email`, or invites the email. A confirmed account becomes a
   * member; an unknown or never-confirmed one gets a pending invite, which becomes a membership
   * of whoever confirms the email.
   */
  async add(
    workspaceId: string,
    callerId: string,
    email: string,
    role: "editor" | "viewer",
    callerName = "",
  ): Promise<AddMemberResult> {
    // Checked here first so a refused caller costs no user lookup.
    await this.store.requireCanAdd(workspaceId, callerId);
    const user = await this.auth.getUserByEmail(email);
    if (user?.confirmed) {
      const membership = await this.store.addMember({
        workspaceId,
        callerId,
        userId: user.user_id,
        email,
        role,
      });
      await this.news.added(workspaceId, user.user_id, role, { name: callerName });
      return { kind: "member", membership };
    }
    await this.store.invites.record({ workspaceId, callerId, email, role });
    return { kind: "invited", email, role };
  }

  /** The members with their email and name, for any member of an active workspace. */
  async listWithProfiles(workspaceId: string, callerId: string) {
    const view = await this.store.membership(workspaceId, callerId);
    requireActiveMember(view.workspace, view.membership);
    await this.claims.forWorkspace(workspaceId);
    const members = await this.store.listMembers(workspaceId);
    const profiles = await this.auth.getUsers(members.map((m) => m.user_id));
    return members.map((m) => {
      const p = profiles.get(m.user_id);
      return { ...m, email: p?.email ?? "", name: p?.name ?? "" };
    });
  }

  /** The pending invites as a member sees them, oldest first. */
  async pendingInvites(workspaceId: string, callerId: string): Promise<PendingInvite[]> {
    const view = await this.store.membership(workspaceId, callerId);
    requireActiveMember(view.workspace, view.membership);
    await this.claims.forWorkspace(workspaceId);
    const invites = await this.store.invites.list(workspaceId);
    return invites.map((i) => ({
      workspace_id: i.workspace_id,
      email: i.email,
      role: i.role,
      ...(i.created_at ? { invited_at: i.created_at } : {}),
      ...(i.invited_by ? { invited_by: i.invited_by } : {}),
    }));
  }
}
