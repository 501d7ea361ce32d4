/**
 * With `store/`, the only code that touches the workspaces service's KV.
 *
 * Keys (ids are ULIDs, emails trimmed and lower-cased):
 * - `["workspaces", workspaceId]` -> Workspace
 * - `["memberships", workspaceId, userId]` -> MembershipRecord
 * - `["memberships_by_user", userId, workspaceId]` -> workspaceId (index: a user's workspaces)
 * - `["member_counts", workspaceId]` -> Deno.KvU64, changed with `sum` in the commits that add and
 *   remove members, so Get answers with one `getMany`
 * - `["invites", workspaceId, email]` -> InviteRecord and `["invites_by_email", email, workspaceId]`
 *   (store/invites.ts)
 * - `["audiences", workspaceId]`, `["languages", workspaceId]` -> ListItem[] (absent: the defaults)
 * - `["stats", "workspaces_total"]` -> Deno.KvU64, workspaces ever created (deleted included)
 *
 * Every read-modify-write is one `atomic()` with `check`s on what it read, retried on conflict;
 * the access rules are re-applied on every attempt, so concurrent transfers, adds and removes
 * can never leave zero or two owners, a duplicate member or a wrong member count.
 */
import { AppError } from "../../shared/http/app_error.ts";
import { newId } from "../../shared/crypto/ids.ts";
import { retryCommit } from "../../shared/kv/kv.ts";
import { nowIso } from "../../shared/time.ts";
import {
  MESSAGES,
  requireActive,
  requireActiveMember,
  requireCanAddMembers,
  requireOneOf,
  requireRole,
} from "./rules.ts";
import { COMMIT_TRIES, outcome } from "./store/commit.ts";
import { InvitesStore } from "./store/invites.ts";
import {
  DEFAULT_LISTS,
  type ListItem,
  type ListKind,
  type MembershipRecord,
  withWorkspaceDefaults,
  type Workspace,
  type WorkspacePatch,
  type WorkspaceRole,
} from "./schemas.ts";
import {
  emailInviteKey,
  inviteKey,
  listKey,
  memberCountKey,
  membershipKey,
  membershipsOfWorkspacePrefix,
  userMembershipKey,
  userMembershipsPrefix,
  workspaceKey,
  workspacesTotalKey,
} from "./keys.ts";

const ONE = new Deno.KvU64(1n);
/** `sum` wraps modulo 2^64, so adding 2^64 - 1 subtracts one. */
const MINUS_ONE = new Deno.KvU64(0xFFFF_FFFF_FFFF_FFFFn);

type Entry<T> = Deno.KvEntryMaybe<T>;

export class WorkspacesStore {
  /** Pending invites of emails without an account (store/invites.ts). */
  readonly invites: InvitesStore;

  constructor(private readonly kv: Deno.Kv) {
    this.invites = new InvitesStore(kv);
  }

  /** Creates the workspace and the caller's `owner` membership in one commit. */
  async create(input: { ownerId: string; name: string; description?: string }) {
    const now = nowIso();
    const workspace: Workspace = {
      workspace_id: newId(),
      name: input.name,
      description: input.description ?? "",
      owner_id: input.ownerId,
      status: "active",
      default_prompt_id: null,
      publishing_slots: [],
      approval_required: false,
      approvals_required: 1,
      timezone: "UTC",
      created_at: now,
      updated_at: now,
    };
    const id = workspace.workspace_id;
    const membership: MembershipRecord = {
      workspace_id: id,
      user_id: input.ownerId,
      role: "owner",
      joined_at: now,
    };
    const res = await this.kv.atomic()
      .check({ key: workspaceKey(id), versionstamp: null })
      .set(workspaceKey(id), workspace)
      .set(membershipKey(id, input.ownerId), membership)
      .set(userMembershipKey(input.ownerId, id), id)
      .set(memberCountKey(id), ONE)
      .sum(workspacesTotalKey(), 1n)
      .commit();
    if (!res.ok) throw new Error("Workspace id collision");
    return workspace;
  }

  /** The workspace, the user's membership and the member count: one KV round trip. */
  async getForMember(workspaceId: string, userId: string) {
    const [ws, m, count] = await this.kv.getMany<[Workspace, MembershipRecord, Deno.KvU64]>([
      workspaceKey(workspaceId),
      membershipKey(workspaceId, userId),
      memberCountKey(workspaceId),
    ]);
    return {
      workspace: withWorkspaceDefaults(ws.value),
      membership: m.value,
      memberCount: count.value ? Number(count.value.value) : 0,
    };
  }

  /** The workspace and the user's membership (either null when absent). */
  async membership(workspaceId: string, userId: string) {
    const [ws, m] = await this.kv.getMany<[Workspace, MembershipRecord]>([
      workspaceKey(workspaceId),
      membershipKey(workspaceId, userId),
    ]);
    return { workspace: withWorkspaceDefaults(ws.value), membership: m.value };
  }

  async getWorkspace(workspaceId: string): Promise<Workspace | null> {
    return withWorkspaceDefaults((await this.kv.get<Workspace>(workspaceKey(workspaceId))).value);
  }

  /** The user's active workspaces with their role, in creation order. */
  async listForUser(userId: string): Promise<{ workspace: Workspace; role: WorkspaceRole }[]> {
    const ids: string[] = [];
    for await (const e of this.kv.list<string>({ prefix: userMembershipsPrefix(userId) })) {
      ids.push(e.key[2] as string);
    }
    // Five workspaces per getMany (its limit is ten keys): each needs its record and the
    // user's membership. The batches run concurrently; order is kept by index.
    const slots: ({ workspace: Workspace; role: WorkspaceRole } | null)[] = ids.map(() => null);
    const batches: Promise<void>[] = [];
    for (let i = 0; i < ids.length; i += 5) {
      const chunk = ids.slice(i, i + 5);
      const keys = chunk.flatMap((id) => [workspaceKey(id), membershipKey(id, userId)]);
      batches.push(
        this.kv.getMany<unknown[]>(keys).then((entries) => {
          chunk.forEach((_, j) => {
            const ws = withWorkspaceDefaults(entries[2 * j].value as Workspace | null);
            const m = entries[2 * j + 1].value as MembershipRecord | null;
            if (ws && m && ws.status === "active") slots[i + j] = { workspace: ws, role: m.role };
          });
        }),
      );
    }
    await Promise.all(batches);
    return slots.filter((s) => s !== null);
  }

  /**
   * Update and ownership transfer. Checks, in order: membership (403), role owner/editor (403),
   * workspace active (404), transfer by a non-owner (403), transfer target a member (400).
   * An `owner_id` equal to the current owner is not a transfer.
   */
  update(workspaceId: string, callerId: string, patch: WorkspacePatch): Promise<Workspace> {
    return retryCommit(async () => {
      const keys: Deno.KvKey[] = [workspaceKey(workspaceId), membershipKey(workspaceId, callerId)];
      if (patch.owner_id !== undefined) keys.push(membershipKey(workspaceId, patch.owner_id));
      const [wsEntry, callerEntry, targetEntry] = await this.kv.getMany<unknown[]>(keys) as [
        Entry<Workspace>,
        Entry<MembershipRecord>,
        Entry<MembershipRecord> | undefined,
      ];
      const role = requireRole(callerEntry.value);
      requireOneOf(role, ["owner", "editor"], MESSAGES.updateRole);
      const workspace = requireActive(withWorkspaceDefaults(wsEntry.value));
      const transfer = patch.owner_id !== undefined && patch.owner_id !== workspace.owner_id;
      if (transfer && (role !== "owner" || workspace.owner_id !== callerId)) {
        throw new AppError(403, MESSAGES.transferRole);
      }
      const next: Workspace = { ...workspace, updated_at: nowIso() };
      if (patch.name !== undefined) next.name = patch.name;
      if (patch.description !== undefined) next.description = patch.description;
      if (patch.default_prompt_id !== undefined) next.default_prompt_id = patch.default_prompt_id;
      if (patch.publishing_slots !== undefined) next.publishing_slots = patch.publishing_slots;
      if (patch.approval_required !== undefined) next.approval_required = patch.approval_required;
      if (patch.approvals_required !== undefined) {
        next.approvals_required = patch.approvals_required;
      }
      if (patch.timezone !== undefined) next.timezone = patch.timezone;
      const op = this.kv.atomic().check(wsEntry).check(callerEntry);
      if (transfer) {
        const target = targetEntry?.value;
        if (!targetEntry || !target) throw new AppError(400, MESSAGES.transferTarget);
        next.owner_id = target.user_id;
        op.check(targetEntry)
          .set(membershipKey(workspaceId, callerId), { ...callerEntry.value!, role: "editor" })
          .set(membershipKey(workspaceId, target.user_id), { ...target, role: "owner" });
      }
      op.set(workspaceKey(workspaceId), next);
      const res = await op.commit();
      return outcome(res, next);
    }, COMMIT_TRIES);
  }

  /** The owner's soft delete: membership (403), owner (403), then active (404). */
  deleteByOwner(workspaceId: string, callerId: string): Promise<Workspace> {
    return retryCommit(async () => {
      const [wsEntry, callerEntry] = await this.kv.getMany<[Workspace, MembershipRecord]>([
        workspaceKey(workspaceId),
        membershipKey(workspaceId, callerId),
      ]);
      const role = requireRole(callerEntry.value);
      requireOneOf(role, ["owner"], MESSAGES.deleteRole);
      const workspace = requireActive(withWorkspaceDefaults(wsEntry.value));
      const now = nowIso();
      const next: Workspace = { ...workspace, status: "deleted", deleted_at: now, updated_at: now };
      const res = await this.kv.atomic().check(wsEntry).check(callerEntry)
        .set(workspaceKey(workspaceId), next).commit();
      return outcome(res, next);
    }, COMMIT_TRIES);
  }

  /** The admin's soft delete: 404 missing, 400 already deleted. */
  softDelete(workspaceId: string): Promise<Workspace> {
    return this.#setStatus(workspaceId, "deleted");
  }

  /** The admin's recover: 404 missing, 400 not deleted; `deleted_at` is removed. */
  recover(workspaceId: string): Promise<Workspace> {
    return this.#setStatus(workspaceId, "active");
  }

  #setStatus(workspaceId: string, status: "active" | "deleted"): Promise<Workspace> {
    return retryCommit(async () => {
      const entry = await this.kv.get<Workspace>(workspaceKey(workspaceId));
      const workspace = withWorkspaceDefaults(entry.value);
      if (!workspace) throw new AppError(404, MESSAGES.notFound);
      if (workspace.status === status) {
        throw new AppError(
          400,
          status === "deleted" ? MESSAGES.alreadyDeleted : MESSAGES.notDeleted,
        );
      }
      const now = nowIso();
      const next: Workspace = { ...workspace, status, updated_at: now };
      if (status === "deleted") next.deleted_at = now;
      else delete next.deleted_at;
      const res = await this.kv.atomic().check(entry).set(workspaceKey(workspaceId), next).commit();
      return outcome(res, next);
    }, COMMIT_TRIES);
  }

  /**
   * Adds a registered user. Checks: membership (403), role owner/editor (403), active (404),
   * already a member (409). A pending invite for `email` to this workspace is removed with it.
   */
  addMember(input: {
    workspaceId: string;
    callerId: string;
    userId: string;
    email?: string;
    role: "editor" | "viewer";
  }): Promise<MembershipRecord> {
    const { workspaceId, callerId, userId } = input;
    return retryCommit(async () => {
      const [wsEntry, callerEntry, targetEntry] = await this.kv.getMany<
        [Workspace, MembershipRecord, MembershipRecord]
      >([
        workspaceKey(workspaceId),
        membershipKey(workspaceId, callerId),
        membershipKey(workspaceId, userId),
      ]);
      requireCanAddMembers(wsEntry.value, callerEntry.value);
      if (targetEntry.value) throw new AppError(409, MESSAGES.alreadyMember);
      const membership: MembershipRecord = {
        workspace_id: workspaceId,
        user_id: userId,
        role: input.role,
        joined_at: nowIso(),
      };
      const op = this.kv.atomic().check(wsEntry).check(callerEntry).check(targetEntry)
        .set(membershipKey(workspaceId, userId), membership)
        .set(userMembershipKey(userId, workspaceId), workspaceId)
        .sum(memberCountKey(workspaceId), 1n);
      if (input.email) {
        op.delete(inviteKey(workspaceId, input.email)).delete(
          emailInviteKey(input.email, workspaceId),
        );
      }
      const res = await op.commit();
      return outcome(res, membership);
    }, COMMIT_TRIES);
  }

  /**
   * The add-member checks on a fresh read, for a caller that wants a refusal before costlier
   * work; `addMember` and `invite` apply them again inside their commits.
   */
  async requireCanAdd(workspaceId: string, callerId: string): Promise<void> {
    const view = await this.membership(workspaceId, callerId);
    requireCanAddMembers(view.workspace, view.membership);
  }

  /**
   * Removes a member. Checks: caller a member (403); for oneself: not the owner (400); for
   * another: caller is the owner (403); then workspace active (404) and target a member (404).
   */
  removeMember(workspaceId: string, callerId: string, targetId: string): Promise<void> {
    return retryCommit(async () => {
      const [wsEntry, callerEntry, targetEntry] = await this.kv.getMany<
        [Workspace, MembershipRecord, MembershipRecord]
      >([
        workspaceKey(workspaceId),
        membershipKey(workspaceId, callerId),
        membershipKey(workspaceId, targetId),
      ]);
      // The role is checked before the soft delete, so a non-owner removing someone else is
      // refused 403 whether or not the workspace is deleted.
      const role = requireRole(callerEntry.value);
      const self = targetId === callerId;
      if (self && role === "owner") throw new AppError(400, MESSAGES.ownerLeaves);
      if (!self) requireOneOf(role, ["owner"], MESSAGES.removeRole);
      requireActive(wsEntry.value);
      if (!self) {
        if (!targetEntry.value) throw new AppError(404, MESSAGES.targetNotMember);
        // The owner is the caller, so the target can only be an editor or a viewer.
      }
      const op = this.kv.atomic().check(wsEntry).check(callerEntry);
      if (!self) op.check(targetEntry);
      const res = await op
        .delete(membershipKey(workspaceId, targetId))
        .delete(userMembershipKey(targetId, workspaceId))
        .sum(memberCountKey(workspaceId), MINUS_ONE.value)
        .commit();
      return outcome(res, undefined);
    }, COMMIT_TRIES);
  }

  /** Every membership of the workspace, earliest joined first. */
  async listMembers(workspaceId: string): Promise<MembershipRecord[]> {
    const out: MembershipRecord[] = [];
    for await (
      const e of this.kv.list<MembershipRecord>({
        prefix: membershipsOfWorkspacePrefix(workspaceId),
      })
    ) {
      out.push(e.value);
    }
    return out.sort((a, b) => a.joined_at < b.joined_at ? -1 : a.joined_at > b.joined_at ? 1 : 0);
  }

  /** A member's view of a list: the saved one or the defaults, with the membership check. */
  async getList(kind: ListKind, workspaceId: string, userId: string): Promise<ListItem[]> {
    const [ws, m, list] = await this.kv.getMany<[Workspace, MembershipRecord, ListItem[]]>([
      workspaceKey(workspaceId),
      membershipKey(workspaceId, userId),
      listKey(kind, workspaceId),
    ]);
    requireActiveMember(ws.value, m.value);
    return list.value ?? DEFAULT_LISTS[kind].map((item) => ({ ...item }));
  }

  /** Overwrites a list (any member); answers what was saved, even when empty. */
  saveList(
    kind: ListKind,
    workspaceId: string,
    userId: string,
    items: ListItem[],
  ): Promise<ListItem[]> {
    return retryCommit(async () => {
      const [ws, m] = await this.kv.getMany<[Workspace, MembershipRecord]>([
        workspaceKey(workspaceId),
        membershipKey(workspaceId, userId),
      ]);
      requireActiveMember(ws.value, m.value);
      const res = await this.kv.atomic().check(ws).check(m).set(listKey(kind, workspaceId), items)
        .commit();
      return outcome(res, items);
    }, COMMIT_TRIES);
  }

  /** Every workspace, soft-deleted ones included, in creation order (admin list). */
  async listAll(): Promise<Workspace[]> {
    const out: Workspace[] = [];
    for await (const e of this.kv.list<Workspace>({ prefix: ["workspaces"] })) {
      out.push(withWorkspaceDefaults(e.value));
    }
    return out;
  }

  /** The maintained counters (no scan). */
  async stats(): Promise<{ total_workspaces: number }> {
    const total = (await this.kv.get<Deno.KvU64>(workspacesTotalKey())).value;
    return { total_workspaces: total ? Number(total.value) : 0 };
  }
}
