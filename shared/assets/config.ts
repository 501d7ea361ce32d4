import { type BaseConfig, ConfigError } from "../config.ts";
import { FileAssetStore } from "./file_store.ts";
import { S3AssetStore, s3BucketUrl } from "./s3_store.ts";
import { UrlSigner } from "./signing.ts";
import type { AssetStore } from "./store.ts";

/**
 * Where assets live, from `ASSETS_URL`, and how the gateway's presigned
 * URLs are signed (`signingSecret`) and where they point (`publicUrl`): every URL of the `file:`
 * driver, and the single-use upload URLs of either driver.
 */
export type AssetsConfig =
  & { signingSecret: string; publicUrl: string }
  & (
    | { kind: "file"; dir: string }
    | {
      kind: "s3";
      bucket: string;
      endpoint?: string;
      region: string;
      accessKeyId: string;
      secretAccessKey: string;
      sessionToken?: string;
    }
  );

const bad = (why: string) => new ConfigError(`Invalid environment variable ASSETS_URL: ${why}`);

/**
 * Reads `ASSETS_URL`: unset means `file:$DATA_DIR/assets`; the empty string means "not
 * configured" (null: attachment and backup routes answer 500); `file:<dir>` or
 * `s3://<bucket>?endpoint=<url>&region=<r>` with AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY.
 * Anything else is a ConfigError naming the variable. The gateway's URL signing key is
 * ASSETS_SIGNING_KEY, or else derived from INTERNAL_SECRET, so the gateway and the services of
 * one deployment agree.
 */
export function parseAssetsUrl(
  env: Record<string, string | undefined>,
  base: BaseConfig,
): AssetsConfig | null {
  const raw = env.ASSETS_URL ?? `file:${base.dataDir}/assets`;
  if (raw.trim() === "") return null;
  const key = env.ASSETS_SIGNING_KEY;
  if (key !== undefined && key !== "" && key.length < 16) {
    throw new ConfigError(
      "Invalid environment variable ASSETS_SIGNING_KEY: must be 16 characters or more",
    );
  }
  const signing = { signingSecret: key || base.internalSecret, publicUrl: base.publicUrl };
  if (raw.startsWith("file:")) {
    let dir: string;
    if (raw.startsWith("file://")) {
      try {
        dir = decodeURIComponent(new URL(raw).pathname);
      } catch {
        throw bad("not a valid file: URL");
      }
    } else {
      dir = raw.slice("file:".length);
    }
    if (!dir) throw bad("file: needs a directory");
    return { kind: "file", dir, ...signing };
  }
  if (raw.startsWith("s3://")) {
    const { bucket, endpoint, region } = parseS3Location(raw);
    const accessKeyId = env.AWS_ACCESS_KEY_ID;
    const secretAccessKey = env.AWS_SECRET_ACCESS_KEY;
    if (!accessKeyId) {
      throw new ConfigError("Invalid environment variable AWS_ACCESS_KEY_ID: required for s3://");
    }
    if (!secretAccessKey) {
      throw new ConfigError(
        "Invalid environment variable AWS_SECRET_ACCESS_KEY: required for s3://",
      );
    }
    return {
      kind: "s3",
      ...signing,
      bucket,
      endpoint,
      region,
      accessKeyId,
      secretAccessKey,
      sessionToken: env.AWS_SESSION_TOKEN || undefined,
    };
  }
  throw bad("must be file:<dir>, s3://<bucket>?endpoint=<url>&region=<r>, or empty");
}

/** Where an `s3://` ASSETS_URL points: its bucket, endpoint (no trailing slash) and region. */
function parseS3Location(raw: string): { bucket: string; endpoint?: string; region: string } {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw bad("not a valid s3:// URL");
  }
  const bucket = decodeURIComponent(url.hostname || url.host);
  if (!/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(bucket)) {
    throw bad("the bucket name is missing or not a valid bucket name");
  }
  if (url.pathname && url.pathname !== "/") throw bad("s3:// takes a bucket, not a path");
  const endpoint = url.searchParams.get("endpoint") ?? undefined;
  if (endpoint !== undefined) {
    let ok = false;
    try {
      ok = /^https?:$/.test(new URL(endpoint).protocol);
    } catch { /* reported below */ }
    if (!ok) throw bad("endpoint must be an http(s) URL");
  }
  const region = url.searchParams.get("region") || "us-east-1";
  return { bucket, endpoint: endpoint?.replace(/\/+$/, ""), region };
}

/**
 * The origin an asset's download URL is on when it is not the deployment's own: the bucket's,
 * for an `s3://` ASSETS_URL (the web page's `img-src` must allow it to show pictures); null for
 * the `file:` store (its URLs are under PUBLIC_URL) or none. Reads ASSETS_URL only, so an app
 * that never touches the bucket (the web app) needs no credentials.
 */
export function assetsDownloadOrigin(env: Record<string, string | undefined>): string | null {
  const raw = env.ASSETS_URL;
  if (raw === undefined || !raw.startsWith("s3://")) return null;
  return new URL(s3BucketUrl(parseS3Location(raw))).origin;
}

/** The store a config describes. */
export async function openAssetStore(config: AssetsConfig): Promise<AssetStore> {
  if (config.kind === "file") {
    return new FileAssetStore(
      config.dir,
      config.publicUrl,
      await UrlSigner.fromSecret(config.signingSecret),
    );
  }
  return new S3AssetStore(config);
}

/** `parseAssetsUrl` then `openAssetStore`; null when ASSETS_URL is empty. */
export async function assetStoreFromEnv(
  env: Record<string, string | undefined>,
  base: BaseConfig,
): Promise<AssetStore | null> {
  const config = parseAssetsUrl(env, base);
  return config ? await openAssetStore(config) : null;
}
