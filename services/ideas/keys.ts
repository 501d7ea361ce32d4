import { declareKeys } from "../../shared/kv_keys.ts";

/**
 * Every key family the ideas service writes, with its backup class: the one list its backup
 * and restore read (key builders: store.ts).
 */
export const KEY_FAMILIES = declareKeys({
  ideas: "data",
  ideas_by_id: "data",
  counters: "data",
  qc_tokens: "data",
  qc_tokens_by_user: "data",
  qc_active_by_user: "data",
  qc_active_by_workspace: "data",
  // a capture token's per-minute rate windows: a restore neither brings old ones back nor
  // resets live ones
  qc_rate: "local",
});
