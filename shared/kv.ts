/**
 * Opens a service's own KV database: `<dataDir>/<service>.kv`, or an in-memory one when
 * `dataDir` is `:memory:` (unit tests). No service opens another's file.
 */
export async function openServiceKv(dataDir: string, service: string): Promise<Deno.Kv> {
  if (dataDir === ":memory:") return await Deno.openKv(":memory:");
  await Deno.mkdir(dataDir, { recursive: true });
  return await Deno.openKv(`${dataDir}/${service}.kv`);
}

/** Reads up to any number of keys, in batches of the 10 that `getMany` allows. */
export async function getManyBatched<T>(
  kv: Deno.Kv,
  keys: Deno.KvKey[],
): Promise<Deno.KvEntryMaybe<T>[]> {
  const out: Deno.KvEntryMaybe<T>[] = [];
  for (let i = 0; i < keys.length; i += 10) {
    out.push(...await kv.getMany<T[]>(keys.slice(i, i + 10)));
  }
  return out;
}

/** Runs an optimistic read-modify-write until its atomic commit succeeds (bounded). */
export async function retryCommit<T>(
  attempt: () => Promise<{ ok: true; value: T } | { ok: false }>,
  tries = 20,
): Promise<T> {
  for (let i = 0; i < tries; i++) {
    const result = await attempt();
    if (result.ok) return result.value;
    await new Promise((r) => setTimeout(r, Math.random() * 5 * (i + 1)));
  }
  throw new Error("KV commit kept conflicting");
}
