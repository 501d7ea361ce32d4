import { AwsClient } from "aws4fetch";
import {
  assertExpiresIn,
  assertKey,
  type AssetBody,
  type AssetObject,
  type AssetStore,
  encodeKeyPath,
  encodeRfc3986,
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
    const { endpoint, bucket, region } = this.options;
    if (endpoint) return `${endpoint.replace(/\/+$/, "")}/${encodeRfc3986(bucket)}`;
    if (region === "us-east-1") return `https://${bucket}.s3.amazonaws.com`;
    return `https://${bucket}.s3.${region}.amazonaws.com`;
  }

  objectUrl(key: string): string {
    assertKey(key);
    return `${this.bucketUrl}/${encodeKeyPath(key)}`;
  }

  async presignPut(key: string, contentType: string, expiresIn: number): Promise<string> {
    return await this.presign("PUT", key, expiresIn, { "content-type": contentType });
  }

  async presignGet(key: string, expiresIn: number): Promise<string> {
    return await this.presign("GET", key, expiresIn, {});
  }

  private async presign(
    method: string,
    key: string,
    expiresIn: number,
    headers: Record<string, string>,
  ): Promise<string> {
    assertExpiresIn(expiresIn);
    const url = new URL(this.objectUrl(key));
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

  async put(
    key: string,
    body: Uint8Array | ReadableStream<Uint8Array>,
    contentType: string,
  ): Promise<void> {
    // S3 needs a Content-Length on PUT, so a stream is read whole first.
    const bytes = body instanceof Uint8Array ? body : await new Response(body).bytes();
    const res = await this.#client.fetch(this.objectUrl(key), {
      method: "PUT",
      body: bytes as Uint8Array<ArrayBuffer>,
      headers: { "content-type": contentType, "x-amz-content-sha256": "UNSIGNED-PAYLOAD" },
    });
    await expectOk(res, `PUT ${key}`);
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
