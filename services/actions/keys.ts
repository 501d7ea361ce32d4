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

/**
 * Every key family the actions service writes, with its backup class: the one list its backup
 * and restore read.
 */
export const KEY_FAMILIES = declareKeys(
  {
    actions: "data",
    // the single-use grant of a handed-out attachment upload URL
    attachment_uploads: "session",
  },
  QUEUE_KEYS,
  DELIVERY_KEYS,
);
