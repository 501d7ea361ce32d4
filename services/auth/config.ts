import { z } from "zod";
import {
  type BaseConfig,
  ConfigError,
  emptyToUndefined,
  httpUrl,
  parseEnv,
} from "../../shared/config.ts";

export const DEFAULT_RECAPTCHA_VERIFY_URL = "https://www.google.com/recaptcha/api/siteverify";
export const DEFAULT_GOOGLE_ISSUER = "https://accounts.google.com";

const optionalString = z.preprocess(emptyToUndefined, z.string().optional());

export const authEnvShape = {
  OAUTH_REDIRECT_URIS: optionalString,
  RECAPTCHA_SECRET: optionalString,
  RECAPTCHA_VERIFY_URL: z.preprocess(
    emptyToUndefined,
    httpUrl.default(DEFAULT_RECAPTCHA_VERIFY_URL),
  ),
  GOOGLE_CLIENT_ID: optionalString,
  GOOGLE_CLIENT_SECRET: optionalString,
  GOOGLE_ISSUER: z.preprocess(emptyToUndefined, httpUrl.default(DEFAULT_GOOGLE_ISSUER)),
  ADMIN_EMAIL: z.preprocess(
    emptyToUndefined,
    z.string().trim().toLowerCase().pipe(z.email().max(254)).optional(),
  ),
  ADMIN_PASSWORD: optionalString,
  ADMIN_NAME: optionalString,
  JWT_PRIVATE_JWK: optionalString,
};

export interface GoogleConfig {
  clientId: string;
  clientSecret: string;
  issuer: string;
}

export interface AuthConfig {
  base: BaseConfig;
  clientId: string;
  redirectUris: string[];
  recaptchaSecret: string | null;
  recaptchaVerifyUrl: string;
  google: GoogleConfig | null;
  admin: { email: string; password: string; name: string } | null;
  /** An Ed25519 private key given as a JWK (JSON) instead of the one kept in KV. */
  privateJwk: JsonWebKey & { kid?: string } | null;
  /** STAGE=dev omits `Secure` on the svc_token cookie. */
  secureCookie: boolean;
}

/** The auth service's settings; a malformed value throws a ConfigError naming the variable. */
export function parseAuthConfig(
  env: Record<string, string | undefined>,
  base: BaseConfig,
): AuthConfig {
  const raw = parseEnv(authEnvShape, env);
  const redirectUris = (raw.OAUTH_REDIRECT_URIS ?? `${base.publicUrl}/`)
    .split(",").map((s) => s.trim()).filter(Boolean);
  for (const uri of redirectUris) {
    if (!URL.canParse(uri) || !/^https?:\/\//.test(uri) || uri.includes("#")) {
      throw new ConfigError(
        `Invalid environment variable OAUTH_REDIRECT_URIS: "${uri}" is not an absolute http(s) URL`,
      );
    }
  }
  let google: GoogleConfig | null = null;
  if (raw.GOOGLE_CLIENT_ID || raw.GOOGLE_CLIENT_SECRET) {
    if (!raw.GOOGLE_CLIENT_ID || !raw.GOOGLE_CLIENT_SECRET) {
      const missing = raw.GOOGLE_CLIENT_ID ? "GOOGLE_CLIENT_SECRET" : "GOOGLE_CLIENT_ID";
      throw new ConfigError(
        `Invalid environment variable ${missing}: required when Google sign-in is configured`,
      );
    }
    google = {
      clientId: raw.GOOGLE_CLIENT_ID,
      clientSecret: raw.GOOGLE_CLIENT_SECRET,
      issuer: raw.GOOGLE_ISSUER.replace(/\/+$/, ""),
    };
  }
  let admin: AuthConfig["admin"] = null;
  if (raw.ADMIN_EMAIL) {
    if (!raw.ADMIN_PASSWORD) {
      throw new ConfigError(
        "Invalid environment variable ADMIN_PASSWORD: required when ADMIN_EMAIL is set",
      );
    }
    admin = {
      email: raw.ADMIN_EMAIL,
      password: raw.ADMIN_PASSWORD,
      name: raw.ADMIN_NAME?.trim() || "Admin",
    };
  }
  let privateJwk: AuthConfig["privateJwk"] = null;
  if (raw.JWT_PRIVATE_JWK) {
    try {
      privateJwk = JSON.parse(raw.JWT_PRIVATE_JWK);
    } catch {
      privateJwk = null;
    }
    if (
      !privateJwk || privateJwk.kty !== "OKP" || privateJwk.crv !== "Ed25519" || !privateJwk.d ||
      !privateJwk.x
    ) {
      throw new ConfigError(
        "Invalid environment variable JWT_PRIVATE_JWK: must be an Ed25519 private key as a JWK",
      );
    }
  }
  return {
    base,
    clientId: base.oauthClientId,
    redirectUris,
    recaptchaSecret: raw.RECAPTCHA_SECRET ?? null,
    recaptchaVerifyUrl: raw.RECAPTCHA_VERIFY_URL,
    google,
    admin,
    privateJwk,
    secureCookie: base.stage !== "dev",
  };
}
