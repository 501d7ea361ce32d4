import { declareKeys } from "../../shared/kv/kv_keys.ts";

// Key builders: the only place the genai KV layout is spelled out (store.ts uses them).
/** `["ai_calls", userId, windowStart]`: how many AI calls the user made in that minute. */
export const aiCallsKey = (userId: string, windowStart: number): Deno.KvKey => [
  "ai_calls",
  userId,
  windowStart,
];

/**
 * Every key family the genai service writes: only the per-user AI call windows, this
 * deployment's own (no backup takes them and no restore touches them).
 */
export const KEY_FAMILIES = declareKeys({
  ai_calls: "local",
});
