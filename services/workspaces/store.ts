/**
 * The only code that touches the workspaces service's KV.
 *
 * Keys (ids are ULIDs, emails trimmed and lower-cased):
 * - `["workspaces", workspaceId]` -> Workspace
 * - `["memberships", workspaceId, userId]` -> MembershipRecord
 * - `["memberships_by_user", userId, workspaceId]` -> workspaceId (index: a user's workspaces)
 * - `["member_counts", workspaceId]` -> Deno.KvU64, changed with `sum` in the commits that add and
 *   remove members, so Get answers with one `getMany`
 * - `["invites", workspaceId, email]` -> InviteRecord (a pending invite for an unregistered email)
 * - `["invites_by_email", email, workspaceId]` -> workspaceId (index: the invites an email has)
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
  requireOneOf,
  requireRole,
} from "./rules.ts";
import {
  DEFAULT_LISTS,
  type InviteRecord,
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
  emailInvitesPrefix,
  inviteKey,
  invitesOfWorkspacePrefix,
  listKey,
  memberCountKey,
  membershipKey,
  membershipsOfWorkspacePrefix,
  userMembershipKey,
  userMembershipsPrefix,
  workspaceKey,
  workspacesTotalKey,
} from "./keys.ts";

/** How many tries a contended read-modify-write gets before it gives up (500). */
const COMMIT_TRIES = 60;
const ONE = new Deno.KvU64(1n);
/** `sum` wraps modulo 2^64, so adding 2^64 - 1 subtracts one. */
const MINUS_ONE = new Deno.KvU64(0xFFFF_FFFF_FFFF_FFFFn);

type Entry<T> = Deno.KvEntryMaybe<T>;

/** A commit's result as `retryCommit` wants it: the value when it went through. */
function outcome<T>(
  res: Deno.KvCommitResult | Deno.KvCommitError,
  value: T,
): { ok: true; value: T } | { ok: false } {
  return res.ok ? { ok: true, value } : { ok: false };
}

export class WorkspacesStore {
  constructor(private readonly kv: Deno.Kv) {}

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
      this.#checkCanAdd(wsEntry.value, callerEntry.value);
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
   * Records a pending invite for an unregistered email. Inviting an email again replaces its
   * pending invite (the latest role wins): the spec answers 201 for any unregistered email and
   * keeps 409 for an existing member.
   */
  invite(input: {
    workspaceId: string;
    callerId: string;
    email: string;
    role: "editor" | "viewer";
  }): Promise<InviteRecord> {
    const { workspaceId, callerId, email } = input;
    return retryCommit(async () => {
      const [wsEntry, callerEntry, inviteEntry] = await this.kv.getMany<
        [Workspace, MembershipRecord, InviteRecord]
      >([
        workspaceKey(workspaceId),
        membershipKey(workspaceId, callerId),
        inviteKey(workspaceId, email),
      ]);
      this.#checkCanAdd(wsEntry.value, callerEntry.value);
      const invite: InviteRecord = {
        workspace_id: workspaceId,
        email,
        role: input.role,
        invited_by: callerId,
        created_at: nowIso(),
      };
      const res = await this.kv.atomic().check(wsEntry).check(callerEntry).check(inviteEntry)
        .set(inviteKey(workspaceId, email), invite)
        .set(emailInviteKey(email, workspaceId), workspaceId)
        .commit();
      return outcome(res, invite);
    }, COMMIT_TRIES);
  }

  /**
   * The add-member checks on a fresh read, for a caller that wants a refusal before costlier
   * work; `addMember` and `invite` apply them again inside their commits.
   */
  async requireCanAdd(workspaceId: string, callerId: string): Promise<void> {
    const view = await this.membership(workspaceId, callerId);
    this.#checkCanAdd(view.workspace, view.membership);
  }

  /** The add-member checks: membership (403), role owner/editor (403), active (404). */
  #checkCanAdd(workspace: Workspace | null, caller: MembershipRecord | null): void {
    const role = requireRole(caller);
    requireOneOf(role, ["owner", "editor"], MESSAGES.addRole);
    requireActive(workspace);
  }

  /**
   * Removes a member. Checks: caller a member (403), workspace active (404); then for oneself:
   * not the owner (400); for another: caller is the owner (403), target a member (404).
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
      const { role } = requireActiveMember(wsEntry.value, callerEntry.value);
      const self = targetId === callerId;
      if (self && role === "owner") throw new AppError(400, MESSAGES.ownerLeaves);
      if (!self) {
        requireOneOf(role, ["owner"], MESSAGES.removeRole);
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

  /** Pending invites of one workspace, oldest first (ties by email). No access check. */
  async listInvites(workspaceId: string): Promise<InviteRecord[]> {
    const out: InviteRecord[] = [];
    for await (
      const e of this.kv.list<InviteRecord>({ prefix: invitesOfWorkspacePrefix(workspaceId) })
    ) {
      out.push(e.value);
    }
    const at = (i: InviteRecord) => i.created_at ?? "";
    return out.sort((a, b) =>
      at(a) < at(b) ? -1 : at(a) > at(b) ? 1 : a.email < b.email ? -1 : a.email > b.email ? 1 : 0
    );
  }

  /**
   * Cancels a pending invite: both keys go in one commit. Checks: membership (403), role
   * owner/editor (403), active (404), invite exists (404). An invite accepted (or cancelled)
   * concurrently fails the `check` and the retry answers 404.
   */
  cancelInvite(workspaceId: string, callerId: string, email: string): Promise<void> {
    return retryCommit(async () => {
      const [wsEntry, callerEntry, inviteEntry] = await this.kv.getMany<
        [Workspace, MembershipRecord, InviteRecord]
      >([
        workspaceKey(workspaceId),
        membershipKey(workspaceId, callerId),
        inviteKey(workspaceId, email),
      ]);
      const role = requireRole(callerEntry.value);
      requireOneOf(role, ["owner", "editor"], MESSAGES.cancelInviteRole);
      requireActive(wsEntry.value);
      if (!inviteEntry.value) throw new AppError(404, MESSAGES.inviteNotFound);
      const res = await this.kv.atomic().check(wsEntry).check(callerEntry).check(inviteEntry)
        .delete(inviteKey(workspaceId, email))
        .delete(emailInviteKey(email, workspaceId))
        .commit();
      return outcome(res, undefined);
    }, COMMIT_TRIES);
  }

  /** Whether any workspace has a pending invite for `email` (one short list read). */
  async hasInvitesFor(email: string): Promise<boolean> {
    for await (const _ of this.kv.list({ prefix: emailInvitesPrefix(email) }, { limit: 1 })) {
      return true;
    }
    return false;
  }

  /**
   * Turns every pending invite for `email` into a membership of `userId` and removes the
   * invites. Idempotent: an invite already accepted is gone, a membership already held stays.
   * Returns the workspace ids that gained the member.
   */
  async acceptInvites(email: string, userId: string): Promise<string[]> {
    const wsIds: string[] = [];
    for await (const e of this.kv.list<string>({ prefix: emailInvitesPrefix(email) })) {
      wsIds.push(e.key[2] as string);
    }
    const joined: string[] = [];
    for (const workspaceId of wsIds) {
      const added = await retryCommit(async () => {
        const [inviteEntry, memberEntry] = await this.kv.getMany<[InviteRecord, MembershipRecord]>(
          [inviteKey(workspaceId, email), membershipKey(workspaceId, userId)],
        );
        const op = this.kv.atomic().check(inviteEntry).check(memberEntry)
          .delete(inviteKey(workspaceId, email))
          .delete(emailInviteKey(email, workspaceId));
        const invite = inviteEntry.value;
        const add = invite !== null && memberEntry.value === null;
        if (add) {
          op.set(
            membershipKey(workspaceId, userId),
            {
              workspace_id: workspaceId,
              user_id: userId,
              role: invite.role,
              joined_at: nowIso(),
            } satisfies MembershipRecord,
          )
            .set(userMembershipKey(userId, workspaceId), workspaceId)
            .sum(memberCountKey(workspaceId), 1n);
        }
        const res = await op.commit();
        return outcome(res, add);
      }, COMMIT_TRIES);
      if (added) joined.push(workspaceId);
    }
    return joined;
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
