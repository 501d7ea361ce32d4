/**
 * Key families and their backup classes. A key family is every key with one first part (a
 * plural snake_case collection such as `"users"`); the module that writes a family declares
 * it here with what a backup does with it:
 *
 * - `data`: exported by a backup, wiped and written back by a restore;
 * - `session`: sessions and one-time secrets, never exported, wiped by a restore (and dropped
 *   from an archive being restored), so after a restore everyone signs in again;
 * - `derived`: what the service builds from its data (the secondary indexes paged lists read,
 *   and the marker saying they are built): never exported, wiped by a restore like a session,
 *   and built again from the restored data by the service (`buildIndexes` in `kv_pages.ts`);
 * - `local`: this deployment's own state (queue entries, delivery markers, dead letters, the
 *   read cache's counter, signing keys, throttles and rate-limit windows), neither exported
 *   nor wiped nor written by a restore.
 *
 * Each service's `keys.ts` declares every family it writes, the ones written for it by shared
 * modules (queue, delivery, read cache) included: that declaration is the one list its backup
 * and restore read, and a test lists every key the running services wrote against it.
 */

export type BackupClass = "data" | "session" | "derived" | "local";

/** A keyspace's families: first key part to backup class. */
export type KeyFamilies = Readonly<Record<string, BackupClass>>;

/**
 * One declaration made of several (a service's own families and those of the shared modules
 * it writes through). A family declared twice must have the same class both times.
 */
export function declareKeys(...parts: KeyFamilies[]): KeyFamilies {
  const out: Record<string, BackupClass> = {};
  for (const part of parts) {
    for (const [family, backup] of Object.entries(part)) {
      const before = Object.hasOwn(out, family) ? out[family] : undefined;
      if (before && before !== backup) {
        throw new Error(`key family ${family} is declared both ${before} and ${backup}`);
      }
      out[family] = backup;
    }
  }
  return Object.freeze(out);
}

/** The family of `key` (its first part, when a string), or null. */
export function familyOf(key: Deno.KvKey): string | null {
  return typeof key[0] === "string" ? key[0] : null;
}

/** The declared class of `key`'s family, or undefined when `families` does not declare it. */
export function backupClassOf(families: KeyFamilies, key: Deno.KvKey): BackupClass | undefined {
  const family = familyOf(key);
  return family !== null && Object.hasOwn(families, family) ? families[family] : undefined;
}

/**
 * A key as a string, one per key: each part tagged with its type, strings and bytes
 * length-prefixed so that no two keys share one.
 */
export function keyId(key: Deno.KvKey): string {
  let id = "";
  for (const part of key) {
    if (typeof part === "string") id += `s${part.length}:${part}`;
    else if (typeof part === "number") id += `n${part};`;
    else if (typeof part === "bigint") id += `b${part};`;
    else if (typeof part === "boolean") id += part ? "t;" : "f;";
    else if (part instanceof Uint8Array) id += `u${part.length}:${part.join(",")};`;
    else id += `?${String(part)};`; // not a part KV takes: the read itself refuses it
  }
  return id;
}
