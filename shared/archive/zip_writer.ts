/**
 * Streamed ZIP writing for backups.
 *
 * Writing: fflate's streaming `Zip` always puts sizes in a data descriptor after the data, and
 * a streaming reader can then only find the end of an entry by searching for the descriptor's
 * signature, which random (compressed) bytes contain by chance about once in 4 GiB. So each
 * entry is first spooled to a temporary file (deflated by the platform's native
 * `CompressionStream`, or stored), and then written with its CRC and sizes in the local header:
 * the archive is a plain ZIP every tool reads, and a streamed read of it is exact. Memory stays
 * at a few chunks.
 */
import { crc32 } from "node:zlib";
import {
  CENTRAL_HEADER,
  CHUNK,
  END_OF_CENTRAL,
  lentChunks,
  LOCAL_HEADER,
  MAX_ENTRIES,
  MAX_U32,
  UTF8_FLAG,
  ZipLimitError,
} from "./zip_format.ts";

interface WrittenEntry {
  name: Uint8Array;
  method: number;
  crc: number;
  compressedSize: number;
  size: number;
  offset: number;
  time: number;
  date: number;
}

function dosDateTime(d: Date): { time: number; date: number } {
  const year = Math.min(Math.max(d.getUTCFullYear(), 1980), 2107);
  return {
    time: (d.getUTCHours() << 11) | (d.getUTCMinutes() << 5) | (d.getUTCSeconds() >> 1),
    date: ((year - 1980) << 9) | ((d.getUTCMonth() + 1) << 5) | d.getUTCDate(),
  };
}

/**
 * Builds a ZIP: call `add` (spooled under `tmpDir` first) or `addStored` for each entry, one
 * after the other, then `finish`; each returns a generator of the archive's bytes, and what
 * they yield, in call order, is the archive. The generators run only as their consumer pulls,
 * so nothing runs ahead of it. A yielded chunk is lent (a view into a reused buffer): valid
 * until the generator is resumed, so a consumer that keeps it copies it (`lentStreamFrom`).
 */
export class ZipWriter {
  readonly #entries: WrittenEntry[] = [];
  #offset = 0;
  readonly #now = dosDateTime(new Date());

  constructor(private readonly tmpDir: string) {}

  /** Bytes written so far (the archive's size once `finish` is done). */
  get size(): number {
    return this.#offset;
  }

  /** Writes one entry from `source`; yields the archive bytes for it. */
  async *add(
    name: string,
    source: ReadableStream<Uint8Array> | Uint8Array,
    options: { deflate: boolean },
  ): AsyncGenerator<Uint8Array> {
    if (this.#entries.length >= MAX_ENTRIES) {
      throw new ZipLimitError("The backup has more entries than a ZIP without Zip64 can hold");
    }
    await Deno.mkdir(this.tmpDir, { recursive: true, mode: 0o700 });
    const tmp = await Deno.makeTempFile({ dir: this.tmpDir, prefix: "zip-entry-" });
    try {
      const spooled = await spool(tmp, source, options.deflate);
      if (this.#offset + spooled.compressedSize + 30 + name.length > MAX_U32) {
        throw new ZipLimitError("The backup is larger than a ZIP without Zip64 can hold (4 GiB)");
      }
      const entry: WrittenEntry = {
        name: new TextEncoder().encode(name),
        method: options.deflate ? 8 : 0,
        crc: spooled.crc,
        compressedSize: spooled.compressedSize,
        size: spooled.size,
        offset: this.#offset,
        ...this.#now,
      };
      const header = localHeader(entry);
      this.#offset += header.length;
      yield header;
      using file = await Deno.open(tmp, { read: true });
      const buf = new Uint8Array(CHUNK);
      for (;;) {
        const n = await file.read(buf);
        if (n === null) break;
        this.#offset += n;
        yield buf.subarray(0, n);
      }
      this.#entries.push(entry);
    } finally {
      await Deno.remove(tmp).catch(() => {});
    }
  }

  /**
   * Writes one stored (not deflated) entry without spooling it: `open` is called twice, first
   * to take the CRC and size (read into one reused buffer), then to stream the bytes after the
   * header. Answers the entry's size, or null (nothing written) when the first `open` answers
   * null. Throws when the second read differs from the first (the source changed meanwhile).
   */
  async *addStored(
    name: string,
    open: () => Promise<ReadableStream<Uint8Array> | null>,
  ): AsyncGenerator<Uint8Array, number | null> {
    if (this.#entries.length >= MAX_ENTRIES) {
      throw new ZipLimitError("The backup has more entries than a ZIP without Zip64 can hold");
    }
    const first = await open();
    if (!first) return null;
    const { crc, size } = await checksum(first);
    const nameBytes = new TextEncoder().encode(name);
    if (this.#offset + size + 30 + nameBytes.length > MAX_U32) {
      throw new ZipLimitError("The backup is larger than a ZIP without Zip64 can hold (4 GiB)");
    }
    const second = await open();
    if (!second) throw new Error(`${name} was removed while the backup was written`);
    const entry: WrittenEntry = {
      name: nameBytes,
      method: 0,
      crc,
      compressedSize: size,
      size,
      offset: this.#offset,
      ...this.#now,
    };
    const header = localHeader(entry);
    this.#offset += header.length;
    yield header;
    let again = 0;
    let read = 0;
    for await (const chunk of lentChunks(second, 1)) {
      read += chunk.length;
      if (read > size) break;
      again = crc32(chunk, again);
      this.#offset += chunk.length;
      yield chunk;
    }
    if (read !== size || (again >>> 0) !== crc) {
      throw new Error(`${name} changed while the backup was written`);
    }
    this.#entries.push(entry);
    return size;
  }

  /** The central directory and its end record. */
  *finish(): Generator<Uint8Array> {
    const start = this.#offset;
    for (const e of this.#entries) {
      const h = centralHeader(e);
      this.#offset += h.length;
      yield h;
    }
    const end = new Uint8Array(22);
    const v = new DataView(end.buffer);
    v.setUint32(0, END_OF_CENTRAL, true);
    v.setUint16(8, this.#entries.length, true);
    v.setUint16(10, this.#entries.length, true);
    v.setUint32(12, this.#offset - start, true);
    v.setUint32(16, start, true);
    this.#offset += end.length;
    yield end;
  }
}

/** CRC-32 and size of a stream, read into one reused buffer where the stream allows it. */
async function checksum(
  stream: ReadableStream<Uint8Array>,
): Promise<{ crc: number; size: number }> {
  let crc = 0;
  let size = 0;
  for await (const chunk of lentChunks(stream, 1)) {
    crc = crc32(chunk, crc);
    size += chunk.length;
    if (size > MAX_U32) throw new ZipLimitError("An entry is larger than 4 GiB");
  }
  return { crc: crc >>> 0, size };
}

async function spool(
  path: string,
  source: ReadableStream<Uint8Array> | Uint8Array,
  deflate: boolean,
): Promise<{ crc: number; size: number; compressedSize: number }> {
  let crc = 0;
  let size = 0;
  let compressedSize = 0;
  const stream = source instanceof Uint8Array ? ReadableStream.from([source]) : source;
  const checked = stream.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, out) {
        if (chunk.length === 0) return;
        crc = crc32(chunk, crc);
        size += chunk.length;
        if (size > MAX_U32) throw new ZipLimitError("An entry is larger than 4 GiB");
        out.enqueue(chunk);
      },
    }),
  );
  // Native deflate: no JS output buffer per piece, as fflate's `Deflate` allocates.
  const body = deflate ? checked.pipeThrough(deflateRaw()) : checked;
  const file = await Deno.open(path, { write: true, truncate: true });
  await body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, out) {
        compressedSize += chunk.length;
        out.enqueue(chunk);
      },
    }),
  ).pipeTo(file.writable);
  return { crc: crc >>> 0, size, compressedSize };
}

/** A raw-deflate `CompressionStream`, typed for byte chunks. */
function deflateRaw(): ReadableWritablePair<Uint8Array, Uint8Array> {
  const stream = new CompressionStream("deflate-raw");
  return { writable: stream.writable as WritableStream<Uint8Array>, readable: stream.readable };
}

function localHeader(e: WrittenEntry): Uint8Array {
  const out = new Uint8Array(30 + e.name.length);
  const v = new DataView(out.buffer);
  v.setUint32(0, LOCAL_HEADER, true);
  v.setUint16(4, 20, true);
  v.setUint16(6, UTF8_FLAG, true);
  v.setUint16(8, e.method, true);
  v.setUint16(10, e.time, true);
  v.setUint16(12, e.date, true);
  v.setUint32(14, e.crc, true);
  v.setUint32(18, e.compressedSize, true);
  v.setUint32(22, e.size, true);
  v.setUint16(26, e.name.length, true);
  v.setUint16(28, 0, true);
  out.set(e.name, 30);
  return out;
}

function centralHeader(e: WrittenEntry): Uint8Array {
  const out = new Uint8Array(46 + e.name.length);
  const v = new DataView(out.buffer);
  v.setUint32(0, CENTRAL_HEADER, true);
  v.setUint16(4, 20, true);
  v.setUint16(6, 20, true);
  v.setUint16(8, UTF8_FLAG, true);
  v.setUint16(10, e.method, true);
  v.setUint16(12, e.time, true);
  v.setUint16(14, e.date, true);
  v.setUint32(16, e.crc, true);
  v.setUint32(20, e.compressedSize, true);
  v.setUint32(24, e.size, true);
  v.setUint16(28, e.name.length, true);
  v.setUint32(42, e.offset, true);
  out.set(e.name, 46);
  return out;
}
