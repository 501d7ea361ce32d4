/**
 * The asset store: where attachment files and backups live. Two drivers implement it, `file:`
 * (a directory, with presigned routes served by the gateway) and `s3:` (any S3-compatible
 * server, with SigV4 presigned URLs). Keys are `/`-separated paths such as
 * `workspaces/<ws>/actions/<id>/<file>` or `_backups/<timestamp>.zip`.
 */
export interface AssetObject {
  key: string;
  size: number;
}

export interface AssetBody {
  body: ReadableStream<Uint8Array>;
  size: number | null;
  contentType: string | null;
}

export interface AssetStore {
  readonly kind: "file" | "s3";
  /** A URL that accepts one `PUT` of the bytes with exactly this `Content-Type` until it expires. */
  presignPut(key: string, contentType: string, expiresIn: number): Promise<string>;
  /** A URL that answers `GET` with the object until it expires. */
  presignGet(key: string, expiresIn: number): Promise<string>;
  put(
    key: string,
    body: Uint8Array | ReadableStream<Uint8Array>,
    contentType: string,
  ): Promise<void>;
  /** The object's bytes, or null when there is no such object. */
  get(key: string): Promise<AssetBody | null>;
  exists(key: string): Promise<boolean>;
  /** Removes the object; removing an absent object is not an error. */
  delete(key: string): Promise<void>;
  /** Every object whose key starts with `prefix`, sorted by key. */
  list(prefix: string): Promise<AssetObject[]>;
}

/** Longest key accepted (S3's own limit). */
export const MAX_KEY_LENGTH = 1024;
/** Longest a presigned URL may live (S3's own limit: 7 days). */
export const MAX_EXPIRES_IN = 7 * 24 * 3600;

/**
 * Why `key` is not a usable asset key, or null when it is: no empty, `.` or `..` segment, no
 * leading or trailing `/`, no backslash or control character, no segment starting with `.`
 * at the top level (reserved for the file driver's own bookkeeping), at most 1024 bytes.
 */
export function keyProblem(key: string): string | null {
  if (key.length === 0) return "key is empty";
  if (new TextEncoder().encode(key).length > MAX_KEY_LENGTH) {
    return `key is longer than ${MAX_KEY_LENGTH} bytes`;
  }
  // deno-lint-ignore no-control-regex
  if (/[\u0000-\u001f\u007f\\]/.test(key)) return "key contains a control character or backslash";
  const segments = key.split("/");
  if (segments.some((s) => s === "" || s === "." || s === "..")) {
    return "key has an empty, '.' or '..' segment";
  }
  if (segments[0].startsWith(".")) return "key may not start with '.'";
  return null;
}

export function assertKey(key: string): void {
  const problem = keyProblem(key);
  if (problem) throw new RangeError(`Invalid asset key ${JSON.stringify(key)}: ${problem}`);
}

export function assertExpiresIn(expiresIn: number): void {
  if (!Number.isInteger(expiresIn) || expiresIn < 1 || expiresIn > MAX_EXPIRES_IN) {
    throw new RangeError(`expiresIn must be a whole number of seconds from 1 to ${MAX_EXPIRES_IN}`);
  }
}

/** A key as a URL path: each segment percent-encoded, the slashes kept. */
export function encodeKeyPath(key: string): string {
  return key.split("/").map(encodeRfc3986).join("/");
}

export function encodeRfc3986(s: string): string {
  return encodeURIComponent(s).replace(
    /[!'()*]/g,
    (c) => "%" + c.charCodeAt(0).toString(16).toUpperCase(),
  );
}

/** The one type each known extension is served with, whatever type it was stored with. */
const CANONICAL_TYPES: Record<string, string> = {
  png: "image/png",
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  gif: "image/gif",
  webp: "image/webp",
  svg: "image/svg+xml",
  svgz: "image/svg+xml",
  pdf: "application/pdf",
  zip: "application/zip",
};
/** Raster images: a browser only ever draws them, so they may be shown inline. */
const INLINE_TYPES = new Set(["image/png", "image/jpeg", "image/gif", "image/webp"]);

/** The lower-cased extension of the key's last segment ("" when it has none). */
export function extensionOf(key: string): string {
  const name = key.split("/").pop() ?? key;
  const dot = name.lastIndexOf(".");
  return dot >= 0 ? name.slice(dot + 1).toLowerCase() : "";
}

/** The canonical type of the key's extension, or null for an extension not listed. */
export function canonicalType(key: string): string | null {
  return CANONICAL_TYPES[extensionOf(key)] ?? null;
}

/**
 * The `Content-Type` and `Content-Disposition` an object is served with, from its key alone
 * (the type it was stored with is never trusted): the canonical type of its extension, `application/octet-stream` for any other; raster images
 * inline (disposition null), everything else `attachment` with its file name, so a browser
 * saves rather than renders it (an SVG, a PDF or an HTML file can carry script).
 */
export function servedAs(key: string): { contentType: string; disposition: string | null } {
  const contentType = canonicalType(key) ?? "application/octet-stream";
  if (INLINE_TYPES.has(contentType)) return { contentType, disposition: null };
  const name = key.split("/").pop() ?? key;
  const ascii = name.replace(/[^\x20-\x7e]|["\\]/g, "_");
  return {
    contentType,
    disposition: `attachment; filename="${ascii}"; filename*=UTF-8''${encodeRfc3986(name)}`,
  };
}
