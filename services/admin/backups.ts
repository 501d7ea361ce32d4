/**
 * Backup and restore of everything: every service's keyspace (through its
 * `/internal/backup/*` routes) and every asset, in one ZIP in the asset store.
 *
 * Archive layout: `kv/<service>.ndjson` (shared/archive/kv_backup.ts lines), `assets/<asset key>`
 * (the bytes, stored), and `manifest.json` last (format, version, per-service entry counts,
 * every asset's key, size and content type).
 *
 * A restore reads the archive twice, streamed. The first pass validates all of it and changes
 * nothing: every path (no absolute path, no `..`, only known top-level folders and services), a
 * bound on the decompressed size, every KV line decodable and within KV's limits on a key and a
 * value, the manifest understood and agreeing with what the archive holds. The second pass replaces each keyspace wholesale (user ids
 * rewritten to the accounts that have the same email here), re-uploads the assets and removes
 * assets the backup does not have. Both are idempotent, so a restore cut short by a crash can
 * run again to the same end state.
 */
import { z } from "zod";
import { SERVICE_NAMES, type ServiceName } from "../../shared/config.ts";
import { type AssetStore, keyProblem } from "../../shared/assets/store.ts";
import {
  decodeLine,
  entryProblem,
  LineSplitter,
  remapLine,
} from "../../shared/archive/kv_backup.ts";
import { errorText } from "../../shared/log.ts";
import type { UserProfile } from "../auth/client.ts";
import type { KeyspaceClient } from "./peers.ts";
import { BACKUP_PREFIX } from "./schemas.ts";
import { handoffSink, lentStreamFrom } from "./lent.ts";
import { ZipFormatError } from "../../shared/archive/zip_format.ts";
import { readZip, type ZipEntrySink } from "../../shared/archive/zip_reader.ts";
import { ZipWriter } from "../../shared/archive/zip_writer.ts";

export const MANIFEST_NAME = "manifest.json";
export const MANIFEST_FORMAT = "content-pipeline-backup";
export const MANIFEST_VERSION = 1;
const MAX_MANIFEST_BYTES = 64 * 1024 * 1024;

const BACKED_UP_SERVICES = SERVICE_NAMES.filter((n) => n !== "admin");

export const manifestSchema = z.object({
  format: z.literal(MANIFEST_FORMAT),
  version: z.literal(MANIFEST_VERSION),
  timestamp: z.string(),
  created_at: z.string(),
  item_count: z.number().int().min(0),
  asset_count: z.number().int().min(0),
  services: z.record(z.string(), z.object({ entries: z.number().int().min(0) })),
  assets: z.array(z.object({
    key: z.string(),
    size: z.number().int().min(0),
    content_type: z.string(),
  })),
});
export type Manifest = z.infer<typeof manifestSchema>;

/** What a backup is made of and a restore writes back: the asset store and the keyspaces. */
export interface ArchiveDeps {
  assets: AssetStore;
  keyspaces: KeyspaceClient;
}

// ------------------------------------------------------------------ backup

/** Where a backup goes: its key, and the timestamp and creation time its manifest states. */
export interface BackupTarget {
  key: string;
  timestamp: string;
  created_at: string;
}

/** What a written backup holds. */
export interface WrittenBackup {
  item_count: number;
  asset_count: number;
  size_bytes: number;
}

/** Builds the archive and streams it into the asset store under `target.key`. */
export async function writeBackup(
  deps: ArchiveDeps & { tmpDir: string },
  target: BackupTarget,
): Promise<WrittenBackup> {
  const { assets, keyspaces } = deps;
  const writer = new ZipWriter(deps.tmpDir);
  const manifest: Manifest = {
    format: MANIFEST_FORMAT,
    version: MANIFEST_VERSION,
    timestamp: target.timestamp,
    created_at: target.created_at,
    item_count: 0,
    asset_count: 0,
    services: {},
    assets: [],
  };

  async function* archive(): AsyncGenerator<Uint8Array> {
    for (const name of keyspaces.services()) {
      const body = await keyspaces.export(name);
      if (!body) continue;
      const counter = { entries: 0 };
      yield* writer.add(`kv/${name}.ndjson`, body.pipeThrough(countLines(counter)), {
        deflate: true,
      });
      manifest.services[name] = { entries: counter.entries };
      manifest.item_count += counter.entries;
    }
    for (const object of await assets.list("")) {
      if (object.key.startsWith(BACKUP_PREFIX)) continue;
      // Read twice (its CRC, then its bytes) rather than spooled: no copy of 100s of MiB.
      let contentType: string | null = null;
      const size = yield* writer.addStored(`assets/${object.key}`, async () => {
        const found = await assets.get(object.key);
        contentType ??= found?.contentType ?? null;
        return found?.body ?? null;
      });
      if (size === null) continue; // removed since it was listed
      manifest.assets.push({
        key: object.key,
        size,
        content_type: contentType ?? "application/octet-stream",
      });
    }
    manifest.asset_count = manifest.assets.length;
    const bytes = new TextEncoder().encode(JSON.stringify(manifest));
    yield* writer.add(MANIFEST_NAME, bytes, { deflate: true });
    yield* writer.finish();
  }

  await assets.put(target.key, lentStreamFrom(archive()), "application/zip");
  return {
    item_count: manifest.item_count,
    asset_count: manifest.asset_count,
    size_bytes: writer.size,
  };
}

function countLines(counter: { entries: number }) {
  return new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      for (let i = chunk.indexOf(10); i >= 0; i = chunk.indexOf(10, i + 1)) counter.entries++;
      controller.enqueue(chunk);
    },
  });
}

// ------------------------------------------------------------------ archive paths

/** Raised when an archive must not be restored; the message is the job's `error`. */
export class RestoreValidationError extends Error {}

type ArchivePath =
  | { type: "dir" }
  | { type: "manifest" }
  | { type: "kv"; service: ServiceName }
  | { type: "asset"; key: string };

/** What an entry path is, or a RestoreValidationError for one that may not be there. */
export function classifyPath(name: string): ArchivePath {
  const refuse = (why: string) =>
    new RestoreValidationError(`The archive holds a path that ${why}: ${JSON.stringify(name)}`);
  if (name.startsWith("/") || /^[a-zA-Z]:/.test(name) || name.includes("\\")) {
    throw refuse("is absolute");
  }
  const segments = name.split("/");
  if (segments.some((s) => s === "..")) throw refuse("escapes the archive");
  if (name === MANIFEST_NAME) return { type: "manifest" };
  if (name === "kv/" || name === "assets/") return { type: "dir" };
  const kv = /^kv\/([a-z]+)\.ndjson$/.exec(name);
  if (kv && (BACKED_UP_SERVICES as readonly string[]).includes(kv[1])) {
    return { type: "kv", service: kv[1] as ServiceName };
  }
  if (segments[0] === "assets") {
    if (name.endsWith("/")) {
      if (keyProblem(name.slice("assets/".length, -1)) === null) return { type: "dir" };
    } else {
      const key = name.slice("assets/".length);
      if (keyProblem(key) === null && !key.startsWith(BACKUP_PREFIX)) return { type: "asset", key };
    }
  }
  throw refuse("this service does not know");
}

// ------------------------------------------------------------------ validation

export interface ArchivePlan {
  manifest: Manifest;
  /** The backup's accounts: user id -> email (trimmed, lower-cased) */
  backupUsers: Map<string, string>;
}

/**
 * Reads the whole archive and refuses (RestoreValidationError) anything a restore must not
 * act on. Nothing is written.
 */
export async function validateArchive(
  assets: AssetStore,
  key: string,
  options: { maxBytes: number; services: readonly ServiceName[] },
): Promise<ArchivePlan> {
  const found = await assets.get(key);
  if (!found) throw new RestoreValidationError(`Backup not found: ${key}`);
  let total = 0;
  let manifestBytes: Uint8Array | null = null;
  const kvCounts = new Map<ServiceName, number>();
  const assetKeys = new Set<string>();
  const backupUsers = new Map<string, string>();
  const seen = new Set<string>();

  try {
    await readZip(found.body, {
      onBytes(n) {
        total += n;
        if (total > options.maxBytes) {
          throw new RestoreValidationError(
            `The archive decompresses to more than ${options.maxBytes} bytes`,
          );
        }
      },
      open(name): ZipEntrySink | null {
        const path = classifyPath(name);
        if (path.type === "dir") return null;
        if (seen.has(name)) {
          throw new RestoreValidationError(`The archive holds ${JSON.stringify(name)} twice`);
        }
        seen.add(name);
        if (path.type === "asset") {
          assetKeys.add(path.key);
          return null;
        }
        if (path.type === "manifest") {
          const parts: Uint8Array[] = [];
          let size = 0;
          return {
            write(chunk) {
              size += chunk.length;
              if (size > MAX_MANIFEST_BYTES) {
                throw new RestoreValidationError("The manifest is too large");
              }
              parts.push(chunk.slice());
            },
            close() {
              const all = new Uint8Array(size);
              let at = 0;
              for (const p of parts) all.set(p, (at += p.length) - p.length);
              manifestBytes = all;
            },
          };
        }
        const service = path.service;
        const lines = new LineSplitter();
        let count = 0;
        const check = (line: string) => {
          count++;
          let decoded;
          try {
            decoded = decodeLine(line);
          } catch (err) {
            throw new RestoreValidationError(
              `kv/${service}.ndjson line ${count} cannot be read: ${errorText(err)}`,
            );
          }
          const problem = entryProblem(decoded.key, decoded.value, line.length);
          if (problem) {
            throw new RestoreValidationError(
              `kv/${service}.ndjson line ${count} cannot be restored: ${problem}`,
            );
          }
          if (service === "auth") collectUser(decoded, backupUsers);
        };
        return {
          write(chunk) {
            for (const line of lines.push(chunk)) check(line);
          },
          close() {
            for (const line of lines.end()) check(line);
            kvCounts.set(service, count);
          },
        };
      },
    });
  } catch (err) {
    if (err instanceof ZipFormatError) throw new RestoreValidationError(err.message);
    throw err;
  }

  if (!manifestBytes) throw new RestoreValidationError("The archive has no manifest.json");
  let manifest: Manifest;
  try {
    const parsed = manifestSchema.safeParse(JSON.parse(new TextDecoder().decode(manifestBytes)));
    if (!parsed.success) throw new Error(parsed.error.issues[0]?.message);
    manifest = parsed.data;
  } catch (err) {
    throw new RestoreValidationError(
      `The manifest is not one this service understands (${errorText(err)})`,
    );
  }
  for (const [service, count] of kvCounts) {
    const listed = manifest.services[service];
    if (!listed || listed.entries !== count) {
      throw new RestoreValidationError(
        `kv/${service}.ndjson holds ${count} entries; the manifest says ${listed?.entries ?? 0}`,
      );
    }
  }
  for (const service of Object.keys(manifest.services)) {
    if (!kvCounts.has(service as ServiceName)) {
      throw new RestoreValidationError(`The manifest lists kv/${service}.ndjson, which is missing`);
    }
    if (!options.services.includes(service as ServiceName)) {
      throw new RestoreValidationError(
        `The archive holds data of the ${service} service, which this deployment does not run`,
      );
    }
  }
  const listedAssets = new Set(manifest.assets.map((a) => a.key));
  if (listedAssets.size !== assetKeys.size || [...assetKeys].some((k) => !listedAssets.has(k))) {
    throw new RestoreValidationError("The assets in the archive differ from the manifest's list");
  }
  return { manifest, backupUsers };
}

/** An account record of the auth keyspace: `["users", id]` with an email. */
function collectUser(entry: { key: Deno.KvKey; value: unknown }, out: Map<string, string>) {
  const [collection, id] = entry.key;
  const value = entry.value as { email?: unknown } | null;
  if (
    collection === "users" && entry.key.length === 2 && typeof id === "string" &&
    value && typeof value === "object" && typeof value.email === "string"
  ) {
    out.set(id, value.email.trim().toLowerCase());
  }
}

/** Backup user id -> the id of the account with the same email here (only where they differ). */
export function mapUserIds(
  backupUsers: ReadonlyMap<string, string>,
  current: readonly UserProfile[],
): Map<string, string> {
  const byEmail = new Map(current.map((u) => [u.email.trim().toLowerCase(), u.user_id]));
  const out = new Map<string, string>();
  for (const [oldId, email] of backupUsers) {
    const here = byEmail.get(email);
    if (here && here !== oldId) out.set(oldId, here);
  }
  return out;
}

// ------------------------------------------------------------------ apply

/** The second pass: replaces every keyspace and the assets with the archive's. */
export async function applyArchive(
  deps: ArchiveDeps,
  key: string,
  plan: ArchivePlan,
  idMap: ReadonlyMap<string, string>,
): Promise<{ items: number; assets: number }> {
  const { assets, keyspaces } = deps;
  const found = await assets.get(key);
  if (!found) throw new Error(`Backup not found: ${key}`);
  const contentTypes = new Map(plan.manifest.assets.map((a) => [a.key, a.content_type]));
  const imported = new Set<ServiceName>();
  const encoder = new TextEncoder();
  let items = 0;
  let assetCount = 0;

  await readZip(found.body, {
    open(name): ZipEntrySink | null {
      const path = classifyPath(name);
      if (path.type === "kv") {
        imported.add(path.service);
        const sink = handoffSink(async (body) => {
          const n = await keyspaces.import(path.service, body);
          if (n === null) throw new Error(`The ${path.service} service keeps no keyspace`);
          items += n;
        });
        // With no ids to rewrite the lines go through as they are (validated already).
        if (idMap.size === 0) return sink;
        const lines = new LineSplitter();
        let pending = "";
        const flush = async () => {
          if (!pending) return;
          const bytes = encoder.encode(pending);
          pending = "";
          await sink.write(bytes);
        };
        const send = async (taken: Iterable<string>) => {
          for (const line of taken) {
            pending += JSON.stringify(remapLine(JSON.parse(line), idMap)) + "\n";
            if (pending.length >= 16 * 1024) await flush();
          }
        };
        return {
          write: (chunk) => send(lines.push(chunk)),
          close: async () => {
            await send(lines.end());
            await flush();
            await sink.close();
          },
        };
      }
      if (path.type === "asset") {
        assetCount++;
        const type = contentTypes.get(path.key) ?? "application/octet-stream";
        return handoffSink((body) => assets.put(path.key, body, type));
      }
      return null;
    },
  });

  // A service with a keyspace here but none in the backup had no data then.
  for (const service of keyspaces.services()) {
    if (imported.has(service)) continue;
    await keyspaces.import(service, ReadableStream.from<Uint8Array>([]));
  }
  const keep = new Set(contentTypes.keys());
  for (const object of await assets.list("")) {
    if (object.key.startsWith(BACKUP_PREFIX) || keep.has(object.key)) continue;
    await assets.delete(object.key);
  }
  return { items, assets: assetCount };
}
