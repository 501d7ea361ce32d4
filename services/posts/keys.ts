import { DELIVERY_KEYS } from "../../shared/delivery/mod.ts";
import { declareKeys } from "../../shared/kv_keys.ts";
import { QUEUE_KEYS } from "../../shared/queue.ts";

/**
 * Every key family the posts service writes, with its backup class: the one list its backup
 * and restore read (key builders: store.ts and publishing.ts).
 */
export const KEY_FAMILIES = declareKeys(
  {
    posts: "data",
    post_workspaces: "data",
    post_content: "data",
    post_counters: "data",
    post_reviews: "data",
    comments: "data",
    comment_replies: "data",
    examples: "data",
    linkedin_publications: "data",
    // the access token is sealed with a key that is not in this KV
    linkedin_connections: "data",
    // a LinkedIn connection's OAuth state: bound to a browser, single use
    linkedin_states: "session",
  },
  QUEUE_KEYS,
  DELIVERY_KEYS,
);
