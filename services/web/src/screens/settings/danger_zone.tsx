/** Deleting the workspace (the owner), confirmed by typing its name. */
import { useState } from "preact/hooks";
import { ConfirmDialog } from "../../components/workspace_dialog.tsx";
import { navigate } from "../../router.tsx";
import { deleteWorkspace } from "../../state/workspaces.ts";
import type { Detail } from "./shared.tsx";

export function DangerZone({ detail }: { detail: Detail }) {
  const [open, setOpen] = useState(false);
  return (
    <section class="card settings-section danger-zone" aria-labelledby="danger-heading">
      <h2 id="danger-heading">Delete workspace</h2>
      <p>
        Deleting hides {detail.name}{" "}
        from every member. A platform admin can recover it; its posts and ideas are kept.
      </p>
      <div>
        <button type="button" class="button danger" onClick={() => setOpen(true)}>
          Delete workspace…
        </button>
      </div>
      <ConfirmDialog
        open={open}
        title="Delete workspace"
        confirmLabel="Delete workspace"
        confirmWord={detail.name}
        onClose={() => setOpen(false)}
        onConfirm={async () => {
          await deleteWorkspace(detail.workspace_id);
          navigate("/");
        }}
      >
        <p>
          Every member loses access to <strong>{detail.name}</strong>{" "}
          at once. Posts, ideas and actions are kept for recovery by a platform admin.
        </p>
      </ConfirmDialog>
    </section>
  );
}
