/**
 * A read cache in front of a service's own KV, for hot read paths (a workspace Get, the
 * membership check every other service makes). It is correct because of how the project runs
 * KV: each service's database is opened by exactly one process (its own file under DATA_DIR),
 * so every write passes through this wrapper. Any commit, `set` or `delete` empties the cache
 * before and after it lands, and a read that overlapped a write is not cached, so a read
 * never sees data older than the last write that completed before it started.
 *
 * Not for a database other processes write to (KV Connect, Deno Deploy): there, open the KV
 * without this wrapper.
 */
export function withReadCache(kv: Deno.Kv, maxEntries = 50_000): Deno.Kv {
  const entries = new Map<string, Deno.KvEntryMaybe<unknown>>();
  let generation = 0;
  const invalidate = () => {
    generation++;
    entries.clear();
  };
  const remember = (id: string, entry: Deno.KvEntryMaybe<unknown>) => {
    if (entries.size >= maxEntries) entries.clear();
    entries.set(id, entry);
  };

  async function getMany(keys: Deno.KvKey[], options?: { consistency?: Deno.KvConsistencyLevel }) {
    const ids = keys.map(keyId);
    const cached = ids.map((id) => entries.get(id));
    if (cached.every((e) => e !== undefined)) return cached as Deno.KvEntryMaybe<unknown>[];
    const started = generation;
    const fresh = await kv.getMany(keys, options);
    if (started === generation) fresh.forEach((e, i) => remember(ids[i], e));
    return fresh;
  }

  return new Proxy(kv, {
    get(target, prop) {
      switch (prop) {
        case "get":
          return async (key: Deno.KvKey, options?: { consistency?: Deno.KvConsistencyLevel }) =>
            (await getMany([key], options))[0];
        case "getMany":
          return getMany;
        case "set":
        case "delete":
          return async (...args: unknown[]) => {
            invalidate();
            try {
              return await (target[prop] as (...a: unknown[]) => Promise<unknown>).apply(
                target,
                args,
              );
            } finally {
              invalidate();
            }
          };
        case "atomic":
          return () => {
            const op = target.atomic();
            const commit = op.commit.bind(op);
            op.commit = async () => {
              invalidate();
              try {
                return await commit();
              } finally {
                invalidate();
              }
            };
            return op;
          };
        default: {
          const value = Reflect.get(target, prop, target);
          return typeof value === "function" ? value.bind(target) : value;
        }
      }
    },
  });
}

function keyId(key: Deno.KvKey): string {
  return JSON.stringify(key, (_k, v) => {
    if (typeof v === "bigint") return `${v}n`;
    if (v instanceof Uint8Array) return `u8:${Array.from(v).join(",")}`;
    return v;
  });
}
