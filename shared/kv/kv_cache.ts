import { overrideKv, wrapCommit } from "./kv.ts";
import { type KeyFamilies, keyId } from "./kv_keys.ts";

/**
 * A read cache in front of a service's own KV, for hot read paths (a workspace Get, the
 * membership check every other service makes), correct with several instances writing one
 * database (instances sharing DATA_DIR, Deno Deploy's isolates):
 *
 * - every write through this wrapper (`set`, `delete`, an atomic `commit`) also adds 1 to the
 *   database's generation counter `["cache_generation"]`, in the same atomic operation;
 * - a cached answer is served only within CHECK_INTERVAL_MS of reading that counter; after
 *   that, the next read reads it again (one `get` for all readers) and empties the cache when
 *   it moved, so a write made by another instance is seen within about 200 ms;
 * - this instance's own writes empty the cache before and after they land, and a read that
 *   overlapped a write or a generation change is not cached.
 */
export function withReadCache(
  kv: Deno.Kv,
  { maxEntries = 20_000, checkIntervalMs = CHECK_INTERVAL_MS }: {
    maxEntries?: number;
    checkIntervalMs?: number;
  } = {},
): Deno.Kv {
  const entries = new Map<string, Deno.KvEntryMaybe<unknown>>();
  let generation = 0;
  let knownCounter: bigint | null | undefined = undefined;
  let checkedAt = -Infinity;
  let checking: Promise<void> | null = null;
  const invalidate = () => {
    generation++;
    entries.clear();
  };
  const remember = (id: string, entry: Deno.KvEntryMaybe<unknown>) => {
    if (entries.size >= maxEntries) entries.clear();
    entries.set(id, entry);
  };

  /** Reads the generation counter (one read shared by concurrent callers). */
  const checkCounter = () => {
    checking ??= (async () => {
      const startedAt = performance.now();
      try {
        const entry = await kv.get<Deno.KvU64>(GENERATION_KEY);
        const counter = entry.value?.value ?? null;
        if (counter !== knownCounter) {
          invalidate();
          knownCounter = counter;
        }
        checkedAt = startedAt;
      } finally {
        checking = null;
      }
    })();
    return checking;
  };

  async function getMany(keys: Deno.KvKey[], options?: { consistency?: Deno.KvConsistencyLevel }) {
    if (options?.consistency === "eventual") return await kv.getMany(keys, options);
    if (performance.now() - checkedAt > checkIntervalMs) await checkCounter();
    const ids = keys.map(keyId);
    const cached: Deno.KvEntryMaybe<unknown>[] = [];
    for (const id of ids) {
      const entry = entries.get(id);
      if (entry === undefined) break;
      cached.push(entry);
    }
    if (cached.length === ids.length) return cached;
    const started = generation;
    const fresh = await kv.getMany(keys, options);
    if (started === generation) fresh.forEach((e, i) => remember(ids[i], e));
    return fresh;
  }

  /** Runs a write with the cache emptied before and after it. */
  async function write<T>(run: () => Promise<T>): Promise<T> {
    invalidate();
    try {
      return await run();
    } finally {
      invalidate();
    }
  }

  return overrideKv(kv, {
    get: async (key: Deno.KvKey, options?: { consistency?: Deno.KvConsistencyLevel }) =>
      (await getMany([key], options))[0],
    getMany,
    set: (key: Deno.KvKey, value: unknown, options?: { expireIn?: number }) =>
      write(() =>
        kv.atomic().set(key, value, options).sum(GENERATION_KEY, 1n).commit() as Promise<
          Deno.KvCommitResult
        >
      ),
    delete: (key: Deno.KvKey) =>
      write(async () => {
        await kv.atomic().delete(key).sum(GENERATION_KEY, 1n).commit();
      }),
    atomic: () => {
      const op = kv.atomic();
      return wrapCommit(op, (commit) =>
        write(() => {
          op.sum(GENERATION_KEY, 1n);
          return commit();
        }));
    },
  });
}

/** The counter every write through a read cache adds 1 to. */
export const GENERATION_KEY: Deno.KvKey = ["cache_generation"];

/**
 * The key family a read cache writes into its service's KV: the generation counter only moves
 * forward, so a backup neither takes nor restores it (a restore that wiped it would see it
 * made again by its own commit).
 */
export const READ_CACHE_KEYS: KeyFamilies = { cache_generation: "local" };

/** How long a cached answer is served without reading the generation counter again. */
export const CHECK_INTERVAL_MS = 200;
