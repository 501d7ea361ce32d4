/**
 * "New workspace": a dialog with name, description and time zone (the browser's unless another
 * is chosen); the new workspace opens on its ideas.
 */
import { useEffect, useState } from "preact/hooks";
import { navigate } from "../router.tsx";
import { createWorkspace } from "../state/workspaces.ts";
import { ErrorMessage } from "./error_message.tsx";
import { WorkspaceDialog } from "./workspace_dialog.tsx";
import { describedBy, Field, fieldErrors } from "./workspace_form.tsx";
import { browserTimeZone, timeZoneOptions } from "./time_zones.ts";

export function CreateWorkspaceDialog({ open, onClose }: { open: boolean; onClose: () => void }) {
  const [name, setName] = useState("");
  const [description, setDescription] = useState("");
  const [timezone, setTimezone] = useState(browserTimeZone);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    if (open) {
      setName("");
      setDescription("");
      setTimezone(browserTimeZone());
      setError(null);
    }
  }, [open]);
  const { byField, rest } = fieldErrors(error, ["name", "description", "timezone"]);
  return (
    <WorkspaceDialog title="New workspace" open={open} onClose={onClose}>
      <form
        onSubmit={async (e) => {
          e.preventDefault();
          setBusy(true);
          setError(null);
          try {
            const created = await createWorkspace(
              name,
              description.trim() || undefined,
              timezone,
            );
            onClose();
            navigate(`/workspaces/${encodeURIComponent(created.workspace_id)}/ideas`);
          } catch (err) {
            setError(err);
          } finally {
            setBusy(false);
          }
        }}
      >
        <p class="wa-muted">
          A workspace holds a team's ideas, posts and actions. You will be its owner.
        </p>
        <Field id="new-workspace-name" label="Name" error={byField.name}>
          <input
            id="new-workspace-name"
            value={name}
            required
            autoFocus
            onInput={(e) => setName(e.currentTarget.value)}
            {...describedBy("new-workspace-name", byField.name)}
          />
        </Field>
        <Field id="new-workspace-description" label="Description" error={byField.description}>
          <textarea
            id="new-workspace-description"
            rows={3}
            value={description}
            onInput={(e) => setDescription(e.currentTarget.value)}
            {...describedBy("new-workspace-description", byField.description)}
          />
        </Field>
        <Field
          id="new-workspace-timezone"
          label="Time zone"
          error={byField.timezone}
          hint="Publishing slots and scheduled times are in this zone."
        >
          <select
            id="new-workspace-timezone"
            value={timezone}
            onChange={(e) => setTimezone(e.currentTarget.value)}
            {...describedBy("new-workspace-timezone", byField.timezone, true)}
          >
            {timeZoneOptions(timezone).map((z) => <option key={z} value={z}>{z}</option>)}
          </select>
        </Field>
        <ErrorMessage error={rest} />
        <div class="button-row">
          <button type="button" class="button secondary" onClick={onClose}>Cancel</button>
          <button type="submit" class="button" disabled={busy}>
            {busy ? "Creating…" : "Create workspace"}
          </button>
        </div>
      </form>
    </WorkspaceDialog>
  );
}
