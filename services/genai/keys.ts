import { declareKeys } from "../../shared/kv_keys.ts";

/**
 * Every key family the genai service writes: only the per-user AI call windows, this
 * deployment's own (no backup takes them and no restore touches them).
 */
export const KEY_FAMILIES = declareKeys({
  ai_calls: "local",
});
