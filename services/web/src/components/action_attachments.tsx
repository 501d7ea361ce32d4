/**
 * An action's attachments: listed with their download links (fresh for an hour at each
 * listing), uploaded through the presigned URL (the bytes go straight to the asset store with
 * XMLHttpRequest, which reports progress), and deleted.
 */
import { useState } from "preact/hooks";
import { ApiError } from "../state/api.ts";
import { addAttachment, loadAttachments, removeAttachment } from "../state/actions.ts";
import { ErrorMessage } from "./error_message.tsx";
import { Loading } from "./loading.tsx";
import { useResource } from "./use_resource.ts";
import { ConfirmDialog } from "./workspace_dialog.tsx";
import { formatWhen } from "./workspace_form.tsx";

/** The extensions the API accepts, and the Content-Type each must be uploaded with. */
export const ATTACHMENT_TYPES: Record<string, string> = {
  png: "image/png",
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  svg: "image/svg+xml",
  webp: "image/webp",
  pdf: "application/pdf",
};
const ACCEPT = Object.keys(ATTACHMENT_TYPES).map((e) => `.${e}`).join(",");
const MAX_BYTES = 25 * 1024 * 1024;

function extensionOf(name: string): string {
  const dot = name.lastIndexOf(".");
  return dot >= 0 ? name.slice(dot + 1).toLowerCase() : "";
}

/** PUTs the file to a presigned URL; `onProgress` gets 0..1. Rejects with the store's message. */
function putFile(
  url: string,
  file: File,
  contentType: string,
  onProgress: (share: number) => void,
): Promise<void> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open("PUT", url);
    xhr.setRequestHeader("Content-Type", contentType);
    xhr.upload.onprogress = (e) => {
      if (e.lengthComputable) onProgress(e.loaded / e.total);
    };
    xhr.onload = () => {
      if (xhr.status >= 200 && xhr.status < 300) {
        onProgress(1);
        resolve();
        return;
      }
      let message = `The upload failed (${xhr.status})`;
      try {
        const body = JSON.parse(xhr.responseText) as { error?: string };
        if (body.error) message = body.error;
      } catch {
        // not JSON: keep the status line
      }
      reject(new ApiError(xhr.status, message));
    };
    xhr.onerror = () =>
      reject(new ApiError(0, "The upload did not reach the server. Check your connection"));
    xhr.send(file);
  });
}

export function ActionAttachments(
  { workspaceId, actionId, actionTitle, onChanged }: {
    workspaceId: string;
    actionId: string;
    actionTitle: string;
    onChanged?: () => void;
  },
) {
  const list = useResource(
    () => loadAttachments(workspaceId, actionId),
    [workspaceId, actionId],
  );
  const [upload, setUpload] = useState<{ name: string; share: number } | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [deleting, setDeleting] = useState<{ key: string; filename: string } | null>(null);
  const inputId = `attach-${actionId}`;

  const send = async (file: File) => {
    setError(null);
    const ext = extensionOf(file.name);
    const contentType = ATTACHMENT_TYPES[ext];
    if (!contentType) {
      setError(
        new Error(`${file.name} cannot be attached: use a PNG, JPG, SVG, WebP or PDF file`),
      );
      return;
    }
    if (file.size > MAX_BYTES) {
      setError(new Error(`${file.name} is larger than 25 MB`));
      return;
    }
    setUpload({ name: file.name, share: 0 });
    let key: string | null = null;
    try {
      const target = await addAttachment(workspaceId, actionId, file.name, contentType);
      key = target.key;
      await putFile(
        target.uploadUrl,
        file,
        contentType,
        (share) => setUpload({ name: file.name, share }),
      );
      list.reload();
      onChanged?.();
    } catch (err) {
      setError(err);
      // the entry is recorded before the upload: take it back so no dead link stays listed
      if (key) {
        await removeAttachment(workspaceId, actionId, key).catch(() => {});
      }
    } finally {
      setUpload(null);
    }
  };

  const items = list.data?.items ?? [];
  return (
    <section class="attachments" aria-label={`Attachments of ${actionTitle}`}>
      <h3 class="small-heading">Attachments</h3>
      {list.loading && !list.data && <Loading label="Loading attachments" />}
      {list.error ? <ErrorMessage error={list.error} onRetry={list.reload} /> : null}
      {list.data && items.length === 0 && !upload && (
        <p class="wa-muted">No files yet. Attach a screenshot, a visual or a PDF below.</p>
      )}
      {items.length > 0 && (
        <ul class="attachment-list">
          {items.map((a) => (
            <li key={a.key} class="attachment-row">
              <a href={a.downloadUrl} download={a.filename} class="attachment-link">
                <span class="file-kind" aria-hidden="true">{extensionOf(a.filename)}</span>
                {a.filename}
              </a>
              <span class="wa-muted wa-small">{formatWhen(a.uploaded_at)}</span>
              <button
                type="button"
                class="button secondary wa-small"
                aria-label={`Delete attachment ${a.filename}`}
                onClick={() => setDeleting({ key: a.key, filename: a.filename })}
              >
                Delete
              </button>
            </li>
          ))}
        </ul>
      )}
      {upload && (
        <div class="upload-progress">
          <label for={`${inputId}-progress`}>Uploading {upload.name}</label>
          <progress id={`${inputId}-progress`} max={100} value={Math.round(upload.share * 100)}>
            {Math.round(upload.share * 100)}%
          </progress>
          <span aria-hidden="true">{Math.round(upload.share * 100)}%</span>
        </div>
      )}
      <div class="attach-input">
        <label for={inputId} class="field-label">Attach a file</label>
        <input
          id={inputId}
          class="file-input"
          type="file"
          accept={ACCEPT}
          disabled={!!upload}
          aria-describedby={`${inputId}-rule`}
          onChange={(e) => {
            const input = e.currentTarget;
            const file = input.files?.[0];
            input.value = "";
            if (file) void send(file);
          }}
        />
        <span class="wa-muted wa-small" id={`${inputId}-rule`}>
          PNG, JPG, SVG, WebP or PDF, up to 25 MB (the only types the service stores).
        </span>
      </div>
      <ErrorMessage error={error} />
      <ConfirmDialog
        open={!!deleting}
        title="Delete attachment"
        confirmLabel="Delete"
        onClose={() => setDeleting(null)}
        onConfirm={async () => {
          await removeAttachment(workspaceId, actionId, deleting!.key);
          list.reload();
          onChanged?.();
        }}
      >
        <p>
          Delete <strong>{deleting?.filename}</strong> from this action?
        </p>
      </ConfirmDialog>
    </section>
  );
}
