/**
 * The only code that touches the actions service's KV.
 *
 * Keys:
 * - `["actions", workspaceId, actionId]` → Action (attachments inline; ULID ids, so a prefix
 *   list is in creation order and one list answers the workspace's action list)
 * - `["attachment_uploads", uploadId]` → UploadGrant: one handed-out upload URL, claimed at most
 *   once, expiring with its URL (a one-time secret: never exported, cleared by a restore)
 *
 * Writes that cause a message or a job take an `also(op, ...)` callback, so the queue message
 * is enqueued in the same atomic commit as the write.
 */
import { retryCommit } from "../../shared/kv/kv.ts";
import type { Action } from "./schemas.ts";
import { actionKey, uploadGrantKey, workspaceActionsPrefix } from "./keys.ts";

/** What a read-modify-write of one action came to. */
export type UpdateOutcome =
  | { kind: "missing" }
  | { kind: "unchanged"; action: Action }
  | { kind: "updated"; before: Action; after: Action };

/** A handed-out upload URL: the attachment entry it fills, and whether it has been used. */
export interface UploadGrant {
  workspace_id: string;
  action_id: string;
  key: string;
  /** The entry's `uploaded_at`: the grant is for that request's entry, not a later one's */
  uploaded_at: string;
  uploaded_by: string;
  /** Epoch ms after which the URL no longer works */
  expires_at: number;
  claimed: boolean;
}

/** What claiming an upload came to. */
export type ClaimOutcome =
  /** no such grant (never made, expired, or cleared by a restore) */
  | { kind: "unknown" }
  | { kind: "claimed_already" }
  /** the entry is gone (deleted, or its action is) */
  | { kind: "entry_gone" }
  /** the entry is a later request's (the same name was requested again) */
  | { kind: "superseded" }
  | { kind: "claimed"; grant: UploadGrant };

export class ActionStore {
  constructor(private readonly kv: Deno.Kv) {}

  async get(workspaceId: string, actionId: string): Promise<Action | null> {
    return (await this.kv.get<Action>(actionKey(workspaceId, actionId))).value;
  }

  /** Every action of the workspace, newest first, in one KV list. */
  async list(workspaceId: string): Promise<Action[]> {
    const out: Action[] = [];
    for await (
      const entry of this.kv.list<Action>({ prefix: workspaceActionsPrefix(workspaceId) }, {
        reverse: true,
      })
    ) {
      out.push(entry.value);
    }
    return out;
  }

  /** Stores a new action (its id must be new); `also` adds the messages it causes. */
  async create(action: Action, also?: (op: Deno.AtomicOperation) => void): Promise<Action> {
    const key = actionKey(action.workspace_id, action.action_id);
    const op = this.kv.atomic().check({ key, versionstamp: null }).set(key, action);
    also?.(op);
    const res = await op.commit();
    if (!res.ok) throw new Error(`Action ${action.action_id} already exists`);
    return action;
  }

  /**
   * Read-modify-write of one action: `change` gets a copy of the current record and returns the
   * next one, or null to leave it as it is; it runs again on every attempt, against what that
   * attempt read, and refuses by throwing (an AppError). The commit is checked against the
   * version read and retried on a conflict; `also` adds what the write causes to it.
   */
  async update(
    workspaceId: string,
    actionId: string,
    change: (current: Action) => Action | null,
    also?: (op: Deno.AtomicOperation, before: Action, after: Action) => void,
  ): Promise<UpdateOutcome> {
    const key = actionKey(workspaceId, actionId);
    return await retryCommit<UpdateOutcome>(async () => {
      const entry = await this.kv.get<Action>(key);
      if (!entry.value) return { ok: true, value: { kind: "missing" } };
      const before = entry.value;
      const after = change(structuredClone(before));
      if (!after) return { ok: true, value: { kind: "unchanged", action: before } };
      const op = this.kv.atomic().check(entry).set(key, after);
      also?.(op, before, after);
      const res = await op.commit();
      return res.ok ? { ok: true, value: { kind: "updated", before, after } } : { ok: false };
    });
  }

  /** Removes the action; `also` learns what it was. Null when there was none. */
  async delete(
    workspaceId: string,
    actionId: string,
    also?: (op: Deno.AtomicOperation, deleted: Action) => void,
  ): Promise<Action | null> {
    const key = actionKey(workspaceId, actionId);
    return await retryCommit<Action | null>(async () => {
      const entry = await this.kv.get<Action>(key);
      if (!entry.value) return { ok: true, value: null };
      const op = this.kv.atomic().check(entry).delete(key);
      also?.(op, entry.value);
      const res = await op.commit();
      return res.ok ? { ok: true, value: entry.value } : { ok: false };
    });
  }

  /** Adds the grant of a new upload URL to `op` (the write of its entry). */
  addUploadGrant(op: Deno.AtomicOperation, uploadId: string, grant: UploadGrant): void {
    op.set(uploadGrantKey(uploadId), grant, {
      expireIn: Math.max(1, grant.expires_at - Date.now()),
    });
  }

  async getUploadGrant(uploadId: string): Promise<UploadGrant | null> {
    return (await this.kv.get<UploadGrant>(uploadGrantKey(uploadId))).value;
  }

  /**
   * Marks the grant used, once, if its entry is still on the action as that request's; the
   * commit is checked against both, so a claim and a delete of the entry cannot both win.
   */
  async claimUpload(uploadId: string, key: string): Promise<ClaimOutcome> {
    const grantKey = uploadGrantKey(uploadId);
    return await retryCommit<ClaimOutcome>(async () => {
      const grant = await this.kv.get<UploadGrant>(grantKey);
      if (!grant.value || grant.value.key !== key || grant.value.expires_at < Date.now()) {
        return { ok: true, value: { kind: "unknown" } };
      }
      if (grant.value.claimed) return { ok: true, value: { kind: "claimed_already" } };
      const { workspace_id, action_id, uploaded_at } = grant.value;
      const action = await this.kv.get<Action>(actionKey(workspace_id, action_id));
      const entry = action.value?.attachments.find((a) => a.key === key);
      if (!entry) return { ok: true, value: { kind: "entry_gone" } };
      if (entry.uploaded_at !== uploaded_at) return { ok: true, value: { kind: "superseded" } };
      const claimed = { ...grant.value, claimed: true };
      const res = await this.kv.atomic().check(grant).check(action)
        .set(grantKey, claimed, { expireIn: Math.max(1, claimed.expires_at - Date.now()) })
        .commit();
      return res.ok ? { ok: true, value: { kind: "claimed", grant: claimed } } : { ok: false };
    });
  }
}
