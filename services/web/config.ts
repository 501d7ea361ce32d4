import { z } from "zod";
import type { BaseConfig } from "../../shared/config.ts";
import { emptyToUndefined, parseEnv } from "../../shared/config.ts";
import { assetsDownloadOrigin } from "../../shared/assets/config.ts";

/** Where `deno task web:build` writes the bundle, beside this file. */
export const DEFAULT_DIST_DIR = new URL("./dist/", import.meta.url).pathname;

export const webEnvShape = {
  WEB_DIST_DIR: z.preprocess(emptyToUndefined, z.string().min(1).optional()),
  RECAPTCHA_SITE_KEY: z.preprocess(emptyToUndefined, z.string().min(1).max(200).optional()),
};

export interface WebConfig {
  base: BaseConfig;
  /** The hosted login client the app signs in with (handed to the page in a meta tag). */
  oauthClientId: string;
  /** The built bundle: `index.html` and `static/`. */
  distDir: string;
  /**
   * Google reCAPTCHA v3 site key for the signup screen (handed to the page in a meta tag);
   * null: the app sends a placeholder token, which the server accepts when RECAPTCHA_SECRET
   * is unset.
   */
  recaptchaSiteKey: string | null;
  /**
   * The S3 bucket's origin when ASSETS_URL is `s3://` (media download URLs are presigned there,
   * so the page's `img-src` allows it); null with the `file:` store, whose URLs are our own.
   */
  assetsOrigin: string | null;
}

export function parseWebConfig(
  env: Record<string, string | undefined>,
  base: BaseConfig,
): WebConfig {
  const raw = parseEnv(webEnvShape, env);
  return {
    base,
    oauthClientId: base.oauthClientId,
    distDir: (raw.WEB_DIST_DIR ?? DEFAULT_DIST_DIR).replace(/\/+$/, ""),
    recaptchaSiteKey: raw.RECAPTCHA_SITE_KEY ?? null,
    assetsOrigin: assetsDownloadOrigin(env),
  };
}
