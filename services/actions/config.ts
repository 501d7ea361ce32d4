import { z } from "zod";
import { type BaseConfig, parseEnv } from "../../shared/config.ts";
import { type AssetsConfig, parseAssetsUrl } from "../../shared/assets/config.ts";
import { type DeliveryConfig, parseDeliveryConfig } from "../../shared/delivery/mod.ts";

export interface ActionsConfig {
  /** `PUBLIC_URL`: DMs link to the web app's deep links under it */
  publicUrl: string;
  /** null when ASSETS_URL is empty: the attachment routes answer 500 */
  assets: AssetsConfig | null;
  delivery: DeliveryConfig;
  /** Lifetime of an upload URL (`expiresIn`), seconds; 3600 unless ATTACHMENT_URL_TTL_SECONDS */
  uploadUrlTtl: number;
  /** How long after an upload URL expired an entry whose upload never arrived is removed */
  cleanupMargin: number;
}

const seconds = (fallback: number) => z.coerce.number().int().min(0).max(604_800).default(fallback);

export function parseActionsConfig(
  env: Record<string, string | undefined>,
  base: BaseConfig,
): ActionsConfig {
  const raw = parseEnv({
    ATTACHMENT_URL_TTL_SECONDS: seconds(3600).refine((v) => v >= 1, "must be at least 1"),
    ATTACHMENT_CLEANUP_MARGIN_SECONDS: seconds(300),
  }, env);
  return {
    publicUrl: base.publicUrl,
    assets: parseAssetsUrl(env, base),
    delivery: parseDeliveryConfig(env, base),
    uploadUrlTtl: raw.ATTACHMENT_URL_TTL_SECONDS,
    cleanupMargin: raw.ATTACHMENT_CLEANUP_MARGIN_SECONDS,
  };
}
