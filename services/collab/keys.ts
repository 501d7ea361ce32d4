import { declareKeys } from "../../shared/kv_keys.ts";

/**
 * Every key family the collab service writes, with its backup class: the one list its backup
 * and restore read (key builders: store.ts).
 */
export const KEY_FAMILIES = declareKeys({
  doc_heads: "data",
  doc_updates: "data",
  doc_update_chunks: "data",
  doc_snapshots: "data",
  doc_signal_heads: "data",
  doc_signals: "data",
});
