import { AppError } from "../../shared/http/app_error.ts";
import type { MembershipRecord, Workspace, WorkspaceRole } from "./schemas.ts";
import { MESSAGES as SHARED_MESSAGES } from "../../shared/http/messages.ts";

/**
 * Who may do what, and the exact answers when they may not. Pure functions over what the
 * store read, so a route's first check and the store's re-check inside its atomic retry loop
 * are one piece of code, in the documented order: membership (403), role (403), then
 * existence (404).
 */
export const MESSAGES = {
  notMember: SHARED_MESSAGES.notMember,
  notFound: "Workspace not found",
  updateRole: "Only the owner or an editor can update the workspace",
  addRole: "Only the owner or an editor can add members",
  cancelInviteRole: "Only the owner or an editor can cancel invites",
  inviteNotFound: "Invite not found",
  deleteRole: "Only the workspace owner can delete the workspace",
  transferRole: "Only the workspace owner can transfer ownership",
  transferTarget: "owner_id is not a member of the workspace",
  removeRole: "Only the workspace owner can remove other members",
  ownerLeaves: "The owner cannot leave the workspace; transfer ownership first",
  targetNotMember: "User is not a member of the workspace",
  alreadyMember: "User is already a member of the workspace",
  alreadyDeleted: "Workspace is already deleted",
  notDeleted: "Workspace is not deleted",
} as const;

/** 403 `Not a workspace member` for a non-member (and so for an unknown workspace id). */
export function requireRole(membership: MembershipRecord | null): WorkspaceRole {
  if (!membership) throw new AppError(403, MESSAGES.notMember);
  return membership.role;
}

/** 403 unless the role is one of `allowed`; `message` says what was refused. */
export function requireOneOf(
  role: WorkspaceRole,
  allowed: readonly WorkspaceRole[],
  message: string,
): void {
  if (!allowed.includes(role)) throw new AppError(403, message);
}

/** 404 for a missing or soft-deleted workspace; checked after membership and role. */
export function requireActive(workspace: Workspace | null): Workspace {
  if (!workspace || workspace.status !== "active") throw new AppError(404, MESSAGES.notFound);
  return workspace;
}

/** The membership check every member-scoped read makes: 403, then 404. */
export function requireActiveMember(
  workspace: Workspace | null,
  membership: MembershipRecord | null,
): { workspace: Workspace; role: WorkspaceRole } {
  const role = requireRole(membership);
  return { workspace: requireActive(workspace), role };
}

/** The add-member checks: membership (403), role owner/editor (403), active (404). */
export function requireCanAddMembers(
  workspace: Workspace | null,
  caller: MembershipRecord | null,
): void {
  const role = requireRole(caller);
  requireOneOf(role, ["owner", "editor"], MESSAGES.addRole);
  requireActive(workspace);
}
