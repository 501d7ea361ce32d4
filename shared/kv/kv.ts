/**
 * Opens a service's own KV database:
 * - `<dataDir>/<service>.kv`, a local SQLite file, shared by every instance on this machine
 *   that has the same DATA_DIR (writes that collide are retried, see `withLockRetry`);
 * - an in-memory one when `dataDir` is `:memory:` (unit tests);
 * - the deployment's own KV when `dataDir` is `deno-deploy` (Deno Deploy attaches one
 *   database to each app, so each service deployed as its own app has its own);
 * - a KV Connect database when `dataDir` is an `https://` URL (self-hosted denokv or a Deploy
 *   database's connect URL; the access token comes from DENO_KV_ACCESS_TOKEN).
 * No service opens another's database.
 */
export async function openServiceKv(dataDir: string, service: string): Promise<Deno.Kv> {
  if (dataDir === ":memory:") return await Deno.openKv(":memory:");
  if (dataDir === DENO_DEPLOY_KV) return await Deno.openKv();
  if (/^https:\/\//.test(dataDir)) return await Deno.openKv(dataDir);
  await ensurePrivateDir(dataDir);
  const path = `${dataDir}/${service}.kv`;
  // Created 0600 before SQLite opens it: SQLite gives the -wal and -shm files the database
  // file's mode. Auth's database holds the token signing key.
  const file = await Deno.open(path, { create: true, write: true, mode: PRIVATE_FILE_MODE });
  file.close();
  const kv = await retryWhileLocked(() => Deno.openKv(path));
  for (const suffix of ["", "-wal", "-shm"]) await restrictFile(path + suffix);
  return withLockRetry(kv);
}

/** The DATA_DIR value that means "the KV database Deno Deploy attached to this app". */
export const DENO_DEPLOY_KV = "deno-deploy";

/** Whether DATA_DIR names a directory on this machine (not memory, Deploy's KV or KV Connect). */
export function isLocalDataDir(dataDir: string): boolean {
  return dataDir !== ":memory:" && dataDir !== DENO_DEPLOY_KV && !/^https?:/.test(dataDir);
}

/**
 * Whether `kv.watch` on this DATA_DIR's KV tells of other processes' writes: Deno Deploy's KV
 * and KV Connect do; a local SQLite file (or memory) tells a process only of its own writes.
 */
export function watchSeesOtherProcesses(dataDir: string): boolean {
  return dataDir === DENO_DEPLOY_KV || /^https:\/\//.test(dataDir);
}

/** Whether `err` is SQLite's "database is locked" (another process holds the write lock). */
export function isDatabaseLocked(err: unknown): boolean {
  return err instanceof Error && /database (table )?is locked|SQLITE_BUSY/i.test(err.message);
}

/** How long a write waits for another process's lock before the error reaches the caller. */
const LOCK_WAIT_MS = 10_000;

/** The longest pause between two tries: short, since a live edit waits on it. */
const LOCK_BACKOFF_CAP_MS = 10;

/**
 * Runs `op` again while it fails with "database is locked": several processes writing one
 * SQLite file (instances sharing DATA_DIR) collide, and SQLite answers the loser at once
 * instead of waiting. A locked write did not happen, so running it again is safe. Backs off
 * with jitter from 1 ms up to 10 ms, for at most LOCK_WAIT_MS.
 */
export async function retryWhileLocked<T>(op: () => Promise<T>): Promise<T> {
  const deadline = Date.now() + LOCK_WAIT_MS;
  for (let attempt = 0;; attempt++) {
    try {
      return await op();
    } catch (err) {
      if (!isDatabaseLocked(err) || Date.now() > deadline) throw err;
      const cap = Math.min(LOCK_BACKOFF_CAP_MS, 2 ** attempt);
      await new Promise((r) => setTimeout(r, 1 + Math.random() * cap));
    }
  }
}

/**
 * `kv` with every write (`set`, `delete`, an atomic `commit`) and point read retried while the
 * SQLite file is locked by another process (`retryWhileLocked`). Lists and watches pass
 * through: SQLite's WAL mode never locks readers out.
 */
export function withLockRetry(kv: Deno.Kv): Deno.Kv {
  const retried =
    (name: "get" | "getMany" | "set" | "delete" | "enqueue") => (...args: unknown[]) =>
      retryWhileLocked(() => (kv[name] as (...a: unknown[]) => Promise<unknown>).apply(kv, args));
  return overrideKv(kv, {
    get: retried("get"),
    getMany: retried("getMany"),
    set: retried("set"),
    delete: retried("delete"),
    enqueue: retried("enqueue"),
    atomic: () => wrapCommit(kv.atomic(), (commit) => retryWhileLocked(commit)),
  });
}

/** `kv` with some members replaced; every other member is `kv`'s own (methods bound to it). */
export function overrideKv(kv: Deno.Kv, overrides: Partial<Record<keyof Deno.Kv, unknown>>) {
  return new Proxy(kv, {
    get(target, prop) {
      if (Object.hasOwn(overrides, prop)) return overrides[prop as keyof Deno.Kv];
      const value = Reflect.get(target, prop, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

/** `op` whose `commit` runs through `wrap` (given the original commit). */
export function wrapCommit(
  op: Deno.AtomicOperation,
  wrap: (commit: () => Promise<Deno.KvCommitResult | Deno.KvCommitError>) => Promise<
    Deno.KvCommitResult | Deno.KvCommitError
  >,
): Deno.AtomicOperation {
  const commit = op.commit.bind(op);
  op.commit = () => wrap(commit);
  return op;
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
