import { declareKeys } from "../../shared/kv_keys.ts";

/**
 * Every key family the prompts service writes, with its backup class: the one list its backup
 * and restore read (key builders: store.ts).
 */
export const KEY_FAMILIES = declareKeys({
  prompts: "data",
  prompts_by_creator: "data",
  prompt_counts: "data",
  prompt_defaults: "data",
});
