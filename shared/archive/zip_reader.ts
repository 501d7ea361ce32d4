/**
 * Streamed ZIP reading for restores, on fflate.
 *
 * Reading: fflate's streaming `Unzip` finds the entries (archives from other tools too, data
 * descriptors included), fed in small slices so one slice can never inflate to more than about
 * 17 MiB; a deflated entry's bytes are inflated by the platform's `DecompressionStream` (native
 * code, no garbage JS buffer per piece as fflate's `Inflate` makes), and every entry's data is
 * handed to an async sink in order; the next slice is read only once the sinks have taken the
 * last one's data. Only fflate's public API is used.
 */
import { type AsyncFlateStreamHandler, Unzip } from "fflate";
import { lentChunks, LOCAL_HEADER, ZipFormatError } from "./zip_format.ts";

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
