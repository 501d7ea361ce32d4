import { DELIVERY_KEYS } from "../../shared/delivery/mod.ts";
import { declareKeys } from "../../shared/kv_keys.ts";
import { QUEUE_KEYS } from "../../shared/queue.ts";

/**
 * Every key family the auth service writes, with its backup class: the one list its backup
 * and restore read.
 */
export const KEY_FAMILIES = declareKeys(
  {
    // accounts and what is counted about them
    users: "data",
    users_by_email: "data",
    users_by_google: "data",
    users_by_role: "data",
    user_counts: "data",
    user_activity_by_day: "data",
    // sessions and one-time secrets: after a restore everyone signs in again (the signing keys
    // stay, so access tokens already issued run out their hour)
    refresh_tokens: "session",
    refresh_families: "session",
    auth_codes: "session",
    ws_tickets: "session",
    google_states: "session",
    confirm_codes: "session",
    reset_codes: "session",
    setup_token: "session",
    // this deployment's secrets: tokens issued here keep verifying after a restore
    signing_keys: "local",
    signing_key_current: "local",
    // throttles and rate-limit windows: a restore neither brings old ones back nor resets live ones
    login_tries: "local",
    mail_limits: "local",
    rate_limits: "local",
  },
  QUEUE_KEYS,
  DELIVERY_KEYS,
);
