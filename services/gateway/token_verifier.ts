import { createLocalJWKSet, type JSONWebKeySet, jwtVerify } from "jose";
import { z } from "zod";
import { type Caller, encodeCaller } from "../../shared/http/identity.ts";

const claimsSchema = z.object({
  sub: z.string().min(1),
  email: z.string().default(""),
  name: z.string().default(""),
  "custom:role": z.enum(["admin", "member"]).default("member"),
  "custom:approved": z.string().default("false"),
  exp: z.number(),
  iat: z.number().optional(),
  /** The session (refresh family) the token belongs to; logout revokes it. */
  sid: z.string().max(100).optional(),
  /**
   * Only access tokens authorize API calls. The id token (also the `svc_token` cookie) says who
   * signed in, for the client to read; taking it as a bearer token would let anything that
   * sees it (a page script, a log) act as the user.
   */
  token_use: z.literal("access"),
});

/** What a verified token proves, kept until it expires. */
export interface VerifiedToken {
  caller: Caller;
  /** `caller`, encoded for the identity header */
  header: string;
  expiresAt: number;
  /** issued at (seconds), when the token says */
  iat?: number;
}

export interface TokenVerifierOptions {
  issuer: string;
  audience: string;
  /** Fetches the current JWKS (from the auth service). */
  loadJwks: () => Promise<JSONWebKeySet>;
  /** How many verified tokens to keep; the oldest are dropped first. */
  cacheSize?: number;
}

/**
 * Verifies access tokens (EdDSA signature, exp, iss, aud, `token_use: "access"`) once, then
 * keeps the result until the token expires, so repeated requests with one token skip
 * verification.
 */
export class TokenVerifier {
  readonly #cache = new Map<string, VerifiedToken>();
  #jwks: ReturnType<typeof createLocalJWKSet> | null = null;
  #jwksLoadedAt = 0;

  constructor(private readonly options: TokenVerifierOptions) {}

  /**
   * The caller a token proves and its encoded identity header (kept with the cached
   * verification), or null when the token is invalid, expired, lacks `sub` or is not an access
   * token. A token verified before is answered at once, without a promise.
   */
  verify(token: string): VerifiedToken | null | Promise<VerifiedToken | null> {
    const cached = this.#cache.get(token);
    if (cached) {
      if (cached.expiresAt > Date.now()) return cached;
      this.#cache.delete(token);
    }
    return this.#verifyNew(token);
  }

  async #verifyNew(token: string): Promise<VerifiedToken | null> {
    const claims = await this.#verifySignature(token);
    if (!claims) return null;
    const caller: Caller = {
      user_id: claims.sub,
      email: claims.email,
      name: claims.name,
      role: claims["custom:role"],
      approved: claims["custom:approved"] === "true",
      ...(claims.sid !== undefined ? { sid: claims.sid } : {}),
    };
    const max = this.options.cacheSize ?? 10_000;
    if (this.#cache.size >= max) {
      const oldest = this.#cache.keys().next().value;
      if (oldest !== undefined) this.#cache.delete(oldest);
    }
    const entry: VerifiedToken = {
      caller,
      header: encodeCaller(caller),
      expiresAt: claims.exp * 1000,
      iat: claims.iat,
    };
    this.#cache.set(token, entry);
    return entry;
  }

  async #verifySignature(token: string): Promise<z.infer<typeof claimsSchema> | null> {
    for (let attempt = 0; attempt < 2; attempt++) {
      const jwks = await this.#keys(attempt > 0);
      try {
        const { payload } = await jwtVerify(token, jwks, {
          issuer: this.options.issuer,
          audience: this.options.audience,
          algorithms: ["EdDSA"],
        });
        const parsed = claimsSchema.safeParse(payload);
        return parsed.success ? parsed.data : null;
      } catch (err) {
        // An unknown kid may mean the keys rotated: reload once, at most every 30 s.
        const code = (err as { code?: string }).code;
        if (code === "ERR_JWKS_NO_MATCHING_KEY" && Date.now() - this.#jwksLoadedAt > 30_000) {
          continue;
        }
        return null;
      }
    }
    return null;
  }

  async #keys(reload: boolean) {
    if (!this.#jwks || reload) {
      this.#jwks = createLocalJWKSet(await this.options.loadJwks());
      this.#jwksLoadedAt = Date.now();
    }
    return this.#jwks;
  }
}
