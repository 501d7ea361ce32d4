/**
 * The only code that touches the actions service's KV.
 *
 * Keys:
 * - `["actions", workspaceId, actionId]` → Action (attachments inline; ULID ids, so a prefix
 *   list is in creation order and one list answers the workspace's action list)
 * - `["actions_by_status" | "actions_by_assignee" | "actions_by_post" | "actions_by_creator",
 *   workspaceId, value, actionId]` → true: the paged list's indexes, written with the action
 *   (derived: built at start-up and after a restore, with `["index_builds", "action_lists"]`)
 * - `["attachment_uploads", uploadId]` → UploadGrant: one handed-out upload URL, claimed at most
 *   once, expiring with its URL (a one-time secret: never exported, cleared by a restore)
 *
 * Writes that cause a message or a job take an `also(op, ...)` callback, so the queue message
 * is enqueued in the same atomic commit as the write.
 */
import { retryCommit } from "../../shared/kv/kv.ts";
import {
  buildIndexes,
  getValues,
  indexChanges,
  type KvPage,
  readRangePage,
} from "../../shared/kv/kv_pages.ts";
import type { Action } from "./schemas.ts";
import {
  ACTION_INDEXES_BUILT,
  actionIndexKeys,
  actionKey,
  actionsBy,
  uploadGrantKey,
  workspaceActionsPrefix,
} from "./keys.ts";

/** Exact-match filters of the list (absent: no filter). */
export interface ActionListFilters {
  status?: string;
  assigneeId?: string;
  linkedPostId?: string;
  createdBy?: string;
}

/** Whether `action` passes every filter given. */
export function matchesFilters(action: Action, f: ActionListFilters): boolean {
  return (f.status === undefined || action.status === f.status) &&
    (f.assigneeId === undefined || action.assignee_id === f.assigneeId) &&
    (f.linkedPostId === undefined || action.linked_post_id === f.linkedPostId) &&
    (f.createdBy === undefined || action.created_by === f.createdBy);
}

/** No stored value is longer (ids are at most 100 characters): a longer filter matches nothing. */
const FILTER_VALUE_MAX = 200;

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

  /**
   * One page of the workspace's actions, newest first, after the action `after`: read from the
   * index of the most telling filter given (linked post, then assignee, then creator, then
   * status), the others checked on each action; without a filter, from the actions themselves.
   */
  async listPage(
    workspaceId: string,
    filters: ActionListFilters,
    page: { limit: number; after?: string },
  ): Promise<KvPage<Action>> {
    if (Object.values(filters).some((v) => v !== undefined && v.length > FILTER_VALUE_MAX)) {
      return { items: [], next: null };
    }
    const by = (["linkedPostId", "assigneeId", "createdBy", "status"] as const)
      .find((f) => filters[f] !== undefined);
    const prefix = by ? actionsBy(workspaceId, by, filters[by]!) : null;
    return await readRangePage<Action>(this.kv, {
      prefix: prefix ?? workspaceActionsPrefix(workspaceId),
      reverse: true,
      limit: page.limit,
      after: page.after,
      load: prefix
        ? (ids) => getValues(this.kv, ids.map((id) => actionKey(workspaceId, id)))
        : undefined,
      keep: (a) => matchesFilters(a, filters),
    });
  }

  /**
   * Puts every action into the paged list's indexes unless that was done: actions stored before
   * the indexes existed (at start-up), or restored from a backup (the indexes are not in it).
   */
  buildListIndexes(): Promise<number> {
    return buildIndexes<Action>(this.kv, ACTION_INDEXES_BUILT, [
      { records: ["actions"], indexKeys: actionIndexKeys },
    ]);
  }

  /** Stores a new action (its id must be new); `also` adds the messages it causes. */
  async create(action: Action, also?: (op: Deno.AtomicOperation) => void): Promise<Action> {
    const key = actionKey(action.workspace_id, action.action_id);
    const op = this.kv.atomic().check({ key, versionstamp: null }).set(key, action);
    indexChanges(op, [], actionIndexKeys(action));
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
      indexChanges(op, actionIndexKeys(before), actionIndexKeys(after));
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
      indexChanges(op, actionIndexKeys(entry.value), []);
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
