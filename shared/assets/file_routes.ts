/**
 * The `file:` driver's presigned routes, served by the gateway with no JWT (the signature is
 * the credential):
 *
 * - `PUT /assets/<key>?expires=<unix seconds>&signature=<mac>` stores the body; the request's
 *   `Content-Type` must be the one signed. 200 with no body.
 * - `GET /assets/<key>?expires=...&signature=...` answers the object (404 when absent).
 *
 * An expired URL, a bad signature, or a PUT with another `Content-Type` is 403; a body over
 * 25 MiB is 413 (4 GiB for an imported backup, `_backups/upload-<timestamp>.zip`); a key that is malformed (`..`, empty segments) is 400 and never touches the disk.
 */
import { Hono } from "hono";
import type { BaseConfig } from "../config.ts";
import { errorMessage, type Logger } from "../log.ts";
import { parseAssetsUrl } from "./config.ts";
import { AssetTooLargeError, FILE_ROUTE_PREFIX, FileAssetStore } from "./file_store.ts";
import { UrlSigner } from "./signing.ts";
import { downloadDisposition, keyProblem } from "./store.ts";

export const MAX_UPLOAD_BYTES = 25 * 1024 * 1024;
/**
 * Imported backups (`_backups/upload-<timestamp>.zip`, the admin upload URL's key) may be as
 * large as an archive can be: the backup ZIP has no Zip64, so 4 GiB. They are streamed to disk.
 */
export const MAX_BACKUP_UPLOAD_BYTES = 0xffff_ffff;
const BACKUP_UPLOAD_KEY = /^_backups\/upload-[^/]+\.zip$/;

export interface FileRoutesOptions {
  store: FileAssetStore;
  logger: Logger;
  /** The limit of every upload but an imported backup's */
  maxBytes?: number;
  /** The limit of an imported backup's upload */
  backupMaxBytes?: number;
}

export function createFileAssetRoutes({
  store,
  logger,
  maxBytes: attachmentMaxBytes = MAX_UPLOAD_BYTES,
  backupMaxBytes = MAX_BACKUP_UPLOAD_BYTES,
}: FileRoutesOptions): Hono {
  const app = new Hono();

  app.put(`${FILE_ROUTE_PREFIX}*`, async (c) => {
    const checked = await checkUrl(c.req.raw, "PUT", store.signer);
    if ("error" in checked) return c.json({ error: checked.error }, checked.status);
    const maxBytes = BACKUP_UPLOAD_KEY.test(checked.key) ? backupMaxBytes : attachmentMaxBytes;
    const limitMiB = Math.round(maxBytes / 1024 / 1024);
    const declared = c.req.header("content-length");
    if (declared && Number(declared) > maxBytes) {
      await c.req.raw.body?.cancel();
      return c.json({ error: `Upload is larger than ${limitMiB} MiB` }, 413);
    }
    try {
      await store.putLimited(
        checked.key,
        c.req.raw.body ?? new Uint8Array(),
        checked.contentType,
        maxBytes,
      );
    } catch (err) {
      if (err instanceof AssetTooLargeError) {
        return c.json({ error: `Upload is larger than ${limitMiB} MiB` }, 413);
      }
      logger.error("asset upload failed", { key: checked.key, error: errorMessage(err) });
      return c.json({ error: "Internal server error" }, 500);
    }
    return c.body(null, 200);
  });

  app.get(`${FILE_ROUTE_PREFIX}*`, async (c) => {
    const checked = await checkUrl(c.req.raw, "GET", store.signer);
    if ("error" in checked) return c.json({ error: checked.error }, checked.status);
    const found = await store.get(checked.key);
    if (!found) return c.json({ error: "Asset not found" }, 404);
    const headers = new Headers({
      "content-type": found.contentType ?? "application/octet-stream",
      "cache-control": "private, max-age=0",
      "x-content-type-options": "nosniff",
      // Uploaded SVG or PDF must not run script on the API's origin.
      "content-security-policy": "default-src 'none'; style-src 'unsafe-inline'; sandbox",
    });
    if (found.size !== null) headers.set("content-length", String(found.size));
    const disposition = downloadDisposition(checked.key, found.contentType);
    if (disposition) headers.set("content-disposition", disposition);
    if (c.req.method === "HEAD") {
      await found.body.cancel();
      return new Response(null, { status: 200, headers });
    }
    return new Response(found.body, { status: 200, headers });
  });

  return app;
}

type Checked =
  | { key: string; contentType: string }
  | { error: string; status: 400 | 403 };

async function checkUrl(req: Request, method: "GET" | "PUT", signer: UrlSigner): Promise<Checked> {
  const url = new URL(req.url);
  let key: string;
  try {
    key = url.pathname.slice(FILE_ROUTE_PREFIX.length).split("/").map(decodeURIComponent).join(
      "/",
    );
  } catch {
    return { error: "Invalid asset key", status: 400 };
  }
  if (keyProblem(key)) return { error: "Invalid asset key", status: 400 };
  const expiresText = url.searchParams.get("expires") ?? "";
  const signature = url.searchParams.get("signature") ?? "";
  if (!/^\d{1,12}$/.test(expiresText) || !signature) {
    return { error: "Missing or malformed signature", status: 403 };
  }
  const expires = Number(expiresText);
  if (Date.now() / 1000 > expires) return { error: "URL has expired", status: 403 };
  const contentType = method === "PUT" ? (req.headers.get("content-type") ?? "").trim() : "";
  if (!await signer.verify(method, key, contentType, expires, signature)) {
    return {
      error: method === "PUT"
        ? "Signature does not match (check the Content-Type is the one requested)"
        : "Signature does not match",
      status: 403,
    };
  }
  return { key, contentType };
}

/**
 * The presigned routes for the gateway when ASSETS_URL is a `file:` store; undefined when it
 * is `s3:` (the bucket serves its own URLs) or empty. A malformed ASSETS_URL throws the
 * ConfigError synchronously, so `loadOrExit` can report it.
 */
export function fileAssetRoutesFromEnv(
  env: Record<string, string | undefined>,
  base: BaseConfig,
  logger: Logger,
): Promise<Hono | undefined> {
  const config = parseAssetsUrl(env, base);
  if (config?.kind !== "file") return Promise.resolve(undefined);
  return UrlSigner.fromSecret(config.signingSecret).then((signer) =>
    createFileAssetRoutes({
      store: new FileAssetStore(config.dir, config.publicUrl, signer),
      logger,
    })
  );
}
