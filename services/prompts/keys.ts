import { declareKeys } from "../../shared/kv/kv_keys.ts";

// Key builders: the only place the prompts KV layout is spelled out (store.ts uses them).
export const promptKey = (
  workspaceId: string,
  promptId: string,
) => ["prompts", workspaceId, promptId];
export const byCreatorKey = (workspaceId: string, userId: string, promptId: string) => [
  "prompts_by_creator",
  workspaceId,
  userId,
  promptId,
];
export const byCreatorPrefix = (workspaceId: string, userId: string) => [
  "prompts_by_creator",
  workspaceId,
  userId,
];
/** How many prompts a creator has in a workspace: checked on delete (never the last one). */
export const countKey = (
  workspaceId: string,
  userId: string,
) => ["prompt_counts", workspaceId, userId];
/**
 * A creator's default prompt in a workspace. One pointer, not a flag per prompt: two defaults
 * for one creator and workspace cannot exist, however many set-default calls race.
 */
export const defaultKey = (workspaceId: string, userId: string) => [
  "prompt_defaults",
  workspaceId,
  userId,
];

/**
 * Every key family the prompts service writes, with its backup class: the one list its backup
 * and restore read.
 */
export const KEY_FAMILIES = declareKeys({
  prompts: "data",
  prompts_by_creator: "data",
  prompt_counts: "data",
  prompt_defaults: "data",
});
