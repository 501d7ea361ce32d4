import { LIVE_TEXT_CHECK_MS } from "./live_text_check.ts";
import { z } from "zod";
import { type BaseConfig, emptyToUndefined, httpUrl, parseEnv } from "../../shared/config.ts";
import { type DeliveryConfig, parseDeliveryConfig } from "../../shared/delivery/mod.ts";
import { type AssetsConfig, parseAssetsUrl } from "../../shared/assets/config.ts";

/** A LinkedIn API version (`YYYYMM`) less than a year old when this was written. */
export const DEFAULT_LINKEDIN_VERSION = "202610";

export interface LinkedInConfig {
  /** null: LinkedIn is not configured (connect answers 503) */
  clientId: string | null;
  clientSecret: string;
  authUrl: string;
  apiUrl: string;
  version: string;
  /** base64 of 32 bytes, or null: a key file under DATA_DIR is used (token_crypto.ts) */
  tokenKey: string | null;
  /** how long a call to LinkedIn may take before its outcome counts as unknown */
  timeoutMs: number;
  /** how often the connections are checked for the 7-day expiry reminder */
  expiryCheckMs: number;
  /** how long one media upload to LinkedIn may take */
  uploadTimeoutMs: number;
  /** LINKEDIN_ORGANIZATIONS=true: connect asks for the pages' scopes and lists the pages */
  organizations: boolean;
}

export interface PostsConfig {
  base: BaseConfig;
  /** Comment DMs go out through this service's queue. */
  delivery: DeliveryConfig;
  linkedin: LinkedInConfig;
  /**
   * How often approved posts' live texts are compared with their approvals (an edit withdraws
   * the approval within this plus a read; the publish job checks once more regardless).
   */
  liveTextCheckMs: number;
  /** Where posts' media bytes live; null when ASSETS_URL is empty (media routes answer 500) */
  assets: AssetsConfig | null;
  /** Lifetime of a media upload URL, seconds (ATTACHMENT_URL_TTL_SECONDS, as attachments') */
  uploadUrlTtl: number;
  /** How long after an upload URL expired a media entry whose bytes never arrived is dropped */
  cleanupMargin: number;
}

const positiveMs = z.coerce.number().int().min(1);

const linkedinEnvShape = {
  LINKEDIN_CLIENT_ID: z.preprocess(emptyToUndefined, z.string().optional()),
  LINKEDIN_CLIENT_SECRET: z.preprocess(emptyToUndefined, z.string().optional()),
  LINKEDIN_AUTH_URL: z.preprocess(emptyToUndefined, httpUrl.optional()),
  LINKEDIN_API_URL: z.preprocess(emptyToUndefined, httpUrl.optional()),
  LINKEDIN_VERSION: z.preprocess(
    emptyToUndefined,
    z.string().regex(/^20\d\d(0[1-9]|1[0-2])$/, "must be YYYYMM, like 202610").optional(),
  ),
  LINKEDIN_TOKEN_KEY: z.preprocess(
    emptyToUndefined,
    z.string().refine((v) => {
      try {
        return atob(v).length === 32;
      } catch {
        return false;
      }
    }, "must be the base64 of 32 random bytes (openssl rand -base64 32)").optional(),
  ),
  LINKEDIN_TIMEOUT_MS: z.preprocess(emptyToUndefined, positiveMs.optional()),
  LINKEDIN_EXPIRY_CHECK_MS: z.preprocess(emptyToUndefined, positiveMs.optional()),
  LINKEDIN_UPLOAD_TIMEOUT_MS: z.preprocess(emptyToUndefined, positiveMs.optional()),
  LINKEDIN_ORGANIZATIONS: z.preprocess(
    emptyToUndefined,
    z.enum(["true", "false"], { error: "must be true or false" }).optional(),
  ),
  POSTS_LIVE_TEXT_CHECK_MS: z.preprocess(emptyToUndefined, positiveMs.optional()),
  ATTACHMENT_URL_TTL_SECONDS: z.coerce.number().int().min(1).max(604_800).default(3600),
  ATTACHMENT_CLEANUP_MARGIN_SECONDS: z.coerce.number().int().min(0).max(604_800).default(300),
};

/** The posts service's settings; a malformed variable throws a ConfigError naming it. */
export function parsePostsConfig(
  env: Record<string, string | undefined>,
  base: BaseConfig,
): PostsConfig {
  const raw = parseEnv(linkedinEnvShape, env);
  return {
    base,
    delivery: parseDeliveryConfig(env, base),
    liveTextCheckMs: raw.POSTS_LIVE_TEXT_CHECK_MS ?? LIVE_TEXT_CHECK_MS,
    assets: parseAssetsUrl(env, base),
    uploadUrlTtl: raw.ATTACHMENT_URL_TTL_SECONDS,
    cleanupMargin: raw.ATTACHMENT_CLEANUP_MARGIN_SECONDS,
    linkedin: {
      clientId: raw.LINKEDIN_CLIENT_ID ?? null,
      clientSecret: raw.LINKEDIN_CLIENT_SECRET ?? "",
      authUrl: (raw.LINKEDIN_AUTH_URL ?? "https://www.linkedin.com/oauth/v2").replace(/\/+$/, ""),
      apiUrl: (raw.LINKEDIN_API_URL ?? "https://api.linkedin.com").replace(/\/+$/, ""),
      version: raw.LINKEDIN_VERSION ?? DEFAULT_LINKEDIN_VERSION,
      tokenKey: raw.LINKEDIN_TOKEN_KEY ?? null,
      timeoutMs: raw.LINKEDIN_TIMEOUT_MS ?? 30_000,
      expiryCheckMs: raw.LINKEDIN_EXPIRY_CHECK_MS ?? 3_600_000,
      uploadTimeoutMs: raw.LINKEDIN_UPLOAD_TIMEOUT_MS ?? 600_000,
      organizations: raw.LINKEDIN_ORGANIZATIONS === "true",
    },
  };
}
