import type { z } from "@hono/zod-openapi";
import type { AssetStore } from "../../shared/assets/store.ts";
import { buildMessage, type TemplateName } from "../../shared/delivery/mod.ts";
import { badRequest, forbidden, notFound } from "../../shared/http/app_error.ts";
import type { Caller } from "../../shared/http/identity.ts";
import { newId } from "../../shared/crypto/ids.ts";
import type { KvPage } from "../../shared/kv/kv_pages.ts";
import { countMetric, recordMetric } from "../../shared/service/metrics.ts";
import type { ServiceQueue } from "../../shared/queue/queue.ts";
import { nowIso } from "../../shared/time.ts";
import type { AuthClient } from "../auth/client.ts";
import type { WorkspacesClient } from "../workspaces/client.ts";
import type { ActionsJob } from "./jobs.ts";
import type {
  Action,
  ActionStatus,
  createActionBody,
  listQuery,
  updateActionBody,
} from "./schemas.ts";
import {
  type ActionListFilters,
  type ActionStore,
  matchesFilters,
  type UpdateOutcome,
} from "./store.ts";

export const ACTION_NOT_FOUND = "Action not found";
const NOT_ASSIGNEE = "Only the assignee can respond to this action";
const NOT_MEMBER_ASSIGNEE = "assignee_id is not a member of the workspace";

export type NewAction = z.infer<typeof createActionBody>;
export type ActionChanges = Omit<z.infer<typeof updateActionBody>, "workspace_id">;
export type ActionFilters = z.infer<typeof listQuery>;

/** The query's filters; a blank one is no filter (as an absent one), not a match on "". */
function listFilters(query: ActionFilters): ActionListFilters {
  const value = (v: string | undefined) => v?.trim() || undefined;
  return {
    status: value(query.status),
    assigneeId: value(query.assigneeId),
    linkedPostId: value(query.linkedPostId),
    createdBy: value(query.createdBy),
  };
}

/** The action a write left: 404 when it was deleted before the write. */
export function written(outcome: UpdateOutcome): Action {
  switch (outcome.kind) {
    case "missing":
      throw notFound(ACTION_NOT_FOUND);
    case "unchanged":
      return outcome.action;
    case "updated":
      return outcome.after;
  }
}

/**
 * The action items and the direct messages they cause: each
 * DM is enqueued in the commit of the write that causes it, so a DM never fails the request
 * and a request that fails sends none. Every method checks membership first (403 `Not a
 * workspace member`), then the action (404).
 */
export class ActionOperations {
  constructor(
    private readonly deps: {
      store: ActionStore;
      queue: ServiceQueue<ActionsJob>;
      auth: AuthClient;
      workspaces: WorkspacesClient;
      /** null when ASSETS_URL is empty: a deleted action then has no stored files to remove */
      assets: AssetStore | null;
      /** `PUBLIC_URL`, which the DMs' deep links start with */
      publicUrl: string;
    },
  ) {}

  /** The action, if the caller is a member of its workspace (403) and it is there (404). */
  async require(caller: Caller, workspaceId: string, actionId: string): Promise<Action> {
    await this.deps.workspaces.requireMember(workspaceId, caller.user_id);
    const action = await this.deps.store.get(workspaceId, actionId);
    if (!action) throw notFound(ACTION_NOT_FOUND);
    return action;
  }

  /** A new open action with a pending response; the assignee gets `action_created`. */
  async create(caller: Caller, input: NewAction): Promise<Action> {
    await this.deps.workspaces.requireMember(input.workspace_id, caller.user_id);
    const assignee = await this.memberProfile(input.workspace_id, input.assignee_id);
    const now = nowIso();
    const action: Action = {
      action_id: newId(),
      workspace_id: input.workspace_id,
      title: input.title,
      description: input.description ?? "",
      assignee_id: input.assignee_id,
      assignee_name: assignee.name,
      assignee_response: "pending",
      linked_post_id: input.linked_post_id ?? null,
      status: "open",
      // Strings per the spec's Action table (only linked_post_id and completed_at are nullable).
      priority: input.priority ?? "",
      due_date: input.due_date ?? "",
      attachments: [],
      created_by: caller.user_id,
      created_at: now,
      updated_at: now,
      completed_at: null,
    };
    return await this.deps.store.create(
      action,
      (op) => this.dm(op, assignee.email, "action_created", action, caller),
    );
  }

  /** The workspace's actions, newest first, by exact status, assignee and linked post. */
  async list(caller: Caller, query: ActionFilters): Promise<Action[]> {
    await this.deps.workspaces.requireMember(query.workspaceId, caller.user_id);
    const filters = listFilters(query);
    return (await this.deps.store.list(query.workspaceId)).filter((a) =>
      matchesFilters(a, filters)
    );
  }

  /** One page of the list, newest first, after the action `after`. */
  async listPage(
    caller: Caller,
    query: ActionFilters,
    page: { limit: number; after?: string },
  ): Promise<KvPage<Action>> {
    await this.deps.workspaces.requireMember(query.workspaceId, caller.user_id);
    return await this.deps.store.listPage(query.workspaceId, listFilters(query), page);
  }

  /** Applies the changes given; a new assignee gets `action_assigned` and a pending response. */
  async update(
    caller: Caller,
    workspaceId: string,
    actionId: string,
    changes: ActionChanges,
  ): Promise<Action> {
    const current = await this.require(caller, workspaceId, actionId);
    const newAssignee = changes.assignee_id !== undefined &&
        changes.assignee_id !== current.assignee_id
      ? await this.memberProfile(workspaceId, changes.assignee_id)
      : null;
    const outcome = await this.deps.store.update(workspaceId, actionId, (action) => {
      if (changes.title !== undefined) action.title = changes.title;
      if (changes.description !== undefined) action.description = changes.description;
      if (changes.linked_post_id !== undefined) action.linked_post_id = changes.linked_post_id;
      if (changes.priority !== undefined) action.priority = changes.priority;
      if (changes.due_date !== undefined) action.due_date = changes.due_date;
      if (newAssignee && action.assignee_id !== newAssignee.user_id) {
        action.assignee_id = newAssignee.user_id;
        action.assignee_name = newAssignee.name;
        action.assignee_response = "pending";
      }
      action.updated_at = nowIso();
      return action;
    }, (op, before, after) => {
      if (newAssignee && before.assignee_id !== after.assignee_id) {
        this.dm(op, newAssignee.email, "action_assigned", after, caller);
      }
    });
    return written(outcome);
  }

  /** Any status to any; `completed` stamps `completed_at` and DMs the creator. */
  async setStatus(
    caller: Caller,
    workspaceId: string,
    actionId: string,
    status: ActionStatus,
  ): Promise<Action> {
    const current = await this.require(caller, workspaceId, actionId);
    const completed = status === "completed";
    const creator = completed ? await this.deps.auth.getUser(current.created_by) : null;
    const action = written(
      await this.deps.store.update(workspaceId, actionId, (action) => {
        const now = nowIso();
        action.status = status;
        action.updated_at = now;
        if (completed) action.completed_at = now;
        return action;
      }, (op, _before, after) => {
        if (completed) this.dm(op, creator?.email, "action_completed", after, caller);
      }),
    );
    if (completed) {
      countMetric("ActionCompleted");
      const turnaround = (Date.parse(action.completed_at ?? "") - Date.parse(action.created_at)) /
        1000;
      if (Number.isFinite(turnaround)) recordMetric("ActionTurnaroundSeconds", turnaround);
    }
    return action;
  }

  /** The assignee (only) accepts or declines; the creator gets `action_response`. */
  async respond(
    caller: Caller,
    workspaceId: string,
    actionId: string,
    response: "accepted" | "declined",
  ): Promise<Action> {
    const current = await this.require(caller, workspaceId, actionId);
    if (current.assignee_id !== caller.user_id) throw forbidden(NOT_ASSIGNEE);
    const creator = await this.deps.auth.getUser(current.created_by);
    const outcome = await this.deps.store.update(workspaceId, actionId, (action) => {
      // Checked again on what the commit writes over: a reassignment meanwhile refuses.
      if (action.assignee_id !== caller.user_id) throw forbidden(NOT_ASSIGNEE);
      action.assignee_response = response;
      action.updated_at = nowIso();
      return action;
    }, (op, _before, after) => {
      this.dm(op, creator?.email, "action_response", after, caller, { response });
    });
    return written(outcome);
  }

  /** Deletes the action (its creator or a platform admin); its stored files go with a job. */
  async delete(caller: Caller, workspaceId: string, actionId: string): Promise<void> {
    const current = await this.require(caller, workspaceId, actionId);
    if (current.created_by !== caller.user_id && caller.role !== "admin") {
      throw forbidden("Only the creator or an admin can delete this action");
    }
    const { store, queue, assets } = this.deps;
    const deleted = await store.delete(workspaceId, actionId, (op, action) => {
      const keys = action.attachments.map((a) => a.key);
      if (keys.length > 0 && assets) queue.enqueue(op, { type: "delete_assets", keys });
    });
    if (!deleted) throw notFound(ACTION_NOT_FOUND);
  }

  /** The assignee's profile, refused with 400 when they are not a member of the workspace. */
  private async memberProfile(workspaceId: string, userId: string) {
    const membership = await this.deps.workspaces.membership(workspaceId, userId);
    if (!membership.role) throw badRequest(NOT_MEMBER_ASSIGNEE);
    const profile = await this.deps.auth.getUser(userId);
    if (!profile) throw badRequest(NOT_MEMBER_ASSIGNEE);
    return profile;
  }

  /** Enqueues the DM `template` about `action` to `to` (none when there is no address). */
  private dm(
    op: Deno.AtomicOperation,
    to: string | undefined,
    template: TemplateName,
    action: Action,
    actor: Caller,
    extra: Record<string, unknown> = {},
  ): void {
    // Nobody is told of their own action.
    if (!to || to.toLowerCase() === actor.email?.toLowerCase()) return;
    const { action_id, workspace_id } = action;
    this.deps.queue.enqueue(op, {
      type: "deliver",
      message: buildMessage("dm", to, template, {
        action_id,
        workspace_id,
        action_title: action.title,
        actor_name: actor.name || actor.email,
        description: action.description,
        due_date: action.due_date ?? "",
        url: `${this.deps.publicUrl}/workspaces/${workspace_id}/actions?action=${action_id}`,
        ...extra,
      }),
    });
  }
}
