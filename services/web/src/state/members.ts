/**
 * A workspace's members and pending invites: listing, inviting (an email with an account joins
 * at once, one without waits as an invite), removing or leaving, and cancelling an invite.
 */
import { signal } from "@preact/signals";
import { call, client, type Schemas } from "./api.ts";

export type Member = Schemas["WorkspaceMemberWithProfile"];
export type PendingInvite = Schemas["PendingInvite"];

/** The last member list loaded, with the workspace it belongs to. */
export const members = signal<{ workspaceId: string; members: Member[] } | null>(null);

export async function loadMembers(workspaceId: string) {
  const data = await call(
    client().GET("/api/workspaces/{id}/members", {
      params: { path: { id: workspaceId } },
    }),
  );
  members.value = { workspaceId, members: data.members };
  return data;
}

/** Adds a member by email, or records a pending invite when the email has no account. */
export function inviteMember(workspaceId: string, email: string, role: "editor" | "viewer") {
  return call(
    client().POST("/api/workspaces/{id}/members", {
      params: { path: { id: workspaceId } },
      body: { email, role },
    }),
  );
}

/** Removes a member (or the caller, leaving). */
export async function removeMember(workspaceId: string, userId: string): Promise<void> {
  await call(
    client().DELETE("/api/workspaces/{id}/members/{userId}", {
      params: { path: { id: workspaceId, userId } },
    }),
  );
  const current = members.value;
  if (current?.workspaceId === workspaceId) {
    members.value = {
      workspaceId,
      members: current.members.filter((m) => m.user_id !== userId),
    };
  }
}

export function loadInvites(workspaceId: string) {
  return call(
    client().GET("/api/workspaces/{id}/invites", {
      params: { path: { id: workspaceId } },
    }),
  );
}

export async function cancelInvite(workspaceId: string, email: string): Promise<void> {
  await call(
    client().DELETE("/api/workspaces/{id}/invites/{email}", {
      params: { path: { id: workspaceId, email } },
    }),
  );
}

const DIRECTORY_MS = 30_000;
const directory = new Map<string, { at: number; pending: Promise<Member[]> }>();

/**
 * The workspace's members for pickers (mentions): one read shared by every box that asks
 * within 30 seconds; a failed read is not kept.
 */
export function memberDirectory(workspaceId: string): Promise<Member[]> {
  const hit = directory.get(workspaceId);
  if (hit && Date.now() - hit.at < DIRECTORY_MS) return hit.pending;
  const pending = loadMembers(workspaceId).then((d) => d.members);
  directory.set(workspaceId, { at: Date.now(), pending });
  pending.catch(() => directory.delete(workspaceId));
  return pending;
}
