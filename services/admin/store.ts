/**
 * The only code that touches the admin service's KV. The admin keyspace is operational state
 * (backup metadata, restore jobs); it is not itself part of a backup, so a restore never
 * overwrites the job that runs it.
 *
 * Keys:
 * - `["backups", key]` -> BackupRecord (reserved when a backup or an upload URL takes the key,
 *   completed when the backup is written; an object found in the store by the periodic sweep)
 * - `["restores", jobId]` -> RestoreJob
 * - `["restore_id_maps", jobId, oldUserId]` -> new user id (kept so a rerun maps the same way)
 * - `["restore_id_maps_done", jobId]` -> true once the whole map is stored
 */
import { newId } from "../../shared/crypto/ids.ts";
import { retryCommit } from "../../shared/kv/kv.ts";
import type { ServiceQueue } from "../../shared/queue/queue.ts";
import { nowIso } from "../../shared/time.ts";
import type { AdminJob, BackupRecord, RestoreJob } from "./schemas.ts";
import { backupKey, idMapDoneKey, idMapKey, idMapPrefix, restoreKey } from "./keys.ts";

export class AdminStore {
  constructor(private readonly kv: Deno.Kv, private readonly queue: ServiceQueue<AdminJob>) {}

  /** Records a backup unless one is recorded under that key already; answers whether it was. */
  async addBackup(record: BackupRecord): Promise<boolean> {
    const res = await this.kv.atomic()
      .check({ key: backupKey(record.key), versionstamp: null })
      .set(backupKey(record.key), record)
      .commit();
    return res.ok;
  }

  /** Completes a reserved record with what the written backup holds. */
  async saveBackup(record: BackupRecord): Promise<void> {
    await this.kv.set(backupKey(record.key), record);
  }

  /** Drops a reservation whose backup was never written. */
  async removeBackup(key: string): Promise<void> {
    await this.kv.delete(backupKey(key));
  }

  async listBackups(): Promise<Map<string, BackupRecord>> {
    const out = new Map<string, BackupRecord>();
    for await (const e of this.kv.list<BackupRecord>({ prefix: ["backups"] })) {
      out.set(e.value.key, e.value);
    }
    return out;
  }

  /** A queued restore job, and its message, in one commit. */
  async createRestore(key: string): Promise<RestoreJob> {
    const job: RestoreJob = {
      job_id: newId(),
      key,
      status: "queued",
      error: null,
      started_at: null,
      finished_at: null,
    };
    const op = this.kv.atomic().check({ key: restoreKey(job.job_id), versionstamp: null })
      .set(restoreKey(job.job_id), job);
    this.queue.enqueue(op, { type: "restore", job_id: job.job_id });
    const res = await op.commit();
    if (!res.ok) throw new Error("The restore job could not be recorded");
    return job;
  }

  async getRestore(jobId: string): Promise<RestoreJob | null> {
    return (await this.kv.get<RestoreJob>(restoreKey(jobId))).value;
  }

  async updateRestore(jobId: string, patch: Partial<RestoreJob>): Promise<RestoreJob | null> {
    return await retryCommit<RestoreJob | null>(async () => {
      const entry = await this.kv.get<RestoreJob>(restoreKey(jobId));
      if (!entry.value) return { ok: true, value: null };
      const next = { ...entry.value, ...patch };
      const res = await this.kv.atomic().check(entry).set(restoreKey(jobId), next).commit();
      return res.ok ? { ok: true, value: next } : { ok: false };
    });
  }

  async markRunning(jobId: string): Promise<RestoreJob | null> {
    const job = await this.getRestore(jobId);
    if (!job) return null;
    return await this.updateRestore(jobId, {
      status: "running",
      started_at: job.started_at ?? nowIso(),
    });
  }

  /** The id map a job settled on, or null before it has one. */
  async getIdMap(jobId: string): Promise<Map<string, string> | null> {
    const out = new Map<string, string>();
    if ((await this.kv.get(idMapDoneKey(jobId))).versionstamp === null) return null;
    for await (const e of this.kv.list<string>({ prefix: idMapPrefix(jobId) })) {
      out.set(String(e.key[2]), e.value);
    }
    return out;
  }

  async saveIdMap(jobId: string, map: ReadonlyMap<string, string>): Promise<void> {
    let op = this.kv.atomic();
    let n = 0;
    for (const [oldId, newUserId] of map) {
      op.set(idMapKey(jobId, oldId), newUserId);
      if (++n % 500 === 0) {
        await op.commit();
        op = this.kv.atomic();
      }
    }
    op.set(idMapDoneKey(jobId), true);
    await op.commit();
  }
}
