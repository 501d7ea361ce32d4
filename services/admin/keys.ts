import { declareKeys } from "../../shared/kv/kv_keys.ts";
import { QUEUE_KEYS } from "../../shared/queue/queue.ts";

// Key builders: the only place the admin KV layout is spelled out (store.ts uses them).
export const backupKey = (key: string) => ["backups", key];
export const restoreKey = (jobId: string) => ["restores", jobId];
export const idMapPrefix = (jobId: string) => ["restore_id_maps", jobId];
export const idMapKey = (jobId: string, oldId: string) => ["restore_id_maps", jobId, oldId];
export const idMapDoneKey = (jobId: string) => ["restore_id_maps_done", jobId];

/**
 * Every key family the admin service writes. All of it is this deployment's own state (the
 * backups it knows of, its restore jobs and the id maps they keep for a rerun): no backup
 * takes it and no restore touches it, so a restore never overwrites the job that runs it.
 */
export const KEY_FAMILIES = declareKeys(
  {
    backups: "local",
    restores: "local",
    restore_id_maps: "local",
    restore_id_maps_done: "local",
  },
  QUEUE_KEYS,
);
