import { AppError } from "../../../shared/http/app_error.ts";
import { retryCommit } from "../../../shared/kv/kv.ts";
import { nowIso } from "../../../shared/time.ts";
import {
  MESSAGES,
  requireActive,
  requireCanAddMembers,
  requireOneOf,
  requireRole,
} from "../rules.ts";
import type { InviteRecord, MembershipRecord, Workspace } from "../schemas.ts";
import {
  emailInviteKey,
  emailInvitesPrefix,
  inviteKey,
  invitesOfWorkspacePrefix,
  memberCountKey,
  membershipKey,
  userMembershipKey,
  workspaceKey,
} from "../keys.ts";
import { COMMIT_TRIES, outcome } from "./commit.ts";

/** An invite that became a membership: where, with which role, and who made it. */
export type AcceptedInvite = Pick<InviteRecord, "workspace_id" | "role" | "invited_by">;

/**
 * Pending invites of emails that have no account yet: `["invites", workspaceId, email]` and its
 * index `["invites_by_email", email, workspaceId]`, always written and removed together.
 */
export class InvitesStore {
  constructor(private readonly kv: Deno.Kv) {}

  /**
   * Records a pending invite for an unregistered email. Inviting an email again replaces its
   * pending invite (the latest role wins): the spec answers 201 for any unregistered email and
   * keeps 409 for an existing member.
   */
  record(input: {
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
      requireCanAddMembers(wsEntry.value, callerEntry.value);
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

  /** Pending invites of one workspace, oldest first (ties by email). No access check. */
  async list(workspaceId: string): Promise<InviteRecord[]> {
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
  cancel(workspaceId: string, callerId: string, email: string): Promise<void> {
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
  async existFor(email: string): Promise<boolean> {
    for await (const _ of this.kv.list({ prefix: emailInvitesPrefix(email) }, { limit: 1 })) {
      return true;
    }
    return false;
  }

  /**
   * Turns every pending invite for `email` into a membership of `userId` and removes the
   * invites. Idempotent: an invite already accepted is gone, a membership already held stays.
   * Returns the invites that made a membership (each once: an invite accepted before is gone).
   */
  async accept(email: string, userId: string): Promise<AcceptedInvite[]> {
    const wsIds: string[] = [];
    for await (const e of this.kv.list<string>({ prefix: emailInvitesPrefix(email) })) {
      wsIds.push(e.key[2] as string);
    }
    const joined: AcceptedInvite[] = [];
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
        return outcome(res, add ? invite : null);
      }, COMMIT_TRIES);
      if (added) {
        joined.push({ workspace_id: workspaceId, role: added.role, invited_by: added.invited_by });
      }
    }
    return joined;
  }
}
