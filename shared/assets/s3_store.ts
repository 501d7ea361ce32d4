import { AwsClient } from "aws4fetch";
import {
  assertExpiresIn,
  assertKey,
  type AssetBody,
  type AssetObject,
  type AssetStore,
  encodeKeyPath,
  encodeRfc3986,
  servedAs,
} from "./store.ts";

export interface S3Options {
  bucket: string;
  /** An S3-compatible server (path-style addressing); absent means AWS itself. */
  endpoint?: string;
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
  /** The signing clock; tests pin it to reproduce AWS's published examples. */
  now?: () => Date;
  /** Size of the parts a streamed put is sent in (S3's minimum, 5 MiB, unless set) */
  partBytes?: number;
}

/**
 * A bucket's base URL, without a trailing slash: path-style under an S3-compatible endpoint,
 * else AWS's virtual-hosted style. Its presigned download URLs are on this URL's origin.
 */
export function s3BucketUrl(
  { endpoint, bucket, region }: Pick<S3Options, "endpoint" | "bucket" | "region">,
): string {
  if (endpoint) return `${endpoint.replace(/\/+$/, "")}/${encodeRfc3986(bucket)}`;
  if (region === "us-east-1") return `https://${bucket}.s3.amazonaws.com`;
  return `https://${bucket}.s3.${region}.amazonaws.com`;
}

/** S3's smallest part but the last, and most parts in one multipart upload. */
export const MIN_PART_BYTES = 5 * 1024 * 1024;
const MAX_PARTS = 10_000;

/**
 * Reads a stream in parts of `size` bytes into one reused buffer: each `next()` answers a view
 * that is valid until the following call; `full` says whether it filled the buffer, `done`
 * whether the stream has ended.
 */
class PartReader {
  readonly #reader: ReadableStreamDefaultReader<Uint8Array>;
  readonly #buffer: Uint8Array;
  #rest: Uint8Array | null = null;
  done = false;
  full = false;

  constructor(stream: ReadableStream<Uint8Array>, size: number) {
    this.#reader = stream.getReader();
    this.#buffer = new Uint8Array(size);
  }

  async next(): Promise<Uint8Array> {
    let length = 0;
    while (length < this.#buffer.length) {
      let chunk = this.#rest;
      this.#rest = null;
      if (!chunk) {
        const read = await this.#reader.read();
        if (read.done) {
          this.done = true;
          break;
        }
        chunk = read.value;
      }
      const room = this.#buffer.length - length;
      if (chunk.length > room) this.#rest = chunk.subarray(room);
      this.#buffer.set(chunk.subarray(0, room), length);
      length += Math.min(room, chunk.length);
    }
    this.full = length === this.#buffer.length;
    return this.#buffer.subarray(0, length);
  }

  async cancel(): Promise<void> {
    if (!this.done) await this.#reader.cancel().catch(() => {});
    this.#reader.releaseLock();
  }
}

/**
 * The `s3:` driver: SigV4-signed requests (aws4fetch) to AWS S3 or any S3-compatible server.
 * Presigned URLs are query-signed; a presigned PUT signs `Content-Type`, so an upload with
 * another type is refused by the server.
 */
export class S3AssetStore implements AssetStore {
  readonly kind = "s3";
  readonly #client: AwsClient;

  constructor(private readonly options: S3Options) {
    this.#client = new AwsClient({
      accessKeyId: options.accessKeyId,
      secretAccessKey: options.secretAccessKey,
      sessionToken: options.sessionToken,
      service: "s3",
      region: options.region,
      retries: 2,
    });
  }

  /** The bucket's base URL, without a trailing slash. */
  get bucketUrl(): string {
    return s3BucketUrl(this.options);
  }

  objectUrl(key: string): string {
    assertKey(key);
    return `${this.bucketUrl}/${encodeKeyPath(key)}`;
  }

  async presignPut(key: string, contentType: string, expiresIn: number): Promise<string> {
    return await this.presignUrl("PUT", key, expiresIn, { "content-type": contentType });
  }

  /**
   * The object is answered with the type and disposition `servedAs` gives its key, signed into
   * the URL (`response-content-type`, `response-content-disposition`), whatever type it was
   * stored with: raster images inline with their canonical type, everything else downloaded.
   */
  async presignGet(key: string, expiresIn: number): Promise<string> {
    const { contentType, disposition } = servedAs(key);
    const query: Record<string, string> = { "response-content-type": contentType };
    if (disposition) query["response-content-disposition"] = disposition;
    return await this.presignUrl("GET", key, expiresIn, {}, query);
  }

  /** A query-signed URL of `method` on the object, signing `headers` and `query` too. */
  async presignUrl(
    method: string,
    key: string,
    expiresIn: number,
    headers: Record<string, string>,
    query: Record<string, string> = {},
  ): Promise<string> {
    assertExpiresIn(expiresIn);
    const url = new URL(this.objectUrl(key));
    for (const [name, value] of Object.entries(query)) url.searchParams.set(name, value);
    url.searchParams.set("X-Amz-Expires", String(expiresIn));
    const signed = await this.#client.sign(url.toString(), {
      method,
      headers,
      aws: {
        signQuery: true,
        allHeaders: true,
        datetime: amzDate(this.options.now?.() ?? new Date()),
      },
    });
    return signed.url;
  }

  /**
   * Stores `body` without holding it whole: bytes go up in one PUT; a stream is read into one
   * part-sized buffer, and goes up in one PUT when it fits in it, else as a multipart upload
   * (aborted on failure, so no parts are left behind). Not a temp file and one PUT: Deno's
   * fetch sends a streamed body chunked, without the Content-Length S3 requires.
   */
  async put(
    key: string,
    body: Uint8Array | ReadableStream<Uint8Array>,
    contentType: string,
  ): Promise<void> {
    if (body instanceof Uint8Array) return await this.#putBytes(key, body, contentType);
    const parts = new PartReader(body, this.options.partBytes ?? MIN_PART_BYTES);
    try {
      const first = await parts.next();
      if (!parts.full) return await this.#putBytes(key, first, contentType);
      await this.#multipart(key, contentType, first, parts);
    } finally {
      await parts.cancel();
    }
  }

  async #putBytes(key: string, bytes: Uint8Array, contentType: string): Promise<void> {
    const res = await this.#client.fetch(this.objectUrl(key), {
      method: "PUT",
      body: bytes as Uint8Array<ArrayBuffer>,
      headers: { "content-type": contentType, "x-amz-content-sha256": "UNSIGNED-PAYLOAD" },
    });
    await expectOk(res, `PUT ${key}`);
  }

  async #multipart(key: string, contentType: string, first: Uint8Array, parts: PartReader) {
    const url = this.objectUrl(key);
    const created = await this.#client.fetch(`${url}?uploads`, {
      method: "POST",
      headers: { "content-type": contentType },
    });
    if (!created.ok) return await failed(created, `create multipart upload of ${key}`);
    const uploadId = tag(await created.text(), "UploadId");
    if (!uploadId) throw new Error(`S3 create multipart upload of ${key} answered no UploadId`);
    const upload = `uploadId=${encodeRfc3986(uploadId)}`;
    try {
      const etags: string[] = [];
      for (
        let bytes: Uint8Array | null = first;
        bytes;
        bytes = parts.done ? null : await parts.next()
      ) {
        if (bytes.length === 0 && etags.length > 0) break;
        const number = etags.length + 1;
        if (number > MAX_PARTS) throw new Error(`S3 PUT ${key}: more than ${MAX_PARTS} parts`);
        const res = await this.#client.fetch(`${url}?partNumber=${number}&${upload}`, {
          method: "PUT",
          body: bytes as Uint8Array<ArrayBuffer>,
          headers: { "x-amz-content-sha256": "UNSIGNED-PAYLOAD" },
        });
        if (!res.ok) return await failed(res, `upload part ${number} of ${key}`);
        await res.body?.cancel();
        const etag = res.headers.get("etag");
        if (!etag) throw new Error(`S3 upload part ${number} of ${key} answered no ETag`);
        etags.push(etag);
      }
      const xml = "<CompleteMultipartUpload>" +
        etags.map((etag, i) =>
          `<Part><PartNumber>${i + 1}</PartNumber><ETag>${escapeXml(etag)}</ETag></Part>`
        ).join("") + "</CompleteMultipartUpload>";
      const done = await this.#client.fetch(`${url}?${upload}`, {
        method: "POST",
        body: xml,
        headers: { "content-type": "application/xml" },
      });
      // S3 may answer 200 with an error in the body once the parts are being joined.
      const text = done.ok ? await done.text() : "";
      if (!done.ok || text.includes("<Error>")) {
        if (!done.ok) return await failed(done, `complete multipart upload of ${key}`);
        throw new Error(`S3 complete multipart upload of ${key} failed: ${text.slice(0, 200)}`);
      }
    } catch (err) {
      const res = await this.#client.fetch(`${url}?${upload}`, { method: "DELETE" })
        .catch(() => null);
      await res?.body?.cancel();
      throw err;
    }
  }

  async get(key: string): Promise<AssetBody | null> {
    const res = await this.#client.fetch(this.objectUrl(key), { method: "GET" });
    if (res.status === 404) {
      await res.body?.cancel();
      return null;
    }
    if (!res.ok || !res.body) return await failed(res, `GET ${key}`);
    const length = res.headers.get("content-length");
    return {
      body: res.body,
      size: length === null ? null : Number(length),
      contentType: res.headers.get("content-type"),
    };
  }

  async exists(key: string): Promise<boolean> {
    const res = await this.#client.fetch(this.objectUrl(key), { method: "HEAD" });
    await res.body?.cancel();
    if (res.status === 404) return false;
    if (!res.ok) return await failed(res, `HEAD ${key}`);
    return true;
  }

  async delete(key: string): Promise<void> {
    const res = await this.#client.fetch(this.objectUrl(key), { method: "DELETE" });
    if (res.status === 404) {
      await res.body?.cancel();
      return;
    }
    await expectOk(res, `DELETE ${key}`);
  }

  async list(prefix: string): Promise<AssetObject[]> {
    const out: AssetObject[] = [];
    let token: string | null = null;
    do {
      const url = new URL(`${this.bucketUrl}/`);
      url.searchParams.set("list-type", "2");
      url.searchParams.set("prefix", prefix);
      if (token) url.searchParams.set("continuation-token", token);
      const res = await this.#client.fetch(url.toString(), { method: "GET" });
      if (!res.ok) return await failed(res, `list ${prefix}`);
      const page = parseListObjectsV2(await res.text());
      out.push(...page.objects);
      token = page.truncated ? page.nextToken : null;
    } while (token);
    return out.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  }
}

/** `20130524T000000Z`, the form SigV4 signs. */
function amzDate(date: Date): string {
  return date.toISOString().replace(/[:-]|\.\d{3}/g, "");
}

/** The objects and continuation of one ListObjectsV2 answer. */
export function parseListObjectsV2(xml: string): {
  objects: AssetObject[];
  truncated: boolean;
  nextToken: string | null;
} {
  const objects: AssetObject[] = [];
  for (const match of xml.matchAll(/<Contents>([\s\S]*?)<\/Contents>/g)) {
    const key = tag(match[1], "Key");
    const size = tag(match[1], "Size");
    if (key !== null) objects.push({ key, size: Number(size ?? 0) });
  }
  return {
    objects,
    truncated: tag(xml, "IsTruncated") === "true",
    nextToken: tag(xml, "NextContinuationToken"),
  };
}

function tag(xml: string, name: string): string | null {
  const match = new RegExp(`<${name}>([\\s\\S]*?)</${name}>`).exec(xml);
  return match ? decodeXml(match[1]) : null;
}

function escapeXml(s: string): string {
  return s.replace(/[<>&]/g, (c) => ({ "<": "&lt;", ">": "&gt;", "&": "&amp;" })[c]!);
}

function decodeXml(s: string): string {
  return s.replace(/&(#x[0-9a-fA-F]+|#\d+|lt|gt|amp|quot|apos);/g, (_, e: string) => {
    if (e.startsWith("#x")) return String.fromCodePoint(parseInt(e.slice(2), 16));
    if (e.startsWith("#")) return String.fromCodePoint(parseInt(e.slice(1), 10));
    return { lt: "<", gt: ">", amp: "&", quot: '"', apos: "'" }[e]!;
  });
}

async function expectOk(res: Response, what: string): Promise<void> {
  if (!res.ok) await failed(res, what);
  await res.body?.cancel();
}

async function failed(res: Response, what: string): Promise<never> {
  const text = await res.text().catch(() => "");
  throw new Error(`S3 ${what} answered ${res.status}: ${text.slice(0, 200)}`);
}
