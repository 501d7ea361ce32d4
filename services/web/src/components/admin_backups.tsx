/**
 * The admin screen's backups: create one (synchronous), list them newest first, download
 * through the presigned URL, upload a ZIP through the presigned PUT URL with a progress bar,
 * and restore with the job's live status (`?job=` keeps it in the URL, so a reload or a
 * shared link still follows it).
 */
import { useEffect, useRef, useState } from "preact/hooks";
import { ApiError, type Schemas } from "../state/api.ts";
import {
  backupDownloadUrl,
  backupUploadTarget,
  createBackup,
  loadBackups,
  startRestore,
  watchRestoreJob,
} from "../state/admin.ts";
import { navigate, url } from "../router.tsx";
import { formatBytes, formatDateTime } from "./admin_format.ts";
import { useConfirm } from "./confirm_dialog.tsx";
import { EmptyState } from "./empty_state.tsx";
import { ErrorMessage } from "./error_message.tsx";
import { Loading } from "./loading.tsx";
import { useResource } from "./use_resource.ts";

type Backup = Schemas["BackupList"]["backups"][number];
type RestoreJob = Schemas["RestoreJob"];

export const RESTORE_POLL_MS = 1_000;

function backupLabel(b: Backup): string {
  const imported = b.timestamp.startsWith("upload-");
  return `${imported ? "Uploaded" : "Backup"} ${formatDateTime(b.created_at)}`;
}

export function AdminBackups() {
  const list = useResource(loadBackups, []);
  const jobId = url.value.search.get("job");
  const [dialog, ask] = useConfirm();
  const [creating, setCreating] = useState(false);
  const [createError, setCreateError] = useState<unknown>(null);
  const [created, setCreated] = useState<Schemas["CreatedBackup"] | null>(null);
  const [busy, setBusy] = useState<string | null>(null);
  const [rowErrors, setRowErrors] = useState<Record<string, unknown>>({});

  const create = async () => {
    setCreating(true);
    setCreateError(null);
    setCreated(null);
    try {
      setCreated(await createBackup());
      list.reload();
    } catch (err) {
      setCreateError(err);
    } finally {
      setCreating(false);
    }
  };

  const rowAction = async (key: string, action: () => Promise<void>) => {
    setBusy(key);
    setRowErrors((e) => ({ ...e, [key]: null }));
    try {
      await action();
    } catch (err) {
      setRowErrors((e) => ({ ...e, [key]: err }));
    } finally {
      setBusy(null);
    }
  };

  const download = (b: Backup) =>
    rowAction(b.key, async () => {
      const href = await backupDownloadUrl(b.key);
      const a = document.createElement("a");
      a.href = href;
      a.download = b.key.slice(b.key.lastIndexOf("/") + 1);
      document.body.appendChild(a);
      a.click();
      a.remove();
    });

  const restore = async (key: string, label: string) => {
    const sure = await ask({
      title: `Restore ${label}?`,
      body: (
        <>
          <p>
            Everything stored now (accounts, workspaces, ideas, posts, comments, actions and files)
            is replaced by this backup's contents. Changes made since it was taken are lost.
          </p>
          <p>Everyone, you included, signs in again afterwards.</p>
        </>
      ),
      confirmLabel: "Restore",
    });
    if (!sure) return;
    await rowAction(key, async () => {
      const started = await startRestore(key);
      navigate(`/admin?tab=backups&job=${encodeURIComponent(started.job_id)}`, { replace: true });
    });
  };

  const backups = list.data?.backups ?? [];
  return (
    <div class="stack">
      {dialog}
      {jobId && <RestoreStatus jobId={jobId} onFinished={list.reload} />}
      <section class="card admin-card" aria-labelledby="backup-create-title">
        <h2 id="backup-create-title">Create a backup</h2>
        <p class="admin-muted">
          One ZIP file with every service's data and every uploaded file. It takes a moment.
        </p>
        <div>
          <button type="button" class="button" disabled={creating} onClick={() => void create()}>
            {creating ? "Creating backup…" : "Create backup"}
          </button>
        </div>
        <p class="admin-status" role="status">
          {created &&
            `Backup created: ${created.item_count.toLocaleString()} records, ${created.asset_count.toLocaleString()} files, ${
              formatBytes(created.size_bytes)
            }.`}
        </p>
        <ErrorMessage error={createError} onRetry={() => void create()} />
      </section>

      <UploadBackup
        onUploaded={() => list.reload()}
        onRestore={(key) => void restore(key, "the uploaded backup")}
      />

      <section aria-labelledby="backup-list-title" class="stack">
        <h2 id="backup-list-title">Saved backups</h2>
        {list.loading && !list.data
          ? <Loading label="Loading backups" />
          : list.error
          ? <ErrorMessage error={list.error} onRetry={list.reload} />
          : backups.length === 0
          ? (
            <EmptyState title="No backups yet">
              <p>Create one above, or upload a backup ZIP from another installation.</p>
            </EmptyState>
          )
          : (
            <ul class="admin-list" aria-label="Backups">
              {backups.map((b) => {
                const label = backupLabel(b);
                return (
                  <li key={b.key} class="admin-row">
                    <div class="admin-row-main">
                      <span class="admin-row-title">{label}</span>
                      <span class="admin-row-meta">
                        <code>{b.key}</code> · {formatBytes(b.size_bytes)}
                      </span>
                    </div>
                    <div class="admin-row-actions">
                      <button
                        type="button"
                        class="button secondary"
                        disabled={busy === b.key}
                        onClick={() => void download(b)}
                      >
                        Download<span class="visually-hidden">{` ${label}`}</span>
                      </button>
                      <button
                        type="button"
                        class="button secondary danger"
                        disabled={busy === b.key}
                        onClick={() => void restore(b.key, label)}
                      >
                        Restore<span class="visually-hidden">{` ${label}`}</span>
                      </button>
                    </div>
                    <ErrorMessage error={rowErrors[b.key]} />
                  </li>
                );
              })}
            </ul>
          )}
      </section>
    </div>
  );
}

const JOB_TEXT: Record<RestoreJob["status"], string> = {
  queued: "Restore queued: waiting to start",
  running: "Restore running…",
  succeeded: "Restore succeeded",
  failed: "Restore failed",
};

/** A restore job's live status, asked for every second until it has finished. */
function RestoreStatus({ jobId, onFinished }: { jobId: string; onFinished: () => void }) {
  const [job, setJob] = useState<RestoreJob | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [tick, setTick] = useState(0);
  useEffect(() =>
    watchRestoreJob(jobId, RESTORE_POLL_MS, {
      onJob: (next) => {
        setJob(next);
        setError(null);
      },
      onError: setError,
      onFinished,
    }), [jobId, tick]);
  const state = job?.status;
  return (
    <section
      class={`card admin-card restore-status ${state ? `restore-${state}` : ""}`}
      aria-labelledby="restore-title"
    >
      <h2 id="restore-title">Restore</h2>
      <div role="status" class="restore-line">
        {(!state || state === "queued" || state === "running") && !error && (
          <span class="spinner" aria-hidden="true" />
        )}
        <span>
          {state ? JOB_TEXT[state] : error ? "Restore status unknown" : "Checking restore…"}
        </span>
      </div>
      {job && (
        <p class="admin-muted">
          <code>{job.key}</code>
          {job.started_at && ` · started ${formatDateTime(job.started_at)}`}
          {job.finished_at && ` · finished ${formatDateTime(job.finished_at)}`}
        </p>
      )}
      {state === "failed" && job?.error && <ErrorMessage error={new Error(job.error)} />}
      {state === "succeeded" && (
        <p>
          Everything now matches the backup. Every session ended with it: people sign in again (you
          too, the next time you open the app).
        </p>
      )}
      <ErrorMessage error={error} onRetry={() => setTick((n) => n + 1)} />
      {(state === "succeeded" || state === "failed" || error !== null) && (
        <div>
          <button
            type="button"
            class="button secondary"
            onClick={() => navigate("/admin?tab=backups", { replace: true })}
          >
            Dismiss
          </button>
        </div>
      )}
    </section>
  );
}

/** Picks a ZIP, PUTs it to the presigned URL with a progress bar, then offers to restore it. */
function UploadBackup(
  { onUploaded, onRestore }: { onUploaded: () => void; onRestore: (key: string) => void },
) {
  const [file, setFile] = useState<File | null>(null);
  const [fileError, setFileError] = useState<string | null>(null);
  const [progress, setProgress] = useState<number | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [uploadedKey, setUploadedKey] = useState<string | null>(null);
  const xhrRef = useRef<XMLHttpRequest | null>(null);
  const inputRef = useRef<HTMLInputElement>(null);
  useEffect(() => () => xhrRef.current?.abort(), []);

  const upload = async (e: Event) => {
    e.preventDefault();
    setError(null);
    setUploadedKey(null);
    if (!file) {
      setFileError("Choose a backup ZIP file first");
      inputRef.current?.focus();
      return;
    }
    if (!/\.zip$/i.test(file.name)) {
      setFileError("Choose a .zip file: a backup downloaded from this page");
      inputRef.current?.focus();
      return;
    }
    setFileError(null);
    setProgress(0);
    try {
      const target = await backupUploadTarget();
      await new Promise<void>((resolve, reject) => {
        const xhr = new XMLHttpRequest();
        xhrRef.current = xhr;
        xhr.open("PUT", target.url);
        xhr.setRequestHeader("Content-Type", "application/zip");
        xhr.upload.onprogress = (ev) => {
          if (ev.lengthComputable) setProgress(Math.round((ev.loaded / ev.total) * 100));
        };
        xhr.onload = () => {
          if (xhr.status >= 200 && xhr.status < 300) return resolve();
          let message = `The upload failed (${xhr.status})`;
          try {
            message = JSON.parse(xhr.responseText).error ?? message;
          } catch { /* not JSON */ }
          reject(new ApiError(xhr.status, message));
        };
        xhr.onerror = () =>
          reject(new ApiError(0, "The upload failed. Check your connection and try again"));
        xhr.onabort = () => reject(new Error("Upload cancelled"));
        xhr.send(file);
      });
      setProgress(100);
      setUploadedKey(target.key);
      setFile(null);
      if (inputRef.current) inputRef.current.value = "";
      onUploaded();
    } catch (err) {
      setError(err);
    } finally {
      xhrRef.current = null;
      setProgress(null);
    }
  };

  const uploading = progress !== null;
  return (
    <section class="card admin-card" aria-labelledby="backup-upload-title">
      <h2 id="backup-upload-title">Upload a backup</h2>
      <form onSubmit={upload} class="admin-upload">
        <div class="field">
          <label for="backup-file">Backup ZIP file</label>
          <input
            ref={inputRef}
            id="backup-file"
            type="file"
            accept=".zip,application/zip"
            disabled={uploading}
            aria-describedby={fileError ? "backup-file-error" : undefined}
            aria-invalid={fileError ? true : undefined}
            onChange={(e) => {
              setFile(e.currentTarget.files?.[0] ?? null);
              setFileError(null);
            }}
          />
          {fileError && <p id="backup-file-error" class="field-error">{fileError}</p>}
        </div>
        <div class="admin-upload-actions">
          <button type="submit" class="button secondary" disabled={uploading}>
            {uploading ? "Uploading…" : "Upload"}
          </button>
          {uploading && (
            <button
              type="button"
              class="button secondary"
              onClick={() => xhrRef.current?.abort()}
            >
              Cancel upload
            </button>
          )}
        </div>
      </form>
      {uploading && (
        <div class="admin-progress">
          <label for="backup-progress">Upload progress</label>
          <progress id="backup-progress" max={100} value={progress ?? 0}>{progress}%</progress>
          <span aria-hidden="true">{progress}%</span>
        </div>
      )}
      <ErrorMessage error={error} />
      <div role="status" class="admin-status">
        {uploadedKey && (
          <p>
            Uploaded as <code>{uploadedKey}</code>. It is in the list below.
          </p>
        )}
      </div>
      {uploadedKey && (
        <div>
          <button type="button" class="button danger" onClick={() => onRestore(uploadedKey)}>
            Restore the uploaded backup
          </button>
        </div>
      )}
    </section>
  );
}
