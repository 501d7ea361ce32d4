import { declareKeys } from "../../shared/kv_keys.ts";
import { READ_CACHE_KEYS } from "../../shared/kv_cache.ts";
import type { ListKind } from "./schemas.ts";

// Key builders: the only place the workspaces KV layout is spelled out (store.ts uses them).
export const workspaceKey = (wsId: string) => ["workspaces", wsId];
export const membershipKey = (wsId: string, userId: string) => ["memberships", wsId, userId];
export const membershipsOfWorkspacePrefix = (wsId: string) => ["memberships", wsId];
export const userMembershipKey = (userId: string, wsId: string) => [
  "memberships_by_user",
  userId,
  wsId,
];
export const userMembershipsPrefix = (userId: string) => ["memberships_by_user", userId];
export const memberCountKey = (wsId: string) => ["member_counts", wsId];
export const inviteKey = (wsId: string, email: string) => ["invites", wsId, email];
export const invitesOfWorkspacePrefix = (wsId: string) => ["invites", wsId];
export const emailInviteKey = (email: string, wsId: string) => ["invites_by_email", email, wsId];
export const emailInvitesPrefix = (email: string) => ["invites_by_email", email];
export const listKey = (kind: ListKind, wsId: string) => [kind, wsId];
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
