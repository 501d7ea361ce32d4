import { declareKeys } from "../../shared/kv/kv_keys.ts";

// Key builders: the only place the collab KV layout is spelled out (store.ts uses them).
export const headKey = (postId: string): Deno.KvKey => ["doc_heads", postId];
/** The workspace a post belongs to, as the posts service told it (checked at connect). */
export const docWorkspaceKey = (postId: string): Deno.KvKey => ["doc_workspaces", postId];
export const signalHeadKey = (postId: string): Deno.KvKey => ["doc_signal_heads", postId];
export const signalKey = (postId: string, seq: number): Deno.KvKey => ["doc_signals", postId, seq];
export const updateKey = (postId: string, seq: number): Deno.KvKey => ["doc_updates", postId, seq];
export const chunkKey = (postId: string, seq: number, i: number): Deno.KvKey => [
  "doc_update_chunks",
  postId,
  seq,
  i,
];
export const snapshotKey = (postId: string, snapshotId: string, part: number): Deno.KvKey => [
  "doc_snapshots",
  postId,
  snapshotId,
  part,
];
/** The collab instances serving from this KV (one registration each, expiring). */
export const INSTANCES_PREFIX: Deno.KvKey = ["collab_instances"];
export const instanceKey = (instanceId: string): Deno.KvKey => [...INSTANCES_PREFIX, instanceId];
/** Moved by every restore of this KV, before it writes the restored records (restore_epoch.ts). */
export const RESTORE_EPOCH_KEY: Deno.KvKey = ["collab_restore_epoch"];

/**
 * Every key family the collab service writes, with its backup class: the one list its backup
 * and restore read.
 */
export const KEY_FAMILIES = declareKeys({
  doc_heads: "data",
  doc_workspaces: "data",
  doc_updates: "data",
  doc_update_chunks: "data",
  doc_snapshots: "data",
  doc_signal_heads: "data",
  doc_signals: "data",
  collab_instances: "local",
  collab_restore_epoch: "local",
});
