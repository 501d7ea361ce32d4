import type { AuthJob } from "./jobs.ts";
import type { ServiceQueue } from "../../shared/queue/queue.ts";
import { UserStore } from "./store/users.ts";
import { CodeStore } from "./store/codes.ts";
import { SetupStore } from "./store/setup.ts";
import { LoginThrottle } from "./store/throttle.ts";
import { SessionStore } from "./store/sessions.ts";
import { GrantStore } from "./store/grants.ts";
import { SigningKeyStore } from "./store/signing_keys.ts";
import { NotificationStore } from "./store/notifications.ts";
import { ClientStore } from "./store/clients.ts";

export * from "./store/common.ts";
export type { OAuthClientRecord } from "./store/clients.ts";

/**
 * The only code that touches the auth service's KV, one store per topic (each in store/):
 * users, codes, setup, login throttle, sessions, short-lived grants, signing keys and the
 * notifications kept for each user and the dynamically registered OAuth clients.
 */
export class AuthStore {
  readonly users: UserStore;
  readonly codes: CodeStore;
  readonly setup: SetupStore;
  readonly throttle: LoginThrottle;
  readonly sessions: SessionStore;
  readonly grants: GrantStore;
  readonly signingKeys: SigningKeyStore;
  readonly notifications: NotificationStore;
  readonly clients: ClientStore;

  constructor(kv: Deno.Kv, queue: ServiceQueue<AuthJob>) {
    this.users = new UserStore(kv, queue);
    this.codes = new CodeStore(kv, queue);
    this.setup = new SetupStore(kv);
    this.throttle = new LoginThrottle(kv);
    this.sessions = new SessionStore(kv);
    this.grants = new GrantStore(kv);
    this.signingKeys = new SigningKeyStore(kv);
    this.notifications = new NotificationStore(kv);
    this.clients = new ClientStore(kv);
  }
}
