import { retryCommit } from "../../../shared/kv/kv.ts";
import { clientRegistrationsKey, oauthClientKey } from "../keys.ts";
import { addressBucket, type Allowance, HOUR, type WindowCount } from "./common.ts";

/** A client registered by RFC 7591 dynamic registration: public (no secret), PKCE only. */
export interface OAuthClientRecord {
  client_id: string;
  client_name: string | null;
  redirect_uris: string[];
  created_at: string;
  /**
   * When a registration that never completed a sign-in is dropped (ms); null once one did.
   * Anyone may register, so an unused registration does not stay.
   */
  expires_at: number | null;
}

/** An unused registration is kept this long. */
export const UNUSED_CLIENT_TTL_MS = 24 * HOUR;
/** Registrations one client address may make per hour. */
export const CLIENT_REGISTRATIONS_PER_HOUR = 20;

/** Dynamically registered OAuth clients. */
export class ClientStore {
  constructor(private readonly kv: Deno.Kv) {}

  /**
   * Stores a new registration (kept UNUSED_CLIENT_TTL_MS until a sign-in uses it), counted
   * against the address's hourly allowance; beyond it refused, nothing stored, with the wait
   * until the address's hour is over.
   */
  async register(record: OAuthClientRecord, address: string): Promise<Allowance> {
    const limitKey = clientRegistrationsKey(addressBucket(address));
    return await retryCommit<Allowance>(async () => {
      const entry = await this.kv.get<WindowCount>(limitKey);
      const now = Date.now();
      const live = entry.value && now - entry.value.window_start < HOUR
        ? entry.value
        : { count: 0, window_start: now };
      if (live.count >= CLIENT_REGISTRATIONS_PER_HOUR) {
        return { ok: true, value: { allowed: false, waitMs: live.window_start + HOUR - now } };
      }
      const res = await this.kv.atomic()
        .check(entry)
        .set(limitKey, { count: live.count + 1, window_start: live.window_start }, {
          expireIn: Math.max(1, live.window_start + HOUR - now),
        })
        .set(oauthClientKey(record.client_id), record, { expireIn: UNUSED_CLIENT_TTL_MS })
        .commit();
      return res.ok ? { ok: true, value: { allowed: true, value: undefined } } : { ok: false };
    });
  }

  /** A registered client; null when unknown or an unused registration that expired. */
  async get(clientId: string): Promise<OAuthClientRecord | null> {
    const record = (await this.kv.get<OAuthClientRecord>(oauthClientKey(clientId))).value;
    if (!record) return null;
    return record.expires_at === null || record.expires_at > Date.now() ? record : null;
  }

  /** A completed sign-in keeps the registration from then on (once; later calls do nothing). */
  async keep(clientId: string): Promise<void> {
    await retryCommit(async () => {
      const entry = await this.kv.get<OAuthClientRecord>(oauthClientKey(clientId));
      if (!entry.value || entry.value.expires_at === null) return { ok: true, value: undefined };
      const res = await this.kv.atomic().check(entry)
        .set(entry.key, { ...entry.value, expires_at: null }).commit();
      return res.ok ? { ok: true, value: undefined } : { ok: false };
    });
  }
}
