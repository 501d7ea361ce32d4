import { declareKeys } from "../../shared/kv_keys.ts";
import { QUEUE_KEYS } from "../../shared/queue.ts";

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
