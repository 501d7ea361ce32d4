import { declareKeys } from "../../shared/kv/kv_keys.ts";
import { READ_CACHE_KEYS } from "../../shared/kv/kv_cache.ts";
import type { ListKind } from "./schemas.ts";

// Key builders: the only place the workspaces KV layout is spelled out (store.ts uses them).
export const workspaceKey = (workspaceId: string) => ["workspaces", workspaceId];
export const membershipKey = (
  workspaceId: string,
  userId: string,
) => ["memberships", workspaceId, userId];
export const membershipsOfWorkspacePrefix = (workspaceId: string) => ["memberships", workspaceId];
export const userMembershipKey = (userId: string, workspaceId: string) => [
  "memberships_by_user",
  userId,
  workspaceId,
];
export const userMembershipsPrefix = (userId: string) => ["memberships_by_user", userId];
export const memberCountKey = (workspaceId: string) => ["member_counts", workspaceId];
export const inviteKey = (workspaceId: string, email: string) => ["invites", workspaceId, email];
export const invitesOfWorkspacePrefix = (workspaceId: string) => ["invites", workspaceId];
export const emailInviteKey = (
  email: string,
  workspaceId: string,
) => ["invites_by_email", email, workspaceId];
export const emailInvitesPrefix = (email: string) => ["invites_by_email", email];
export const listKey = (kind: ListKind, workspaceId: string) => [kind, workspaceId];
export const workspacesTotalKey = () => ["stats", "workspaces_total"];

/**
 * Every key family the workspaces service writes, with its backup class: the one list its
 * backup and restore read.
 */
export const KEY_FAMILIES = declareKeys(
  {
    workspaces: "data",
    memberships: "data",
    memberships_by_user: "data",
    member_counts: "data",
    invites: "data",
    invites_by_email: "data",
    // a workspace's lists, one family per list kind
    audiences: "data",
    languages: "data",
    stats: "data",
  },
  READ_CACHE_KEYS,
);
