import { serialize } from "node:v8";
import type { BackupClass, KeyFamilies } from "../kv/kv_keys.ts";

/**
 * A service's keyspace as NDJSON, for backup and restore: one line per entry,
 * `{"k": [key parts], "v": value}`, with the types JSON lacks written as tagged objects
 * (`{"$t": "u8", "v": "<base64>"}` and so on). Export streams straight from `kv.list`; import
 * wipes the keyspace and writes the lines in commits that respect KV's limits, so running it
 * again with the same lines gives the same end state. What happens to each key family (data,
 * session, derived, local) is the service's own declaration (see kv_keys.ts).
 */

/**
 * What a backup does with a key: export it (data), drop it (session, derived: wiped by a
 * restore and never written from an archive), or leave it alone (local).
 */
type Treatment = (key: Deno.KvKey) => BackupClass;

const treatments = new WeakMap<KeyFamilies, Treatment>();

/**
 * How `families` classes a key, as a check made once per declaration: a backup or restore asks
 * it for every entry, and it allocates nothing. A family the declaration does not name is
 * treated as data, so a backup never loses what a store wrote (a test keeps every family
 * declared).
 */
function treatment(families: KeyFamilies): Treatment {
  let treat = treatments.get(families);
  if (treat) return treat;
  const classes = new Map<string, BackupClass>(Object.entries(families));
  treat = (key) => {
    const first = key[0];
    return (typeof first === "string" && classes.get(first)) || "data";
  };
  treatments.set(families, treat);
  return treat;
}

/** At most this many mutations and bytes (estimated) per atomic commit (KV: 1000 / 800 KiB). */
const MAX_MUTATIONS = 1000;
const MAX_COMMIT_BYTES = 600 * 1024;
/** KV also limits the total size of the keys of one commit (80 KiB). */
const MAX_COMMIT_KEY_BYTES = 60 * 1024;

export type EncodedKeyPart = string | boolean | { $n: number | string } | { $b: string } | {
  $u8: string;
};

export interface BackupLine {
  k: EncodedKeyPart[];
  v: unknown;
}

// ------------------------------------------------------------------ keys

function encodeNumber(n: number): number | string {
  return Number.isFinite(n) && !Object.is(n, -0) ? n : String(Object.is(n, -0) ? "-0" : n);
}

function decodeNumber(v: unknown): number {
  if (typeof v === "number") return v;
  if (v === "-0") return -0;
  if (v === "NaN" || v === "Infinity" || v === "-Infinity") return Number(v);
  throw new TypeError(`not a number: ${JSON.stringify(v)}`);
}

export function encodeKey(key: Deno.KvKey): EncodedKeyPart[] {
  return key.map((part): EncodedKeyPart => {
    if (typeof part === "string" || typeof part === "boolean") return part;
    if (typeof part === "number") return { $n: encodeNumber(part) };
    if (typeof part === "bigint") return { $b: part.toString() };
    if (part instanceof Uint8Array) return { $u8: part.toBase64() };
    throw new TypeError(`unsupported key part ${String(part)}`);
  });
}

export function decodeKey(parts: unknown): Deno.KvKey {
  if (!Array.isArray(parts)) throw new TypeError("k must be an array");
  return parts.map((part): Deno.KvKeyPart => {
    if (typeof part === "string" || typeof part === "boolean") return part;
    if (part && typeof part === "object") {
      const o = part as Record<string, unknown>;
      if ("$n" in o) return decodeNumber(o.$n);
      if ("$b" in o && typeof o.$b === "string") return BigInt(o.$b);
      if ("$u8" in o && typeof o.$u8 === "string") return Uint8Array.fromBase64(o.$u8);
    }
    throw new TypeError(`unsupported key part ${JSON.stringify(part)}`);
  });
}

// ------------------------------------------------------------------ values

/** A value KV can hold, written as JSON; tagged objects carry what JSON cannot. */
export function encodeValue(value: unknown): unknown {
  if (value === null || typeof value === "string" || typeof value === "boolean") return value;
  if (value === undefined) return { $t: "undefined" };
  if (typeof value === "number") {
    const n = encodeNumber(value);
    return typeof n === "number" ? n : { $t: "number", v: n };
  }
  if (typeof value === "bigint") return { $t: "bigint", v: value.toString() };
  if (value instanceof Deno.KvU64) return { $t: "u64", v: value.value.toString() };
  if (value instanceof Uint8Array) return { $t: "u8", v: value.toBase64() };
  if (value instanceof ArrayBuffer) return { $t: "ab", v: new Uint8Array(value).toBase64() };
  if (value instanceof Date) return { $t: "date", v: value.toISOString() };
  if (value instanceof RegExp) return { $t: "regexp", v: value.source, f: value.flags };
  if (value instanceof Map) {
    return { $t: "map", v: [...value].map(([k, v]) => [encodeValue(k), encodeValue(v)]) };
  }
  if (value instanceof Set) return { $t: "set", v: [...value].map(encodeValue) };
  if (Array.isArray(value)) return value.map(encodeValue);
  if (typeof value === "object") {
    const out: Record<string, unknown> = {};
    const source = value as Record<string, unknown>;
    // for-in, not Object.entries: no array of pairs per object (a backup encodes every record).
    for (const k in source) {
      if (Object.hasOwn(source, k)) setOwn(out, k, encodeValue(source[k]));
    }
    // A stored object that has its own `$t` is wrapped so it is never read as a tag.
    return "$t" in out ? { $t: "object", v: out } : out;
  }
  throw new TypeError(`unsupported value of type ${typeof value}`);
}

/**
 * Decodes a value as `JSON.parse` gave it, in place: plain objects and arrays are reused, not
 * copied (a restore decodes every record twice), so the caller hands over a value it owns.
 */
export function decodeValue(value: unknown): unknown {
  if (value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) value[i] = decodeValue(value[i]);
    return value;
  }
  const o = value as Record<string, unknown>;
  if (typeof o.$t === "string") {
    switch (o.$t) {
      case "undefined":
        return undefined;
      case "number":
        return decodeNumber(o.v);
      case "bigint":
        return BigInt(String(o.v));
      case "u64":
        return new Deno.KvU64(BigInt(String(o.v)));
      case "u8":
        return Uint8Array.fromBase64(String(o.v));
      case "ab":
        return Uint8Array.fromBase64(String(o.v)).buffer;
      case "date":
        return new Date(String(o.v));
      case "regexp":
        return new RegExp(String(o.v), String(o.f ?? ""));
      case "map":
        return new Map(
          (o.v as [unknown, unknown][]).map(([k, v]) => [decodeValue(k), decodeValue(v)]),
        );
      case "set":
        return new Set((o.v as unknown[]).map(decodeValue));
      case "object":
        return decodeObject(o.v as Record<string, unknown>);
      default:
        throw new TypeError(`unknown value tag ${JSON.stringify(o.$t)}`);
    }
  }
  return decodeObject(o);
}

function decodeObject(o: Record<string, unknown>): Record<string, unknown> {
  for (const k in o) {
    const v = o[k];
    if (v === null || typeof v !== "object") continue;
    const decoded = decodeValue(v);
    if (decoded !== v) setOwn(o, k, decoded);
  }
  return o;
}

/** `o[k] = v` as an own property, `__proto__` included (plain assignment would set the prototype). */
function setOwn(o: Record<string, unknown>, k: string, v: unknown) {
  if (k === "__proto__") {
    Object.defineProperty(o, k, { value: v, writable: true, enumerable: true, configurable: true });
  } else o[k] = v;
}

// ------------------------------------------------------------------ lines

export function encodeLine(key: Deno.KvKey, value: unknown): string {
  return JSON.stringify({ k: encodeKey(key), v: encodeValue(value) });
}

/** One NDJSON line back to a key and value; throws a TypeError on anything malformed. */
export function decodeLine(line: string): { key: Deno.KvKey; value: unknown } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch {
    throw new TypeError("line is not JSON");
  }
  if (!parsed || typeof parsed !== "object" || !("k" in parsed) || !("v" in parsed)) {
    throw new TypeError("line must be an object with k and v");
  }
  const { k, v } = parsed as BackupLine;
  const key = decodeKey(k);
  if (key.length === 0) throw new TypeError("key is empty");
  return { key, value: decodeValue(v) };
}

// ------------------------------------------------------------------ KV's limits on one entry

/** KV refuses to write a key longer than this, as it encodes the key. */
export const KV_MAX_KEY_BYTES = 2048;
/** KV refuses to write a value larger than this, as it serializes the value. */
export const KV_MAX_VALUE_BYTES = 65536;
/**
 * A line shorter than this cannot hold a value over KV's limit: V8's serialization of a value
 * takes at most 3 bytes per character of its JSON line (a double such as `0.5,` is 9 bytes),
 * so only longer lines are serialized to be measured.
 */
const VALUE_MEASURED_FROM = Math.floor(KV_MAX_VALUE_BYTES / 4);

/**
 * What KV would refuse about writing this entry (a key over 2048 bytes, a value over 64 KiB),
 * or null: checked for every line of an archive before a restore replaces anything, so a
 * keyspace is never wiped for a line that could not be written back. `lineLength` is the
 * length of the line the entry was decoded from.
 */
export function entryProblem(key: Deno.KvKey, value: unknown, lineLength: number): string | null {
  const keyBytes = encodedKeyBytes(key);
  if (keyBytes > KV_MAX_KEY_BYTES) {
    return `its key is ${keyBytes} bytes, more than the ${KV_MAX_KEY_BYTES} KV allows`;
  }
  if (lineLength < VALUE_MEASURED_FROM) return null;
  const valueBytes = serializedValueBytes(value);
  if (valueBytes > KV_MAX_VALUE_BYTES) {
    return `its value is ${valueBytes} bytes, more than the ${KV_MAX_VALUE_BYTES} KV allows`;
  }
  return null;
}

/**
 * The bytes of `key` as KV encodes it (the tuple encoding: a type byte per part, strings and
 * bytes NUL-escaped and terminated, integers in as many bytes as they need, floats in 8).
 */
export function encodedKeyBytes(key: Deno.KvKey): number {
  let size = 0;
  for (const part of key) {
    if (typeof part === "string") size += escapedUtf8Length(part) + 2;
    else if (part instanceof Uint8Array) size += part.length + zeroBytes(part) + 2;
    else if (typeof part === "bigint") size += bigintKeyBytes(part);
    else if (typeof part === "number") size += 9;
    else size += 1;
  }
  return size;
}

function zeroBytes(bytes: Uint8Array): number {
  let n = 0;
  for (const b of bytes) if (b === 0) n++;
  return n;
}

/** 0 is one byte; up to 8 bytes of magnitude follow a type byte, more also a length byte. */
function bigintKeyBytes(n: bigint): number {
  let magnitude = n < 0n ? -n : n;
  let bytes = 0;
  while (magnitude > 0n) {
    bytes++;
    magnitude >>= 8n;
  }
  return bytes === 0 ? 1 : bytes <= 8 ? bytes + 1 : bytes + 2;
}

/** The bytes KV stores `value` in: raw bytes, a u64, or V8's serialization of anything else. */
function serializedValueBytes(value: unknown): number {
  if (value instanceof Uint8Array) return value.length;
  if (value instanceof Deno.KvU64) return 8;
  return serialize(value).length;
}

/**
 * Rewrites every string equal to a key of `ids` (key parts, string values and object property
 * names) in an encoded line: how a restore moves records to the ids accounts have here.
 */
export function remapLine(line: BackupLine, ids: ReadonlyMap<string, string>): BackupLine {
  if (ids.size === 0) return line;
  const map = (v: unknown): unknown => {
    if (typeof v === "string") return ids.get(v) ?? v;
    if (Array.isArray(v)) return v.map(map);
    if (v && typeof v === "object") {
      const out: Record<string, unknown> = {};
      for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
        out[ids.get(k) ?? k] = map(x);
      }
      return out;
    }
    return v;
  };
  return { k: line.k.map((p) => (typeof p === "string" ? ids.get(p) ?? p : p)), v: map(line.v) };
}

/**
 * Splits bytes into text lines (without the newline) across chunk boundaries, for a caller
 * that is handed chunks; blank lines are skipped. Each line is decoded on its own as it is
 * taken, so no string of a whole chunk (a quarter MiB once inflated) outlives the line being
 * read: what a restore keeps alive while it writes stays one line.
 */
export class LineSplitter {
  readonly #decoder = new TextDecoder();
  /** Bytes of a line a chunk ended in the middle of. */
  #carry: Uint8Array[] = [];

  /**
   * The lines `chunk` completes, decoded one by one as they are taken; `chunk` must stay
   * unchanged until they all are.
   */
  *push(chunk: Uint8Array): Generator<string> {
    let start = 0;
    for (let nl = chunk.indexOf(10); nl >= 0; nl = chunk.indexOf(10, start)) {
      const line = this.#take(chunk.subarray(start, nl));
      start = nl + 1;
      if (line !== null) yield line;
    }
    if (start < chunk.length) this.#carry.push(chunk.slice(start));
  }

  /** The last line, when the bytes did not end with a newline. */
  end(): string[] {
    const line = this.#take(new Uint8Array(0));
    return line === null ? [] : [line];
  }

  /** `bytes` (after any carried bytes) as a line, or null for a blank one. */
  #take(bytes: Uint8Array): string | null {
    if (this.#carry.length) {
      this.#carry.push(bytes);
      bytes = concatBytes(this.#carry);
      this.#carry = [];
    }
    const line = this.#decoder.decode(bytes);
    return line.trim() ? line : null;
  }
}

function concatBytes(parts: readonly Uint8Array[]): Uint8Array {
  let size = 0;
  for (const p of parts) size += p.length;
  const out = new Uint8Array(size);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/**
 * A byte stream's lines, a chunk's worth at a time (each taken lazily, decoded as it is taken;
 * take them all before asking for the next chunk). Blank lines are skipped.
 */
export async function* readLineChunks(
  stream: ReadableStream<Uint8Array>,
): AsyncGenerator<Iterable<string>> {
  const lines = new LineSplitter();
  // Each chunk is the stream's own (a default reader hands over what it reads), so it stays
  // as it is while its lines are taken.
  for await (const chunk of stream) yield lines.push(chunk);
  yield lines.end();
}

/** Splits a byte stream into lines (without the newline); blank lines are skipped. */
export async function* readLines(stream: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  for await (const lines of readLineChunks(stream)) yield* lines;
}

// ------------------------------------------------------------------ export and import

/** Bytes of one chunk of an export. */
const EXPORT_CHUNK = 64 * 1024;

/**
 * The keyspace's data (every key `families` classes neither session, derived nor local) as an NDJSON
 * byte stream, page by page. Each line is encoded into the chunk's bytes as soon as it is
 * made, so no text of a chunk stays alive while the next entries are read.
 */
export function exportKv(
  kv: Deno.Kv,
  families: KeyFamilies,
): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  const treat = treatment(families);
  let iter: Deno.KvListIterator<unknown> | null = null;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      iter ??= kv.list({ prefix: [] }, { batchSize: 100 });
      const out = new Uint8Array(EXPORT_CHUNK);
      let size = 0;
      for (;;) {
        const next = await iter.next();
        if (next.done) {
          if (size) controller.enqueue(out.subarray(0, size));
          controller.close();
          return;
        }
        const entry = next.value;
        if (treat(entry.key) !== "data") continue;
        const line = encodeLine(entry.key, entry.value) + "\n";
        letGo(entry);
        // UTF-8 takes at most 3 bytes per UTF-16 unit.
        if (line.length * 3 > EXPORT_CHUNK - size) {
          const bytes = encoder.encode(line);
          if (bytes.length <= EXPORT_CHUNK - size) {
            out.set(bytes, size);
            size += bytes.length;
            continue;
          }
          if (size) controller.enqueue(out.subarray(0, size));
          controller.enqueue(bytes);
          return;
        }
        size += encoder.encodeInto(line, out.subarray(size)).written;
        if (size > EXPORT_CHUNK - 1024) {
          controller.enqueue(out.subarray(0, size));
          return;
        }
      }
    },
  });
}

/**
 * Drops a listed entry's value once it has been read. Entries handed out by Deno's list
 * iterator stay reachable for a while after they are read, so every value listed used to
 * survive a young collection or two and be promoted: listing 40,000 records, twice the bytes
 * survived and the heap grew to 42 MiB instead of 23. The entry is the iterator's own copy.
 */
function letGo(entry: Deno.KvEntry<unknown>) {
  (entry as { value: unknown }).value = null;
}

/** Collects mutations and commits them whenever the next one would pass KV's limits. */
class Batcher {
  #op: Deno.AtomicOperation;
  #count = 0;
  #bytes = 0;
  #keyBytes = 0;

  constructor(private readonly kv: Deno.Kv) {
    this.#op = kv.atomic();
  }

  /**
   * Adds a mutation. Answers a promise (to await) only when a commit has to go first, so a caller
   * adding many makes no promise per mutation.
   */
  add(
    key: Deno.KvKey,
    value: unknown | undefined,
    size: number,
    keySize: number,
  ): Promise<void> | undefined {
    if (
      this.#count + 1 > MAX_MUTATIONS || this.#bytes + size > MAX_COMMIT_BYTES ||
      this.#keyBytes + keySize > MAX_COMMIT_KEY_BYTES
    ) {
      return this.flush().then(() => this.add(key, value, size, keySize));
    }
    if (value === undefined) this.#op.delete(key);
    else this.#op.set(key, value);
    this.#count++;
    this.#bytes += size;
    this.#keyBytes += keySize;
  }

  async flush() {
    if (this.#count === 0) return;
    const res = await this.#op.commit();
    if (!res.ok) throw new Error("KV import commit failed");
    this.#op = this.kv.atomic();
    this.#count = 0;
    this.#bytes = 0;
    this.#keyBytes = 0;
  }
}

/** UTF-8 bytes of `s`, a NUL counted twice (KV escapes it). */
function escapedUtf8Length(s: string): number {
  let n = s.length;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 0) n++;
    else if (c >= 0x80) n += c >= 0x800 ? 2 : 1;
  }
  return n;
}

/** Deletes every entry but the local ones, page by page as it lists them. */
export async function wipeKv(kv: Deno.Kv, families: KeyFamilies) {
  const treat = treatment(families);
  const batch = new Batcher(kv);
  // The listing reads on from the last key it gave, so deleting what it gave is safe.
  for await (const e of kv.list({ prefix: [] }, { batchSize: 100 })) {
    letGo(e);
    if (treat(e.key) === "local") continue;
    const size = encodedKeyBytes(e.key);
    const wait = batch.add(e.key, undefined, size, size);
    if (wait) await wait;
  }
  await batch.flush();
}

/**
 * Replaces the keyspace (less its local families) with the entries of `lines`: wipes first
 * (sessions and derived families included), then writes in commits within KV's limits, skipping
 * lines of a local, session or derived family. `lines` gives lines one by one or a chunk's lines at a time
 * (`readLineChunks`), which are then written without a promise per line. Every line is decoded
 * before it is written; a malformed line throws (a TypeError) with the line number. Answers how
 * many lines were read.
 */
export async function importKv(
  kv: Deno.Kv,
  lines: AsyncIterable<string | Iterable<string>>,
  families: KeyFamilies,
): Promise<number> {
  await wipeKv(kv, families);
  const treat = treatment(families);
  const batch = new Batcher(kv);
  let n = 0;
  for await (const item of lines) {
    for (const line of typeof item === "string" ? [item] : item) {
      n++;
      let decoded;
      try {
        decoded = decodeLine(line);
      } catch (err) {
        throw new TypeError(`line ${n}: ${err instanceof Error ? err.message : String(err)}`);
      }
      if (treat(decoded.key) !== "data") continue;
      const ks = encodedKeyBytes(decoded.key);
      const wait = batch.add(decoded.key, decoded.value, line.length * 2 + ks, ks);
      if (wait) await wait;
    }
  }
  await batch.flush();
  return n;
}
