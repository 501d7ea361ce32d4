import { retryCommit } from "../../../shared/kv/kv.ts";
import { newId, randomToken, sha256Hex } from "../../../shared/crypto/ids.ts";
import { refreshFamilyKey, refreshTokenKey } from "../keys.ts";
import {
  REFRESH_TOKEN_TTL_MS,
  RefreshFamilyRecord,
  RefreshTokenRecord,
  RotateResult,
  SESSION_MAX_AGE_MS,
} from "./common.ts";

/** Refresh tokens and their families (one family per sign-in). */
export class SessionStore {
  constructor(private readonly kv: Deno.Kv) {}

  // ---------------------------------------------------------------- refresh tokens

  /**
   * A new refresh token starting a new family (a new session), and the family's id (the
   * access tokens of the session carry it as `sid`); rotation continues one.
   */
  async issueRefreshToken(
    userId: string,
    clientId?: string,
  ): Promise<{ token: string; family_id: string }> {
    const token = randomToken(32);
    const familyId = newId();
    const family: RefreshFamilyRecord = {
      user_id: userId,
      revoked: false,
      created_at: Date.now(),
      ...(clientId ? { client_id: clientId } : {}),
    };
    const res = await this.kv.atomic()
      .set(refreshFamilyKey(familyId), family, { expireIn: SESSION_MAX_AGE_MS })
      .set(
        refreshTokenKey(await sha256Hex(token)),
        {
          user_id: userId,
          family_id: familyId,
          expires_at: family.created_at! + Math.min(REFRESH_TOKEN_TTL_MS, SESSION_MAX_AGE_MS),
          used_at: null,
        } satisfies RefreshTokenRecord,
        { expireIn: Math.min(REFRESH_TOKEN_TTL_MS, SESSION_MAX_AGE_MS) },
      )
      .commit();
    if (!res.ok) throw new Error("Cannot store the refresh token");
    return { token, family_id: familyId };
  }

  /**
   * Whether a session (refresh family) was revoked: by logout, a reused refresh token or a
   * refused refresh. A family the store no longer holds (expired, or dropped by a restore) is
   * not counted as revoked: a revoked one is kept longer than its access tokens live.
   */
  async sessionRevoked(familyId: string): Promise<boolean> {
    return (await this.kv.get<RefreshFamilyRecord>(refreshFamilyKey(familyId))).value?.revoked ===
      true;
  }

  /**
   * Rotation: a valid token is marked used and replaced by a new one of the same family. A
   * token presented a second time revokes its whole family. A family ends SESSION_MAX_AGE_MS
   * after its sign-in however often it rotates: rotation never extends it (a family stored
   * before `created_at` existed counts from its first rotation since). `clientId` is the
   * registered client presenting it (none for the first-party client).
   */
  async rotateRefreshToken(token: string, clientId?: string): Promise<RotateResult> {
    const hash = await sha256Hex(token);
    const next = randomToken(32);
    const nextHash = await sha256Hex(next);
    return await retryCommit<RotateResult>(async () => {
      const entry = await this.kv.get<RefreshTokenRecord>(refreshTokenKey(hash));
      const record = entry.value;
      if (!record) return { ok: true, value: { kind: "invalid" } };
      const familyEntry = await this.kv.get<RefreshFamilyRecord>(
        refreshFamilyKey(record.family_id),
      );
      if (!familyEntry.value || familyEntry.value.revoked) {
        return { ok: true, value: { kind: "invalid" } };
      }
      // A session's refresh tokens belong to the client it was signed in through: another
      // client's presenting one changes nothing.
      if (familyEntry.value.client_id !== clientId) {
        return { ok: true, value: { kind: "invalid" } };
      }
      if (record.used_at !== null) {
        const res = await this.kv.atomic().check(familyEntry).set(familyEntry.key, {
          ...familyEntry.value,
          revoked: true,
        }, { expireIn: REFRESH_TOKEN_TTL_MS }).commit();
        return res.ok ? { ok: true, value: { kind: "reused" } } : { ok: false };
      }
      const now = Date.now();
      if (record.expires_at <= now) return { ok: true, value: { kind: "invalid" } };
      const family = { ...familyEntry.value, created_at: familyEntry.value.created_at ?? now };
      const sessionEnd = family.created_at + SESSION_MAX_AGE_MS;
      if (sessionEnd <= now) return { ok: true, value: { kind: "invalid" } };
      const expiresAt = Math.min(now + REFRESH_TOKEN_TTL_MS, sessionEnd);
      const res = await this.kv.atomic()
        .check(entry)
        .check(familyEntry)
        .set(entry.key, { ...record, used_at: now }, {
          expireIn: Math.max(1, record.expires_at - now),
        })
        .set(familyEntry.key, family, { expireIn: sessionEnd - now })
        .set(
          refreshTokenKey(nextHash),
          {
            user_id: record.user_id,
            family_id: record.family_id,
            expires_at: expiresAt,
            used_at: null,
          } satisfies RefreshTokenRecord,
          { expireIn: expiresAt - now },
        )
        .commit();
      return res.ok
        ? {
          ok: true,
          value: {
            kind: "rotated",
            user_id: record.user_id,
            family_id: record.family_id,
            refresh_token: next,
          },
        }
        : { ok: false };
    });
  }

  /** Revokes the family of `token` (logout; a disabled account's refresh). */
  async revokeRefreshToken(token: string): Promise<void> {
    const record = (await this.kv.get<RefreshTokenRecord>(
      refreshTokenKey(await sha256Hex(token)),
    )).value;
    if (!record) return;
    await this.revokeFamily(record.family_id);
  }

  async revokeFamily(familyId: string): Promise<void> {
    await retryCommit(async () => {
      const entry = await this.kv.get<RefreshFamilyRecord>(refreshFamilyKey(familyId));
      if (!entry.value || entry.value.revoked) return { ok: true, value: undefined };
      const res = await this.kv.atomic().check(entry).set(entry.key, {
        ...entry.value,
        revoked: true,
      }, { expireIn: REFRESH_TOKEN_TTL_MS }).commit();
      return res.ok ? { ok: true, value: undefined } : { ok: false };
    });
  }
}
