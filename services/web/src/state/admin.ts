/**
 * The platform admin's data: users (approve, reject, role, enable), workspaces (delete,
 * recover), backups (create, download, upload, restore and its job) and metrics.
 */
import { ApiError, call, client } from "./api.ts";
import { countPending, loadPendingAccounts, pendingAccounts } from "./admin_pending.ts";

export { loadPendingAccounts, pendingAccounts };

export async function loadUsers(status?: "pending") {
  if (!status) return await call(client().GET("/api/admin/users"));
  const data = await call(client().GET("/api/admin/users", { params: { query: { status } } }));
  countPending(data.users);
  return data;
}

/** After an approval or a rejection, the badge follows (when it was read at all). */
async function recount() {
  if (pendingAccounts.value !== null) await loadPendingAccounts().catch(() => {});
}

export async function approveUser(id: string) {
  const user = await call(
    client().POST("/api/admin/users/{id}/approve", { params: { path: { id } } }),
  );
  await recount();
  return user;
}

export async function rejectUser(id: string) {
  const user = await call(
    client().POST("/api/admin/users/{id}/reject", { params: { path: { id } } }),
  );
  await recount();
  return user;
}

export function setUserRole(id: string, role: "admin" | "member") {
  return call(
    client().PUT("/api/admin/users/{id}/role", {
      params: { path: { id } },
      body: { role },
    }),
  );
}

export function setUserEnabled(id: string, enabled: boolean) {
  return call(
    client().PUT("/api/admin/users/{id}/status", {
      params: { path: { id } },
      body: { enabled },
    }),
  );
}

export function loadAdminWorkspaces() {
  return call(client().GET("/api/admin/workspaces"));
}

export async function deleteAdminWorkspace(workspaceId: string): Promise<void> {
  await call(
    client().DELETE("/api/admin/workspaces/{workspace_id}", {
      params: { path: { workspace_id: workspaceId } },
    }),
  );
}

export async function recoverAdminWorkspace(workspaceId: string): Promise<void> {
  await call(
    client().POST("/api/admin/workspaces/{workspace_id}/recover", {
      params: { path: { workspace_id: workspaceId } },
    }),
  );
}

export function loadBackups() {
  return call(client().GET("/api/admin/backups"));
}

export function createBackup() {
  return call(client().POST("/api/admin/backups"));
}

/** A short-lived link to download one backup. */
export async function backupDownloadUrl(key: string): Promise<string> {
  const { url } = await call(
    client().GET("/api/admin/backups/download", {
      params: { query: { key } },
    }),
  );
  return url;
}

/** Where to upload a backup file (a ZIP) before restoring it. */
export function backupUploadTarget() {
  return call(client().POST("/api/admin/backups/upload-url"));
}

export function startRestore(key: string) {
  return call(client().POST("/api/admin/backups/restore", { body: { key } }));
}

export function loadRestoreJob(jobId: string) {
  return call(
    client().GET("/api/admin/restores/{job_id}", {
      params: { path: { job_id: jobId } },
    }),
  );
}

export function loadMetrics() {
  return call(client().GET("/api/admin/metrics"));
}

type RestoreJob = Awaited<ReturnType<typeof loadRestoreJob>>;

/**
 * Asks for a restore job's status every `everyMs` until it has finished (or is unknown: 404),
 * telling `onJob` each answer and `onError` each failure. Answers the function that stops it.
 */
export function watchRestoreJob(
  jobId: string,
  everyMs: number,
  on: { onJob: (job: RestoreJob) => void; onError: (err: unknown) => void; onFinished: () => void },
): () => void {
  let live = true;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const poll = async () => {
    try {
      const next = await loadRestoreJob(jobId);
      if (!live) return;
      on.onJob(next);
      if (next.status === "succeeded" || next.status === "failed") {
        on.onFinished();
        return;
      }
    } catch (err) {
      if (!live) return;
      on.onError(err);
      if (err instanceof ApiError && err.status === 404) return;
    }
    timer = setTimeout(poll, everyMs);
  };
  void poll();
  return () => {
    live = false;
    clearTimeout(timer);
  };
}
