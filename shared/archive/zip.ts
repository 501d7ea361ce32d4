/**
 * Streamed ZIP writing and reading for backups, on fflate.
 *
 * Writing: fflate's streaming `Zip` always puts sizes in a data descriptor after the data, and
 * a streaming reader can then only find the end of an entry by searching for the descriptor's
 * signature, which random (compressed) bytes contain by chance about once in 4 GiB. So each
 * entry is first spooled to a temporary file (deflated by the platform's native
 * `CompressionStream`, or stored), and then written with its CRC and sizes in the local header:
 * the archive is a plain ZIP every tool reads, and a streamed read of it is exact. Memory stays
 * at a few chunks.
 *
 * Reading: fflate's streaming `Unzip` finds the entries (archives from other tools too, data
 * descriptors included), fed in small slices so one slice can never inflate to more than about
 * 17 MiB; a deflated entry's bytes are inflated by the platform's `DecompressionStream` (native
 * code, no garbage JS buffer per piece as fflate's `Inflate` makes), and every entry's data is
 * handed to an async sink in order; the next slice is read only once the sinks have taken the
 * last one's data. Only fflate's public API is used.
 * No Zip64: an archive is limited to 4 GiB and 65,535 entries.
 */
import { crc32 } from "node:zlib";
import { type AsyncFlateStreamHandler, Unzip } from "fflate";

const LOCAL_HEADER = 0x04034b50;
const CENTRAL_HEADER = 0x02014b50;
const END_OF_CENTRAL = 0x06054b50;
const UTF8_FLAG = 0x0800;
const MAX_U32 = 0xffff_ffff;
const MAX_ENTRIES = 0xffff;

export class ZipLimitError extends Error {}

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

/** Size of the reused buffers a stream or file is read into. */
const CHUNK = 64 * 1024;

/**
 * A stream's chunks, read into `buffers` reused buffers where it is a byte stream (a file, a
 * fetch body): each chunk is lent, valid until `buffers` more have been read (its buffer is
 * then detached, so a view kept longer reads as empty, never as other bytes). Any other stream
 * gives its own chunks.
 */
export async function* lentChunks(
  stream: ReadableStream<Uint8Array>,
  buffers: 1 | 2,
): AsyncGenerator<Uint8Array> {
  let byob: ReadableStreamBYOBReader | null = null;
  try {
    byob = stream.getReader({ mode: "byob" });
  } catch { /* not a byte stream */ }
  if (!byob) {
    yield* stream;
    return;
  }
  let finished = false;
  try {
    const pool = Array.from({ length: buffers }, () => new Uint8Array(CHUNK));
    for (let i = 0;; i = (i + 1) % buffers) {
      const { value, done } = await byob.read(pool[i]);
      if (done || !value) {
        finished = true;
        break;
      }
      pool[i] = new Uint8Array(value.buffer);
      yield value;
    }
  } finally {
    if (!finished) await byob.cancel().catch(() => {});
    byob.releaseLock();
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

// ------------------------------------------------------------------ reading

/** Raised when the bytes are not a ZIP this reader can follow. */
export class ZipFormatError extends Error {}

/**
 * Where one entry's bytes go; `null` from `open` skips the entry (its bytes still count).
 * A chunk is lent (a view into a reused buffer): it is valid until `write`'s promise settles,
 * so a sink that keeps bytes copies them.
 */
export interface ZipEntrySink {
  write(chunk: Uint8Array): Promise<void> | void;
  close(): Promise<void> | void;
}

export interface ReadZipOptions {
  /** Called for every entry in archive order, before any of its bytes. */
  open(name: string): Promise<ZipEntrySink | null> | ZipEntrySink | null;
  /** Called with each chunk's size; throw to stop (e.g. past a decompressed-size bound). */
  onBytes?(n: number): void;
}

type ZipEvent =
  | { kind: "file"; name: string; deflated: boolean }
  | { kind: "data"; index: number; data: Uint8Array; final: boolean }
  | { kind: "error"; error: unknown };

/** Input slice size: deflate expands at most ~1032x, so one slice inflates to under 17 MiB. */
const SLICE = 16 * 1024;

/** The ZIP method number of deflate. */
const DEFLATE = 8;

/**
 * Hands a deflated entry's bytes on as they are (lent, as `Unzip` gives them); `readZip`
 * inflates them with a `DecompressionStream`.
 */
class DeflatedPassThrough {
  static compression = DEFLATE;
  ondata!: AsyncFlateStreamHandler;
  push(chunk: Uint8Array, final: boolean): void {
    this.ondata(null, chunk as Uint8Array<ArrayBuffer>, final);
  }
}

function formatError(err: unknown): Error {
  if (err instanceof ZipFormatError) return err;
  return new ZipFormatError(`The archive cannot be read: ${errorText(err)}`);
}

/**
 * One deflated entry's `DecompressionStream`: `write` resolves once the compressed chunk is
 * consumed (so a lent chunk may be reused then), the inflated bytes go to the sink from a pump
 * that awaits it before reading on; `end` resolves once the sink has taken the last of them.
 * Errors from the sink or `onBytes` come out as they are, a decoding error as ZipFormatError.
 */
class EntryInflater {
  readonly #writer: WritableStreamDefaultWriter<BufferSource>;
  readonly #pumped: Promise<void>;

  constructor(sink: ZipEntrySink | null, onBytes: ((n: number) => void) | undefined) {
    const stream = new DecompressionStream("deflate-raw");
    this.#writer = stream.writable.getWriter();
    this.#pumped = pump(stream.readable, sink, onBytes);
    this.#pumped.catch(() => {});
  }

  async write(chunk: Uint8Array): Promise<void> {
    try {
      await this.#writer.write(chunk as Uint8Array<ArrayBuffer>);
    } catch (err) {
      await this.#pumped;
      throw formatError(err);
    }
  }

  async end(): Promise<void> {
    try {
      await this.#writer.close();
    } catch (err) {
      await this.#pumped;
      throw formatError(err);
    }
    await this.#pumped;
  }

  async abort(): Promise<void> {
    await this.#writer.abort().catch(() => {});
    await this.#pumped.catch(() => {});
  }
}

async function pump(
  readable: ReadableStream<Uint8Array>,
  sink: ZipEntrySink | null,
  onBytes: ((n: number) => void) | undefined,
): Promise<void> {
  const reader = readable.getReader();
  try {
    for (;;) {
      let next: ReadableStreamReadResult<Uint8Array>;
      try {
        next = await reader.read();
      } catch (err) {
        throw formatError(err);
      }
      if (next.done) return;
      onBytes?.(next.value.length);
      if (sink && next.value.length) await sink.write(next.value);
    }
  } catch (err) {
    await reader.cancel(err).catch(() => {});
    throw err;
  } finally {
    reader.releaseLock();
  }
}

/**
 * Reads a ZIP from a stream, entry by entry, awaiting each sink before reading on. Throws a
 * ZipFormatError when the bytes do not start like a ZIP or an entry cannot be decoded.
 *
 * Every entry is started the moment fflate's `Unzip` announces it, so its bytes are handed on
 * at once and `Unzip` never buffers an entry's data waiting for `start()`. Those chunks queue
 * in `events` until the sinks (through an entry's `DecompressionStream` when it is deflated)
 * have taken them; that queue holds at most one input slice, since it is drained after every
 * slice.
 */
export async function readZip(
  source: ReadableStream<Uint8Array>,
  options: ReadZipOptions,
): Promise<void> {
  const events: ZipEvent[] = [];
  let files = 0;
  const unzip = new Unzip((file) => {
    const index = files++;
    events.push({ kind: "file", name: file.name, deflated: file.compression === DEFLATE });
    file.ondata = (err, data, final) => {
      if (err) events.push({ kind: "error", error: err });
      else events.push({ kind: "data", index, data, final });
    };
    file.start();
  });
  unzip.register(DeflatedPassThrough);
  const sinks: (ZipEntrySink | null | undefined)[] = [];
  const deflated: boolean[] = [];
  const inflaters = new Map<number, EntryInflater>();
  let opened = 0;

  const drain = async () => {
    while (events.length) {
      const ev = events.shift()!;
      if (ev.kind === "error") {
        throw new ZipFormatError(`The archive cannot be read: ${errorText(ev.error)}`);
      }
      if (ev.kind === "file") {
        deflated[opened] = ev.deflated;
        sinks[opened++] = await options.open(ev.name);
        continue;
      }
      const sink = sinks[ev.index];
      if (deflated[ev.index]) {
        let inflater = inflaters.get(ev.index);
        if (!inflater) {
          inflater = new EntryInflater(sink ?? null, options.onBytes);
          inflaters.set(ev.index, inflater);
        }
        if (ev.data.length) await inflater.write(ev.data);
        if (ev.final) {
          inflaters.delete(ev.index);
          await inflater.end();
          if (sink) await sink.close();
        }
      } else {
        options.onBytes?.(ev.data.length);
        if (sink) {
          if (ev.data.length) await sink.write(ev.data);
          if (ev.final) await sink.close();
        }
      }
      // A finished entry's sink is forgotten; `undefined` marks it done.
      if (ev.final) sinks[ev.index] = undefined;
    }
  };

  const push = (chunk: Uint8Array, final: boolean) => {
    try {
      unzip.push(chunk, final);
    } catch (err) {
      throw new ZipFormatError(`The archive cannot be read: ${errorText(err)}`);
    }
  };

  try {
    let first = true;
    let head: Uint8Array = new Uint8Array(0);
    // Two buffers: what fflate's Unzip keeps of one chunk (the start of a header cut by the
    // chunk's end) it copies out when it is handed the next one, before that buffer is reused.
    for await (let chunk of lentChunks(source, 2)) {
      if (first) {
        // The first four bytes must be a local file header's signature.
        head = concat(head, chunk);
        if (head.length < 4) continue;
        if (new DataView(head.buffer, head.byteOffset).getUint32(0, true) !== LOCAL_HEADER) {
          throw new ZipFormatError("The file is not a ZIP archive");
        }
        first = false;
        chunk = head;
      }
      for (let i = 0; i < chunk.length; i += SLICE) {
        push(chunk.subarray(i, i + SLICE), false);
        await drain();
      }
    }
    if (first) throw new ZipFormatError("The file is not a ZIP archive");
    push(new Uint8Array(0), true);
    await drain();
    if (opened !== files || sinks.some((s) => s !== undefined)) {
      throw new ZipFormatError("The archive ends in the middle of an entry");
    }
  } finally {
    for (const inflater of inflaters.values()) await inflater.abort();
  }
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  if (a.length === 0) return b;
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
