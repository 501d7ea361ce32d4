/** The admin screen's workspaces: every one, soft-deleted ones included; delete or recover. */
import { useState } from "preact/hooks";
import type { Schemas } from "../state/api.ts";
import {
  deleteAdminWorkspace,
  loadAdminWorkspaces,
  recoverAdminWorkspace,
} from "../state/admin.ts";
import { formatDate, formatDateTime } from "./admin_format.ts";
import { useConfirm } from "./confirm_dialog.tsx";
import { EmptyState } from "./empty_state.tsx";
import { ErrorMessage } from "./error_message.tsx";
import { Loading } from "./loading.tsx";
import { useResource } from "./use_resource.ts";

type AdminWorkspace = Schemas["AdminWorkspace"];

export function AdminWorkspaces() {
  const list = useResource(loadAdminWorkspaces, []);
  const [dialog, ask] = useConfirm();
  const [busy, setBusy] = useState<string | null>(null);
  const [errors, setErrors] = useState<Record<string, unknown>>({});
  const [done, setDone] = useState<string | null>(null);

  if (list.loading && !list.data) return <Loading label="Loading workspaces" />;
  if (list.error) return <ErrorMessage error={list.error} onRetry={list.reload} />;
  const all = [...(list.data?.workspaces ?? [])].sort((a, b) =>
    a.status === b.status ? a.name.localeCompare(b.name) : a.status === "active" ? -1 : 1
  );

  const act = async (w: AdminWorkspace, action: "delete" | "recover") => {
    if (action === "delete") {
      const sure = await ask({
        title: `Delete ${w.name}?`,
        body: (
          <p>
            Its members lose access at once. Its posts, ideas and members are kept, and an admin can
            recover the workspace here.
          </p>
        ),
        confirmLabel: "Delete workspace",
      });
      if (!sure) return;
    }
    setBusy(w.workspace_id);
    setErrors((e) => ({ ...e, [w.workspace_id]: null }));
    try {
      if (action === "delete") await deleteAdminWorkspace(w.workspace_id);
      else await recoverAdminWorkspace(w.workspace_id);
      setDone(`${w.name} is ${action === "delete" ? "deleted" : "recovered"}.`);
      list.reload();
    } catch (err) {
      setErrors((e) => ({ ...e, [w.workspace_id]: err }));
    } finally {
      setBusy(null);
    }
  };

  return (
    <div class="stack">
      {dialog}
      <p class="admin-status" role="status">{done}</p>
      {all.length === 0
        ? (
          <EmptyState title="No workspaces yet">
            <p>Workspaces appear here once someone creates one from the home screen.</p>
          </EmptyState>
        )
        : (
          <ul class="admin-list" aria-label="Workspaces">
            {all.map((w) => {
              const deleted = w.status === "deleted";
              return (
                <li key={w.workspace_id} class={deleted ? "admin-row muted" : "admin-row"}>
                  <div class="admin-row-main">
                    <span class="admin-row-title">
                      {w.name}
                      {deleted && (
                        <span class="badge status-rejected">
                          Deleted {formatDate(w.deleted_at)}
                        </span>
                      )}
                    </span>
                    <span class="admin-row-meta">
                      Owner {w.owner_name || w.owner_email || "unknown"}
                      {w.owner_email && w.owner_name ? ` (${w.owner_email})` : ""} · created{" "}
                      {formatDateTime(w.created_at)}
                    </span>
                    {w.description && <span class="admin-row-meta">{w.description}</span>}
                  </div>
                  <div class="admin-row-actions">
                    {deleted
                      ? (
                        <button
                          type="button"
                          class="button secondary"
                          disabled={busy === w.workspace_id}
                          onClick={() => void act(w, "recover")}
                        >
                          Recover<span class="visually-hidden">{` ${w.name}`}</span>
                        </button>
                      )
                      : (
                        <button
                          type="button"
                          class="button secondary danger"
                          disabled={busy === w.workspace_id}
                          onClick={() => void act(w, "delete")}
                        >
                          Delete<span class="visually-hidden">{` ${w.name}`}</span>
                        </button>
                      )}
                  </div>
                  <ErrorMessage error={errors[w.workspace_id]} />
                </li>
              );
            })}
          </ul>
        )}
    </div>
  );
}
