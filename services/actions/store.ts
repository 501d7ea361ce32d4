/**
 * The only code that touches the actions service's KV.
 *
 * Keys:
 * - `["actions", workspaceId, actionId]` → Action (attachments inline; ULID ids, so a prefix
 *   list is in creation order and one list answers the workspace's action list)
 *
 * Writes that cause a message or a job take an `also(op, ...)` callback, so the queue message
 * is enqueued in the same atomic commit as the write.
 */
import { retryCommit } from "../../shared/kv.ts";
import type { Action } from "./schemas.ts";

/** What a read-modify-write of one action came to. */
export type UpdateOutcome =
  | { kind: "missing" }
  | { kind: "unchanged"; action: Action }
  | { kind: "updated"; before: Action; after: Action };

export function actionKey(workspaceId: string, actionId: string): Deno.KvKey {
  return ["actions", workspaceId, actionId];
}

export function workspaceActionsPrefix(workspaceId: string): Deno.KvKey {
  return ["actions", workspaceId];
}

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
}
