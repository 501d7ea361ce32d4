import { randomToken, sha256Hex } from "../../../shared/crypto/ids.ts";
import { authCodeKey, googleStateKey, wsTicketKey } from "../keys.ts";
import {
  AUTH_CODE_TTL_MS,
  AuthCodeRecord,
  GOOGLE_STATE_TTL_MS,
  GoogleStateRecord,
  WS_TICKET_TTL_MS,
  WsTicketRecord,
} from "./common.ts";

/** Short-lived single-use grants: hosted-login codes, WebSocket tickets, Google sign-in states. */
export class GrantStore {
  constructor(private readonly kv: Deno.Kv) {}

  // ---------------------------------------------------------------- authorization codes

  async createAuthCode(input: Omit<AuthCodeRecord, "expires_at">): Promise<string> {
    const code = randomToken(32);
    await this.kv.set(
      authCodeKey(await sha256Hex(code)),
      {
        ...input,
        expires_at: Date.now() + AUTH_CODE_TTL_MS,
      } satisfies AuthCodeRecord,
      { expireIn: AUTH_CODE_TTL_MS },
    );
    return code;
  }

  /** A code as it is stored, without using it up; null when unknown, used or expired. */
  async findAuthCode(code: string): Promise<AuthCodeRecord | null> {
    const entry = await this.kv.get<AuthCodeRecord>(authCodeKey(await sha256Hex(code)));
    return entry.value && entry.value.expires_at > Date.now() ? entry.value : null;
  }

  /** Takes a code out of the store (single use); null when unknown, used or expired. */
  async consumeAuthCode(code: string): Promise<AuthCodeRecord | null> {
    const entry = await this.kv.get<AuthCodeRecord>(authCodeKey(await sha256Hex(code)));
    if (!entry.value) return null;
    const res = await this.kv.atomic().check(entry).delete(entry.key).commit();
    if (!res.ok) return null;
    return entry.value.expires_at > Date.now() ? entry.value : null;
  }

  // ---------------------------------------------------------------- WebSocket tickets

  async createWsTicket(
    snapshot: Omit<WsTicketRecord, "created_at" | "expires_at">,
  ): Promise<string> {
    const ticket = crypto.randomUUID();
    const now = Date.now();
    await this.kv.set(
      wsTicketKey(await sha256Hex(ticket)),
      { ...snapshot, created_at: now, expires_at: now + WS_TICKET_TTL_MS } satisfies WsTicketRecord,
      { expireIn: WS_TICKET_TTL_MS },
    );
    return ticket;
  }

  /**
   * Takes a ticket out of the store as its socket opens (single use: of two connections with
   * one ticket, one gets it); null when unknown, used or expired.
   */
  async takeWsTicket(ticket: string): Promise<WsTicketRecord | null> {
    const entry = await this.kv.get<WsTicketRecord>(wsTicketKey(await sha256Hex(ticket)));
    if (!entry.value) return null;
    const res = await this.kv.atomic().check(entry).delete(entry.key).commit();
    if (!res.ok) return null;
    return entry.value.expires_at > Date.now() ? entry.value : null;
  }

  // ---------------------------------------------------------------- Google sign-in state

  async saveGoogleState(state: string, record: Omit<GoogleStateRecord, "expires_at">) {
    await this.kv.set(
      googleStateKey(await sha256Hex(state)),
      {
        ...record,
        expires_at: Date.now() + GOOGLE_STATE_TTL_MS,
      } satisfies GoogleStateRecord,
      { expireIn: GOOGLE_STATE_TTL_MS },
    );
  }

  /** Takes the state of one Google round trip (single use); null when unknown or expired. */
  async takeGoogleState(state: string): Promise<GoogleStateRecord | null> {
    const entry = await this.kv.get<GoogleStateRecord>(googleStateKey(await sha256Hex(state)));
    if (!entry.value) return null;
    const res = await this.kv.atomic().check(entry).delete(entry.key).commit();
    if (!res.ok) return null;
    return entry.value.expires_at > Date.now() ? entry.value : null;
  }
}
