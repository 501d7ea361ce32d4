import type { AssetStore } from "../../shared/assets/store.ts";
import { errorMessage, errorText, type Logger } from "../../shared/log.ts";
import type { QueueHandlers } from "../../shared/queue/queue.ts";
import { withHeapWatch } from "../../shared/runtime/heap_watch.ts";
import { nowIso } from "../../shared/time.ts";
import type { AuthClient } from "../auth/client.ts";
import { applyArchive, mapUserIds, RestoreValidationError, validateArchive } from "./backups.ts";
import type { KeyspaceClient } from "./peers.ts";
import type { AdminJob } from "./schemas.ts";
import type { AdminStore } from "./store.ts";

export interface RestoreDeps {
  store: AdminStore;
  assets: AssetStore | null;
  keyspaces: KeyspaceClient;
  auth: AuthClient;
  logger: Logger;
  restoreMaxBytes: number;
}

/** One restore at a time in this process: two would wipe each other's keyspaces. */
let running: Promise<void> = Promise.resolve();

/**
 * Runs a restore job to its end state and records it. Idempotent: a job already finished is
 * left alone; a job found `running` (the process stopped under it) is run again from the
 * start with the id map it had settled on. A failure is recorded, not retried.
 */
export function runRestore(deps: RestoreDeps, jobId: string): Promise<void> {
  const next = running.then(() => withHeapWatch(() => restore(deps, jobId)));
  running = next.catch(() => {});
  return next;
}

async function restore(deps: RestoreDeps, jobId: string): Promise<void> {
  const { store, logger } = deps;
  const job = await store.getRestore(jobId);
  if (!job || job.status === "succeeded" || job.status === "failed") return;
  await store.markRunning(jobId);
  const log = logger.child({ job_id: jobId, key: job.key });
  log.info("restore started");
  try {
    if (!deps.assets) throw new RestoreValidationError("Asset storage not configured");
    const plan = await validateArchive(deps.assets, job.key, {
      maxBytes: deps.restoreMaxBytes,
      services: deps.keyspaces.services(),
    });
    let idMap = await store.getIdMap(jobId);
    if (!idMap) {
      idMap = mapUserIds(plan.backupUsers, await deps.auth.listUsers());
      await store.saveIdMap(jobId, idMap);
    }
    const result = await applyArchive(
      { assets: deps.assets, keyspaces: deps.keyspaces },
      job.key,
      plan,
      idMap,
    );
    await store.updateRestore(jobId, { status: "succeeded", error: null, finished_at: nowIso() });
    log.info("restore succeeded", { ...result, remapped_users: idMap.size });
  } catch (err) {
    const error = err instanceof RestoreValidationError
      ? err.message
      : `Restore failed: ${errorText(err)}`;
    await store.updateRestore(jobId, { status: "failed", error, finished_at: nowIso() });
    log.warn("restore failed", { error, detail: errorMessage(err) });
  }
}

export function adminJobHandlers(deps: RestoreDeps): QueueHandlers<AdminJob> {
  return { restore: (message) => runRestore(deps, message.job_id) };
}
