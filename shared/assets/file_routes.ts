/**
 * The gateway's presigned asset routes, served with no JWT (the signature is the credential):
 *
 * - `PUT /assets/<key>?[upload=<id>&]expires=<unix seconds>&signature=<mac>` stores the body;
 *   the request's `Content-Type` must be the one signed (compared case-insensitively), and the
 *   object is stored with the signed type. 200 with no body. A URL with an upload id is
 *   single-use: the upload's owner must claim the id first (`claimUpload`), and its refusal is
 *   the answer (409 used already, 404 nothing to upload to any more, 403 uploader no longer a
 *   member). These URLs work whichever driver keeps the bytes.
 * - `GET /assets/<key>?expires=...&signature=...` answers the object (404 when absent), `file:`
 *   driver only, with the type and disposition `servedAs` gives its key, never the stored type.
 *
 * An expired URL, a bad signature, or a PUT with another `Content-Type` is 403; a body over
 * 25 MiB is 413 (4 GiB for an imported backup, `_backups/upload-<timestamp>.zip`); a key that is
 * malformed (`..`, empty segments) is 400 and never touches the disk.
 */
import { Hono } from "hono";
import type { BaseConfig } from "../config.ts";
import { AppError } from "../http/app_error.ts";
import { errorMessage, type Logger } from "../log.ts";
import { openAssetStore, parseAssetsUrl } from "./config.ts";
import { AssetTooLargeError, FILE_ROUTE_PREFIX, FileAssetStore } from "./file_store.ts";
import { UrlSigner } from "./signing.ts";
import { type AssetStore, keyProblem, servedAs } from "./store.ts";
import { type ClaimUpload, UPLOAD_ID } from "./upload_urls.ts";

export const MAX_UPLOAD_BYTES = 25 * 1024 * 1024;
/** A post's PDF document may be 100 MiB (its upload URL bounds it to the size declared). */
export const MAX_POST_MEDIA_BYTES = 100 * 1024 * 1024;
const POST_MEDIA_UPLOAD_KEY = /^workspaces\/[^/]+\/posts\/[^/]+\/media\//;
/**
 * Imported backups (`_backups/upload-<timestamp>.zip`, the admin upload URL's key) may be as
 * large as an archive can be: the backup ZIP has no Zip64, so 4 GiB. They are streamed to disk.
 */
export const MAX_BACKUP_UPLOAD_BYTES = 0xffff_ffff;
const BACKUP_UPLOAD_KEY = /^_backups\/upload-[^/]+\.zip$/;

export interface FileRoutesOptions {
  /** Where uploads go (and, for a `file:` store, what GET serves) */
  store: AssetStore;
  /** The URL signer; a `file:` store's own unless given */
  signer?: UrlSigner;
  logger: Logger;
  /** Claims a single-use upload URL's id from the upload's owner (none: such URLs are 503) */
  claimUpload?: ClaimUpload;
  /** The limit of every upload but an imported backup's */
  maxBytes?: number;
  /** The limit of an imported backup's upload */
  backupMaxBytes?: number;
}

export function createFileAssetRoutes({
  store,
  signer = store instanceof FileAssetStore ? store.signer : undefined,
  logger,
  claimUpload,
  maxBytes: attachmentMaxBytes = MAX_UPLOAD_BYTES,
  backupMaxBytes = MAX_BACKUP_UPLOAD_BYTES,
}: FileRoutesOptions): Hono {
  if (!signer) throw new Error("createFileAssetRoutes needs a signer for a store other than file:");
  const app = new Hono();

  app.put(`${FILE_ROUTE_PREFIX}*`, async (c) => {
    const checked = await checkUrl(c.req.raw, "PUT", signer);
    if ("error" in checked) {
      await c.req.raw.body?.cancel();
      return c.json({ error: checked.error }, checked.status);
    }
    let maxBytes = BACKUP_UPLOAD_KEY.test(checked.key)
      ? backupMaxBytes
      : POST_MEDIA_UPLOAD_KEY.test(checked.key)
      ? Math.max(attachmentMaxBytes, MAX_POST_MEDIA_BYTES)
      : attachmentMaxBytes;
    const declared = c.req.header("content-length");
    if (declared && Number(declared) > maxBytes) {
      await c.req.raw.body?.cancel();
      return c.json({ error: tooLarge(maxBytes) }, 413);
    }
    if (checked.upload) {
      const claimed = await claim(checked.key, checked.upload);
      if (claimed instanceof AppError) {
        await c.req.raw.body?.cancel();
        return c.json({ error: claimed.message }, claimed.status);
      }
      if (claimed) maxBytes = Math.min(maxBytes, claimed.maxBytes);
      if (declared && Number(declared) > maxBytes) {
        await c.req.raw.body?.cancel();
        return c.json({ error: tooLarge(maxBytes) }, 413);
      }
    }
    const body = c.req.raw.body ?? new Uint8Array();
    try {
      if (store instanceof FileAssetStore) {
        await store.putLimited(checked.key, body, checked.contentType, maxBytes);
      } else {
        await store.put(checked.key, limited(body, maxBytes), checked.contentType);
      }
    } catch (err) {
      if (err instanceof AssetTooLargeError) {
        return c.json({ error: tooLarge(maxBytes) }, 413);
      }
      logger.error("asset upload failed", { key: checked.key, error: errorMessage(err) });
      return c.json({ error: "Internal server error" }, 500);
    }
    return c.body(null, 200);
  });

  /** The owner's refusal of the upload, or (once it has claimed it) the bound it set. */
  async function claim(
    key: string,
    upload: string,
  ): Promise<AppError | { maxBytes: number } | null> {
    if (!claimUpload) return new AppError(503, "Uploads are not available");
    try {
      return (await claimUpload(key, upload)) ?? null;
    } catch (err) {
      if (err instanceof AppError) return err;
      logger.error("upload claim failed", { key, error: errorMessage(err) });
      return new AppError(503, "Uploads are not available");
    }
  }

  if (!(store instanceof FileAssetStore)) return app;

  app.get(`${FILE_ROUTE_PREFIX}*`, async (c) => {
    const checked = await checkUrl(c.req.raw, "GET", signer);
    if ("error" in checked) return c.json({ error: checked.error }, checked.status);
    const found = await store.get(checked.key);
    if (!found) return c.json({ error: "Asset not found" }, 404);
    const served = servedAs(checked.key);
    const headers = new Headers({
      "content-type": served.contentType,
      "cache-control": "private, max-age=0",
      "x-content-type-options": "nosniff",
      // Uploaded SVG or PDF must not run script on the API's origin.
      "content-security-policy": "default-src 'none'; style-src 'unsafe-inline'; sandbox",
    });
    if (found.size !== null) headers.set("content-length", String(found.size));
    if (served.disposition) headers.set("content-disposition", served.disposition);
    if (c.req.method === "HEAD") {
      await found.body.cancel();
      return new Response(null, { status: 200, headers });
    }
    return new Response(found.body, { status: 200, headers });
  });

  return app;
}

/** The 413 message for an upload over `maxBytes`. */
function tooLarge(maxBytes: number): string {
  return maxBytes >= 1024 * 1024 && maxBytes % (1024 * 1024) === 0
    ? `Upload is larger than ${maxBytes / 1024 / 1024} MiB`
    : `Upload is larger than the ${maxBytes} bytes requested`;
}

/** `body`, erroring with AssetTooLargeError once it grows past `maxBytes`. */
function limited(
  body: Uint8Array | ReadableStream<Uint8Array>,
  maxBytes: number,
): Uint8Array | ReadableStream<Uint8Array> {
  if (body instanceof Uint8Array) {
    if (body.length > maxBytes) throw new AssetTooLargeError(`body is over ${maxBytes} bytes`);
    return body;
  }
  let size = 0;
  return body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        size += chunk.byteLength;
        if (size > maxBytes) throw new AssetTooLargeError(`body is over ${maxBytes} bytes`);
        controller.enqueue(chunk);
      },
    }),
  );
}

type Checked =
  | { key: string; contentType: string; upload: string }
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
  const upload = url.searchParams.get("upload") ?? "";
  if (!/^\d{1,12}$/.test(expiresText) || !signature || (upload && !UPLOAD_ID.test(upload))) {
    return { error: "Missing or malformed signature", status: 403 };
  }
  const expires = Number(expiresText);
  if (Date.now() / 1000 > expires) return { error: "URL has expired", status: 403 };
  const contentType = method === "PUT"
    ? (req.headers.get("content-type") ?? "").trim().toLowerCase()
    : "";
  if (!await signer.verify(method, key, contentType, expires, signature, upload)) {
    return {
      error: method === "PUT"
        ? "Signature does not match (check the Content-Type is the one requested)"
        : "Signature does not match",
      status: 403,
    };
  }
  return { key, contentType, upload };
}

/**
 * The presigned routes for the gateway: uploads for either driver (the single-use upload URLs
 * are the gateway's whatever the store), downloads for a `file:` store (an `s3:` bucket serves
 * its own); undefined when ASSETS_URL is empty. A malformed ASSETS_URL throws the ConfigError
 * synchronously, so `loadOrExit` can report it.
 */
export function fileAssetRoutesFromEnv(
  env: Record<string, string | undefined>,
  base: BaseConfig,
  logger: Logger,
  claimUpload?: ClaimUpload,
): Promise<Hono | undefined> {
  const config = parseAssetsUrl(env, base);
  if (!config) return Promise.resolve(undefined);
  return Promise.all([openAssetStore(config), UrlSigner.fromSecret(config.signingSecret)]).then((
    [store, signer],
  ) => createFileAssetRoutes({ store, signer, logger, claimUpload }));
}
