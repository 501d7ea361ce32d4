/**
 * Pages of a KV range, and the secondary indexes that let a filtered list be read a page at a
 * time.
 *
 * A list's range holds keys `[...prefix, id]`: the records themselves (a workspace's ideas), or
 * an index whose entries name a record by id (`["ideas_by_status", ws, status, id]`). A page is
 * one `kv.list` from where the previous one ended (`start`/`end` at that id, so an item written
 * or deleted meanwhile never shifts the rest), then at most `limit` records. Its cost depends
 * on the page, never on how long the list is.
 *
 * An index is written in the same atomic commit as its record (`indexChanges`), so the two never
 * disagree; a page still checks every record it loads against the filter (`keep`), which also
 * serves a filter that no single index covers (two filters: one index, the other checked), at
 * most `budget` entries per page.
 */
import { retryCommit } from "./kv.ts";
import { keyId } from "./kv_keys.ts";

/** One page: the items, and the position (last id) the next page starts after, if any. */
export interface KvPage<T> {
  items: T[];
  /** null on the last page */
  next: string | null;
}

export interface RangePageOptions<T> {
  /** the range: every key is `[...prefix, id]` */
  prefix: Deno.KvKey;
  /** descending key order (newest first, with ULID ids) */
  reverse: boolean;
  limit: number;
  /** the id the previous page ended on */
  after?: string;
  /**
   * The records of these ids, in order (null for one that is gone). Absent: the range's values
   * are the records.
   */
  load?: (ids: string[]) => Promise<(T | null)[]>;
  /** whether a record belongs on the page (the filters the range does not answer itself) */
  keep?: (record: T) => boolean;
  /**
   * At most this many range entries are read for one page: a page of a sparse filter that the
   * range does not cover ends early, with fewer items and a cursor to go on from.
   */
  budget?: number;
}

/** Range entries read for one page at most, whatever the filters. */
export const PAGE_SCAN_BUDGET = 1_000;

/**
 * One page of the range `prefix`, after `after`: at most `limit` records that `keep` keeps, in
 * key order (or reverse).
 */
export async function readRangePage<T>(kv: Deno.Kv, o: RangePageOptions<T>): Promise<KvPage<T>> {
  const budget = Math.max(o.budget ?? PAGE_SCAN_BUDGET, o.limit + 1);
  const items: T[] = [];
  let lastItem: string | null = null;
  let position = o.after;
  let scanned = 0;
  for (;;) {
    const wanted = Math.min(
      budget - scanned,
      items.length === 0 && scanned === 0 ? o.limit + 1 : Math.max(o.limit + 1 - items.length, 100),
    );
    // Going forward, `start` is inclusive: ask for one more and drop the position itself.
    const skipFirst = !o.reverse && position !== undefined;
    const asked = wanted + (skipFirst ? 1 : 0);
    const selector: Deno.KvListSelector = position === undefined
      ? { prefix: o.prefix }
      : o.reverse
      ? { prefix: o.prefix, end: [...o.prefix, position] }
      : { prefix: o.prefix, start: [...o.prefix, position] };
    const entries: Deno.KvEntry<unknown>[] = [];
    for await (
      const e of kv.list(selector, { limit: asked, reverse: o.reverse, batchSize: asked })
    ) entries.push(e);
    const exhausted = entries.length < asked;
    const fresh = skipFirst && entries[0]?.key.at(-1) === position ? entries.slice(1) : entries;
    const ids = fresh.map((e) => String(e.key.at(-1)));
    const records = o.load ? await o.load(ids) : fresh.map((e) => e.value as T);
    for (let i = 0; i < ids.length; i++) {
      scanned++;
      position = ids[i];
      const record = records[i];
      if (record === null || record === undefined || (o.keep && !o.keep(record))) continue;
      // One more than a page: there is a next page, which starts after the last item.
      if (items.length === o.limit) return { items, next: lastItem };
      items.push(record);
      lastItem = ids[i];
    }
    if (exhausted || fresh.length === 0) return { items, next: null };
    if (scanned >= budget) return { items, next: position ?? null };
  }
}

/**
 * The values of `keys`, in order (null where absent), read ten at a time (KV's `getMany`
 * limit) with the reads in flight together.
 */
export async function getValues<T>(kv: Deno.Kv, keys: Deno.KvKey[]): Promise<(T | null)[]> {
  const batches: Promise<Deno.KvEntryMaybe<T>[]>[] = [];
  for (let i = 0; i < keys.length; i += 10) {
    batches.push(kv.getMany<T[]>(keys.slice(i, i + 10)));
  }
  return (await Promise.all(batches)).flat().map((e) => e.value);
}

// ------------------------------------------------------------------ indexes

/** The value of every index entry: the key names the record, the value says nothing more. */
const INDEXED = true;

/**
 * Adds to `op` what takes a record's index entries from `before` (its keys as stored; empty
 * for a new record) to `after` (its keys now; empty for a deleted one): the entries of
 * `before` that `after` lacks are deleted, and every entry of `after` is written, so a record
 * written before its indexes were built (or restored without them) is whole again after any
 * change.
 */
export function indexChanges(
  op: Deno.AtomicOperation,
  before: readonly Deno.KvKey[],
  after: readonly Deno.KvKey[],
): void {
  const now = new Set(after.map(keyId));
  for (const key of before) if (!now.has(keyId(key))) op.delete(key);
  for (const key of after) op.set(key, INDEXED);
}

/** How a service's records are indexed: for building the indexes from the records. */
export interface IndexedRecords<T> {
  /** every record indexed (the list of all of them) */
  records: Deno.KvKey;
  /** the index entries of one record */
  indexKeys: (record: T) => Deno.KvKey[];
}

/** KV's limits per atomic commit (checks, mutations, key bytes), with room to spare. */
const COMMIT_CHECKS = 100;
const COMMIT_MUTATIONS = 900;
const COMMIT_KEY_BYTES = 60 * 1024;

/** An upper bound of a key's encoded size. */
function keyBytes(key: Deno.KvKey): number {
  let n = 0;
  for (const part of key) n += (typeof part === "string" ? part.length * 3 : 16) + 2;
  return n;
}

/**
 * Writes the index entries of every record of `spec.records`, each commit checked against the
 * records it indexes (a record changed meanwhile was indexed by that change and is indexed
 * again from what it is now; one deleted meanwhile is skipped), then sets `marker`. Does
 * nothing when `marker` is already set. Answers how many records it indexed.
 *
 * It runs at start-up (records written before the indexes existed) and after a restore (the
 * indexes are derived: never exported, wiped by the restore with the marker). Running it again,
 * or on two instances at once, changes nothing.
 */
export async function buildIndexes<T>(
  kv: Deno.Kv,
  marker: Deno.KvKey,
  specs: readonly IndexedRecords<T>[],
): Promise<number> {
  if ((await kv.get(marker)).versionstamp !== null) return 0;
  let indexed = 0;
  for (const spec of specs) {
    let op = kv.atomic();
    let pending: Deno.KvKey[] = [];
    let mutations = 0;
    let bytes = 0;
    const flush = async () => {
      if (pending.length === 0) return;
      const res = await op.commit();
      // A record changed since it was listed: index each of this batch on its own.
      if (!res.ok) { for (const key of pending) await indexOne(kv, key, spec); }
      indexed += pending.length;
      op = kv.atomic();
      pending = [];
      mutations = 0;
      bytes = 0;
    };
    for await (const entry of kv.list<T>({ prefix: spec.records }, { batchSize: 500 })) {
      const keys = spec.indexKeys(entry.value);
      const size = keys.reduce((n, k) => n + keyBytes(k), keyBytes(entry.key));
      if (
        pending.length + 1 > COMMIT_CHECKS || mutations + keys.length > COMMIT_MUTATIONS ||
        bytes + size > COMMIT_KEY_BYTES
      ) await flush();
      op.check(entry);
      for (const key of keys) op.set(key, INDEXED);
      pending.push(entry.key);
      mutations += keys.length;
      bytes += size;
    }
    await flush();
  }
  await kv.set(marker, true);
  return indexed;
}

/** Indexes the record at `key` as it is now (nothing when it is gone). */
async function indexOne<T>(kv: Deno.Kv, key: Deno.KvKey, spec: IndexedRecords<T>) {
  await retryCommit(async () => {
    const entry = await kv.get<T>(key);
    if (entry.value === null) return { ok: true, value: undefined };
    const op = kv.atomic().check(entry);
    for (const k of spec.indexKeys(entry.value)) op.set(k, INDEXED);
    return (await op.commit()).ok ? { ok: true, value: undefined } : { ok: false };
  });
}

/**
 * A key part for `value` that is short whatever `value` is: itself when its UTF-8 form is at
 * most 64 bytes, else `#` and a 64-bit FNV-1a hash of it. For free text in index keys (tags):
 * the keys of one record's many tags stay within a commit's key budget, and a page checks each
 * record against the filter, so two values sharing a hash cost a skipped entry, never a wrong
 * item.
 */
export function shortKeyPart(value: string): string {
  const bytes = new TextEncoder().encode(value);
  if (bytes.length <= 64) return value;
  let h = 0xcbf29ce484222325n;
  for (const b of bytes) h = ((h ^ BigInt(b)) * 0x100000001b3n) & 0xffffffffffffffffn;
  return `#${h.toString(16).padStart(16, "0")}`;
}
