/**
 * Opens a service's own KV database: `<dataDir>/<service>.kv`, or an in-memory one when
 * `dataDir` is `:memory:` (unit tests). No service opens another's file.
 */
export async function openServiceKv(dataDir: string, service: string): Promise<Deno.Kv> {
  if (dataDir === ":memory:") return await Deno.openKv(":memory:");
  await ensurePrivateDir(dataDir);
  const path = `${dataDir}/${service}.kv`;
  // Created 0600 before SQLite opens it: SQLite gives the -wal and -shm files the database
  // file's mode. Auth's database holds the token signing key.
  const file = await Deno.open(path, { create: true, write: true, mode: PRIVATE_FILE_MODE });
  file.close();
  const kv = await Deno.openKv(path);
  for (const suffix of ["", "-wal", "-shm"]) await restrictFile(path + suffix);
  return kv;
}

/** Only the service's own user may read or enter what it keeps under DATA_DIR. */
export const PRIVATE_DIR_MODE = 0o700;
export const PRIVATE_FILE_MODE = 0o600;

/**
 * Makes `dir` (and missing parents) with mode 0700, and narrows an existing `dir` to 0700:
 * DATA_DIR and what is under it are the service's alone. A chmod the system refuses (a
 * directory owned by someone else) is left as it is.
 */
export async function ensurePrivateDir(dir: string): Promise<void> {
  await Deno.mkdir(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  if (Deno.build.os === "windows") return;
  try {
    const info = await Deno.stat(dir);
    if (info.mode !== null && (info.mode & 0o077) !== 0) await Deno.chmod(dir, PRIVATE_DIR_MODE);
  } catch (err) {
    if (!(err instanceof Deno.errors.PermissionDenied)) throw err;
  }
}

/** Narrows an existing file to 0600 (files made before this rule); an absent one is skipped. */
export async function restrictFile(path: string): Promise<void> {
  if (Deno.build.os === "windows") return;
  try {
    const info = await Deno.stat(path);
    if (info.mode !== null && (info.mode & 0o077) !== 0) await Deno.chmod(path, PRIVATE_FILE_MODE);
  } catch (err) {
    if (err instanceof Deno.errors.NotFound || err instanceof Deno.errors.PermissionDenied) return;
    throw err;
  }
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
