import { DELIVERY_KEYS } from "../../shared/delivery/mod.ts";
import { declareKeys } from "../../shared/kv/kv_keys.ts";
import { QUEUE_KEYS } from "../../shared/queue/queue.ts";

// Key builders: the only place the actions KV layout is spelled out (store.ts uses them).
export function uploadGrantKey(uploadId: string): Deno.KvKey {
  return ["attachment_uploads", uploadId];
}

export function actionKey(workspaceId: string, actionId: string): Deno.KvKey {
  return ["actions", workspaceId, actionId];
}

export function workspaceActionsPrefix(workspaceId: string): Deno.KvKey {
  return ["actions", workspaceId];
}

// The indexes of the paged list, one per filter; each entry's key ends in the action's id, so
// a range of one is newest first read backwards, like `["actions", ws]` itself.
export const ACTION_INDEXES = {
  status: "actions_by_status",
  assigneeId: "actions_by_assignee",
  linkedPostId: "actions_by_post",
  createdBy: "actions_by_creator",
} as const;
export type ActionIndex = keyof typeof ACTION_INDEXES;

/** The range of the actions whose `filter` field is `value`. */
export function actionsBy(workspaceId: string, filter: ActionIndex, value: string): Deno.KvKey {
  return [ACTION_INDEXES[filter], workspaceId, value];
}

/** The index entries of one action (an action linked to no post has no post entry). */
export function actionIndexKeys(
  action: {
    workspace_id: string;
    action_id: string;
    status: string;
    assignee_id: string;
    linked_post_id: string | null;
    created_by: string;
  },
): Deno.KvKey[] {
  const ws = action.workspace_id;
  const id = action.action_id;
  const keys = [
    [...actionsBy(ws, "status", action.status), id],
    [...actionsBy(ws, "assigneeId", action.assignee_id), id],
    [...actionsBy(ws, "createdBy", action.created_by), id],
  ];
  if (action.linked_post_id) {
    keys.push([...actionsBy(ws, "linkedPostId", action.linked_post_id), id]);
  }
  return keys;
}
/** Set once every action is in the indexes above (start-up, and after a restore). */
export const ACTION_INDEXES_BUILT: Deno.KvKey = ["index_builds", "action_lists"];

/**
 * Every key family the actions service writes, with its backup class: the one list its backup
 * and restore read.
 */
export const KEY_FAMILIES = declareKeys(
  {
    actions: "data",
    // the single-use grant of a handed-out attachment upload URL
    attachment_uploads: "session",
    // the paged list's indexes, built from the actions (start-up and after a restore)
    actions_by_status: "derived",
    actions_by_assignee: "derived",
    actions_by_post: "derived",
    actions_by_creator: "derived",
    index_builds: "derived",
  },
  QUEUE_KEYS,
  DELIVERY_KEYS,
);
