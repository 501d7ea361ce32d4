import { declareKeys } from "../../shared/kv_keys.ts";
import { READ_CACHE_KEYS } from "../../shared/kv_cache.ts";

/**
 * Every key family the workspaces service writes, with its backup class: the one list its
 * backup and restore read (key builders: store.ts).
 */
export const KEY_FAMILIES = declareKeys(
  {
    workspaces: "data",
    memberships: "data",
    memberships_by_user: "data",
    member_counts: "data",
    invites: "data",
    invites_by_email: "data",
    // a workspace's lists, one family per list kind
    audiences: "data",
    languages: "data",
    stats: "data",
  },
  READ_CACHE_KEYS,
);
