import {
  calculateJwkThumbprint,
  exportJWK,
  generateKeyPair,
  importJWK,
  type JSONWebKeySet,
  type JWK,
  SignJWT,
} from "jose";
import { nowIso } from "../../shared/time.ts";
import type { UserRecord } from "./schemas.ts";
import type { AuthStore, SigningKeyRecord } from "./store.ts";

/** Access and id tokens live one hour. */
export const TOKEN_TTL_SECONDS = 3600;
const KEY_CACHE_MS = 30_000;

export interface IssuedTokens {
  access_token: string;
  id_token: string;
  expires_in: number;
  token_type: "Bearer";
}

/** A fresh Ed25519 key pair as a stored record, its `kid` the JWK thumbprint. */
export async function generateSigningKey(): Promise<SigningKeyRecord> {
  const { privateKey, publicKey } = await generateKeyPair("Ed25519", { extractable: true });
  const public_jwk = await exportJWK(publicKey);
  const kid = await calculateJwkThumbprint(public_jwk);
  return {
    kid,
    private_jwk: await exportJWK(privateKey) as JsonWebKey,
    public_jwk: public_jwk as JsonWebKey,
    created_at: nowIso(),
  };
}

/**
 * Signs the service's JWTs (EdDSA) and publishes the public keys. The signing key comes from
 * JWT_PRIVATE_JWK when given, otherwise from the auth KV, where it is generated on first use;
 * `rotate()` makes a new current key while the JWKS keeps serving the older ones.
 */
export class TokenIssuer {
  #envKey: Promise<SigningKeyRecord> | null = null;
  #current: { record: SigningKeyRecord; key: CryptoKey; loadedAt: number } | null = null;

  constructor(
    private readonly store: AuthStore,
    private readonly options: {
      issuer: string;
      audience: string;
      privateJwk: (JsonWebKey & { kid?: string }) | null;
    },
  ) {
    if (options.privateJwk) this.#envKey = recordFromJwk(options.privateJwk);
  }

  /** Makes sure a signing key exists (called at start-up). */
  async ensureKey(): Promise<void> {
    await this.#signingKey();
  }

  async #signingKey(): Promise<{ record: SigningKeyRecord; key: CryptoKey }> {
    if (this.#current && Date.now() - this.#current.loadedAt < KEY_CACHE_MS) return this.#current;
    let record = this.#envKey
      ? await this.#envKey
      : await this.store.signingKeys.currentSigningKey();
    if (!record) {
      await this.store.signingKeys.addSigningKey(await generateSigningKey(), { onlyIfNone: true });
      record = await this.store.signingKeys.currentSigningKey();
      if (!record) throw new Error("No signing key could be stored");
    }
    if (this.#current?.record.kid === record.kid) {
      this.#current.loadedAt = Date.now();
      return this.#current;
    }
    const key = await importJWK(record.private_jwk as JWK, "EdDSA") as CryptoKey;
    this.#current = { record, key, loadedAt: Date.now() };
    return this.#current;
  }

  /** Makes a new key current; tokens signed with older keys keep verifying. */
  async rotate(): Promise<string> {
    if (this.#envKey) throw new Error("The signing key is fixed by JWT_PRIVATE_JWK");
    const record = await generateSigningKey();
    await this.store.signingKeys.addSigningKey(record);
    this.#current = null;
    return record.kid;
  }

  /** Every current public key (GET /.well-known/jwks.json). */
  async jwks(): Promise<JSONWebKeySet> {
    await this.#signingKey();
    const records = await this.store.signingKeys.listSigningKeys();
    if (this.#envKey) records.unshift(await this.#envKey);
    const seen = new Set<string>();
    const keys = [];
    for (const r of records) {
      if (seen.has(r.kid)) continue;
      seen.add(r.kid);
      keys.push({ ...r.public_jwk, kid: r.kid, alg: "EdDSA", use: "sig" } as JWK);
    }
    return { keys };
  }

  /**
   * An access token and an id token for `user`, with the role and approval of now. `sid` names
   * the session (refresh family) they belong to: once it is revoked (logout) or the account's
   * sessions are (a password reset), the gateway refuses the access token.
   */
  async issue(user: UserRecord, sid?: string): Promise<IssuedTokens> {
    const { record, key } = await this.#signingKey();
    const claims = {
      email: user.email,
      name: user.name,
      "custom:role": user.role,
      "custom:approved": user.approved ? "true" : "false",
      ...(sid ? { sid } : {}),
    };
    const sign = (use: "access" | "id") =>
      new SignJWT({ ...claims, token_use: use })
        .setProtectedHeader({ alg: "EdDSA", kid: record.kid, typ: "JWT" })
        .setIssuer(this.options.issuer)
        .setAudience(this.options.audience)
        .setSubject(user.user_id)
        .setIssuedAt()
        .setExpirationTime(`${TOKEN_TTL_SECONDS}s`)
        .setJti(crypto.randomUUID())
        .sign(key);
    const [access_token, id_token] = await Promise.all([sign("access"), sign("id")]);
    return { access_token, id_token, expires_in: TOKEN_TTL_SECONDS, token_type: "Bearer" };
  }
}

async function recordFromJwk(jwk: JsonWebKey & { kid?: string }): Promise<SigningKeyRecord> {
  const public_jwk = { kty: jwk.kty, crv: jwk.crv, x: jwk.x } as JsonWebKey;
  const kid = jwk.kid ?? await calculateJwkThumbprint(public_jwk as JWK);
  return {
    kid,
    private_jwk: { kty: jwk.kty, crv: jwk.crv, x: jwk.x, d: jwk.d } as JsonWebKey,
    public_jwk,
    created_at: nowIso(),
  };
}
