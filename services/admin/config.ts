import { isLocalDataDir } from "../../shared/kv/kv.ts";
import { z } from "zod";
import { type BaseConfig, parseEnv } from "../../shared/config.ts";
import { type AssetsConfig, parseAssetsUrl } from "../../shared/assets/config.ts";

export interface AdminConfig {
  /** null when ASSETS_URL is empty: the backup routes answer 500 */
  assets: AssetsConfig | null;
  /** A restore refuses an archive whose entries decompress to more than this (zip bombs) */
  restoreMaxBytes: number;
  /** Where backup entries are spooled while the archive is written */
  tmpDir: string;
}

export const DEFAULT_RESTORE_MAX_BYTES = 2 * 1024 * 1024 * 1024;

export function parseAdminConfig(
  env: Record<string, string | undefined>,
  base: BaseConfig,
): AdminConfig {
  const raw = parseEnv({
    RESTORE_MAX_BYTES: z.coerce.number().int().min(1).default(DEFAULT_RESTORE_MAX_BYTES),
  }, env);
  return {
    assets: parseAssetsUrl(env, base),
    restoreMaxBytes: raw.RESTORE_MAX_BYTES,
    // Spooled archives: beside the data, or the system's temporary directory when the data is
    // not on this machine (Deno Deploy, KV Connect).
    tmpDir: isLocalDataDir(base.dataDir) ? `${base.dataDir}/tmp` : "/tmp/cps-admin",
  };
}
