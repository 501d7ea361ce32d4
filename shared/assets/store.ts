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

/** Types a browser would render with script or plugins: always downloaded, never shown. */
const DOWNLOAD_ONLY_TYPES = new Set(["image/svg+xml", "application/pdf"]);
const DOWNLOAD_ONLY_EXTENSIONS = new Set(["svg", "svgz", "pdf"]);

/**
 * The `Content-Disposition` an object is served with: `attachment` (with its file name) for SVG
 * and PDF, by key extension or stored type, so a browser saves rather than renders them (an
 * SVG or PDF can carry script); null for everything else, which is shown inline.
 */
export function downloadDisposition(key: string, contentType?: string | null): string | null {
  const name = key.split("/").pop() ?? key;
  const dot = name.lastIndexOf(".");
  const extension = dot >= 0 ? name.slice(dot + 1).toLowerCase() : "";
  const type = (contentType ?? "").split(";")[0].trim().toLowerCase();
  if (!DOWNLOAD_ONLY_EXTENSIONS.has(extension) && !DOWNLOAD_ONLY_TYPES.has(type)) return null;
  const ascii = name.replace(/[^\x20-\x7e]|["\\]/g, "_");
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeRfc3986(name)}`;
}
