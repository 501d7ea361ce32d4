import { DELIVERY_KEYS } from "../../shared/delivery/mod.ts";
import { declareKeys } from "../../shared/kv_keys.ts";
import { QUEUE_KEYS } from "../../shared/queue.ts";

/**
 * Every key family the actions service writes, with its backup class: the one list its backup
 * and restore read (key builders: store.ts).
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
