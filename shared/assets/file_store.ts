import { dirname, join } from "node:path";
import {
  assertExpiresIn,
  assertKey,
  type AssetBody,
  type AssetObject,
  type AssetStore,
  encodeKeyPath,
} from "./store.ts";
import type { UrlSigner } from "./signing.ts";
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from "../kv/kv.ts";

/** Raised by `putLimited` when a body grows past its limit; nothing is stored. */
export class AssetTooLargeError extends Error {}

/** Where the presigned routes live under the public URL (served by the gateway). */
export const FILE_ROUTE_PREFIX = "/assets/";

/**
 * The `file:` driver: object `<key>` is the file `<dir>/<key>`, its content type is kept in
 * `<dir>/.meta/<key>.json`, and writes go through `<dir>/.tmp` and a rename so a reader never
 * sees half a file. Keys are validated (see `keyProblem`), so none can leave `dir`.
 * Presigned URLs point at the gateway: `<publicUrl>/assets/<key>?expires=<unix>&signature=<mac>`.
 */
export class FileAssetStore implements AssetStore {
  readonly kind = "file";

  constructor(
    readonly dir: string,
    private readonly publicUrl: string,
    readonly signer: UrlSigner,
  ) {}

  /** The type is signed lower-cased (media types are case-insensitive; the route compares so). */
  async presignPut(key: string, contentType: string, expiresIn: number): Promise<string> {
    return await this.presign("PUT", key, contentType.trim().toLowerCase(), expiresIn);
  }

  async presignGet(key: string, expiresIn: number): Promise<string> {
    return await this.presign("GET", key, "", expiresIn);
  }

  private async presign(method: "GET" | "PUT", key: string, contentType: string, ttl: number) {
    assertKey(key);
    assertExpiresIn(ttl);
    const expires = Math.floor(Date.now() / 1000) + ttl;
    const signature = await this.signer.sign(method, key, contentType, expires);
    return `${this.publicUrl}${FILE_ROUTE_PREFIX}${encodeKeyPath(key)}?expires=${expires}` +
      `&signature=${signature}`;
  }

  async put(
    key: string,
    body: Uint8Array | ReadableStream<Uint8Array>,
    contentType: string,
  ): Promise<void> {
    await this.putLimited(key, body, contentType, Infinity);
  }

  /** Stores `body`, failing with AssetTooLargeError (and storing nothing) past `maxBytes`. */
  async putLimited(
    key: string,
    body: Uint8Array | ReadableStream<Uint8Array>,
    contentType: string,
    maxBytes: number,
  ): Promise<number> {
    assertKey(key);
    const tmpDir = join(this.dir, ".tmp");
    await Deno.mkdir(tmpDir, { recursive: true, mode: PRIVATE_DIR_MODE });
    const tmp = join(tmpDir, crypto.randomUUID());
    let size = 0;
    try {
      const file = await Deno.open(tmp, {
        write: true,
        createNew: true,
        mode: PRIVATE_FILE_MODE,
      });
      const stream = body instanceof Uint8Array ? ReadableStream.from([body]) : body;
      const byob = byobReader(stream);
      if (byob) {
        // A byte stream is read into one reused buffer: nothing allocated per chunk.
        try {
          size = await writeFromByob(byob, file, maxBytes);
        } finally {
          file.close();
        }
      } else {
        await stream.pipeThrough(
          new TransformStream<Uint8Array, Uint8Array>({
            transform(chunk, controller) {
              size += chunk.byteLength;
              if (size > maxBytes) throw new AssetTooLargeError(`body is over ${maxBytes} bytes`);
              controller.enqueue(chunk);
            },
          }),
        ).pipeTo(file.writable);
      }
      const target = this.path(key);
      const meta = this.metaPath(key);
      await Deno.mkdir(dirname(target), { recursive: true, mode: PRIVATE_DIR_MODE });
      await Deno.mkdir(dirname(meta), { recursive: true, mode: PRIVATE_DIR_MODE });
      await Deno.writeTextFile(meta, JSON.stringify({ content_type: contentType }), {
        mode: PRIVATE_FILE_MODE,
      });
      await Deno.rename(tmp, target);
      return size;
    } catch (err) {
      await Deno.remove(tmp).catch(() => {});
      throw err;
    }
  }

  async get(key: string): Promise<AssetBody | null> {
    assertKey(key);
    let file: Deno.FsFile;
    try {
      file = await Deno.open(this.path(key), { read: true });
    } catch (err) {
      if (err instanceof Deno.errors.NotFound || err instanceof Deno.errors.IsADirectory) {
        return null;
      }
      throw err;
    }
    const info = await file.stat();
    if (!info.isFile) {
      file.close();
      return null;
    }
    let contentType: string | null = null;
    try {
      contentType = JSON.parse(await Deno.readTextFile(this.metaPath(key))).content_type ?? null;
    } catch { /* no metadata: served without a type */ }
    return { body: file.readable, size: info.size, contentType };
  }

  async exists(key: string): Promise<boolean> {
    assertKey(key);
    try {
      return (await Deno.stat(this.path(key))).isFile;
    } catch (err) {
      if (err instanceof Deno.errors.NotFound) return false;
      throw err;
    }
  }

  async delete(key: string): Promise<void> {
    assertKey(key);
    for (const path of [this.path(key), this.metaPath(key)]) {
      try {
        await Deno.remove(path);
      } catch (err) {
        if (!(err instanceof Deno.errors.NotFound)) throw err;
      }
    }
  }

  async list(prefix: string): Promise<AssetObject[]> {
    // Start from the deepest directory the prefix names, then filter by the full prefix.
    const slash = prefix.lastIndexOf("/");
    const startDir = slash >= 0 ? prefix.slice(0, slash) : "";
    if (startDir && startDir.split("/").some((s) => s === "" || s === "." || s === "..")) {
      return [];
    }
    const out: AssetObject[] = [];
    const walk = async (rel: string): Promise<void> => {
      let entries: Deno.DirEntry[];
      try {
        entries = await Array.fromAsync(Deno.readDir(rel ? join(this.dir, rel) : this.dir));
      } catch (err) {
        if (err instanceof Deno.errors.NotFound || err instanceof Deno.errors.NotADirectory) {
          return;
        }
        throw err;
      }
      for (const entry of entries) {
        if (!rel && entry.name.startsWith(".")) continue;
        const key = rel ? `${rel}/${entry.name}` : entry.name;
        if (entry.isDirectory) {
          if (key.startsWith(prefix) || prefix.startsWith(key + "/")) await walk(key);
        } else if (entry.isFile && key.startsWith(prefix)) {
          const info = await Deno.stat(join(this.dir, key));
          out.push({ key, size: info.size });
        }
      }
    };
    await walk(startDir);
    return out.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  }

  private path(key: string): string {
    return join(this.dir, ...key.split("/"));
  }

  private metaPath(key: string): string {
    return join(this.dir, ".meta", ...key.split("/")) + ".json";
  }
}

function byobReader(stream: ReadableStream<Uint8Array>): ReadableStreamBYOBReader | null {
  try {
    return stream.getReader({ mode: "byob" });
  } catch {
    return null; // not a byte stream
  }
}

/** Reads `reader` into one reused buffer and writes every byte to `file`; answers the size. */
async function writeFromByob(
  reader: ReadableStreamBYOBReader,
  file: Deno.FsFile,
  maxBytes: number,
): Promise<number> {
  let buf = new Uint8Array(64 * 1024);
  let size = 0;
  try {
    for (;;) {
      const { value, done } = await reader.read(buf);
      if (done || !value) break;
      size += value.length;
      if (size > maxBytes) throw new AssetTooLargeError(`body is over ${maxBytes} bytes`);
      for (let at = 0; at < value.length;) at += await file.write(value.subarray(at));
      buf = new Uint8Array(value.buffer);
    }
  } catch (err) {
    await reader.cancel(err).catch(() => {});
    throw err;
  } finally {
    reader.releaseLock();
  }
  return size;
}
