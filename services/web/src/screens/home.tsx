/**
 * `/`: a signed-in user goes to their first workspace's ideas; with none, the empty state
 * creates the first workspace.
 */
import { useEffect, useState } from "preact/hooks";
import { EmptyState } from "../components/empty_state.tsx";
import { ErrorMessage } from "../components/error_message.tsx";
import { Loading } from "../components/loading.tsx";
import { navigate } from "../router.tsx";
import { browserTimeZone } from "../components/time_zones.ts";
import type { ScreenProps } from "../screen_props.ts";
import {
  createWorkspace,
  loadWorkspaces,
  preferredWorkspace,
  workspaces,
  workspacesError,
} from "../state/workspaces.ts";

export default function Home(_: ScreenProps) {
  const list = workspaces.value;
  useEffect(() => {
    if (list && list.length > 0) {
      navigate(`/workspaces/${encodeURIComponent(preferredWorkspace()!.workspace_id)}/ideas`, {
        replace: true,
      });
    }
  }, [list]);
  if (workspacesError.value && !list) {
    return (
      <ErrorMessage
        error={workspacesError.value}
        onRetry={() => void loadWorkspaces().catch(() => {})}
      />
    );
  }
  if (!list || list.length > 0) return <Loading />;
  return (
    <EmptyState title="Create your first workspace" level={1}>
      <p>A workspace holds your team's ideas, posts and actions.</p>
      <CreateWorkspaceForm />
    </EmptyState>
  );
}

export function CreateWorkspaceForm() {
  const [name, setName] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  return (
    <form
      onSubmit={async (e) => {
        e.preventDefault();
        setBusy(true);
        setError(null);
        try {
          // A first workspace starts in the browser's time zone (settings can change it).
          const created = await createWorkspace(name.trim(), undefined, browserTimeZone());
          navigate(`/workspaces/${encodeURIComponent(created.workspace_id)}/ideas`);
        } catch (err) {
          setError(err);
        } finally {
          setBusy(false);
        }
      }}
    >
      <div class="field">
        <label for="workspace-name">Workspace name</label>
        <input
          id="workspace-name"
          value={name}
          required
          maxLength={100}
          onInput={(e) => setName(e.currentTarget.value)}
        />
      </div>
      <div class="field">
        <button type="submit" class="button" disabled={busy}>
          {busy ? "Creating…" : "Create workspace"}
        </button>
      </div>
      <ErrorMessage error={error} />
    </form>
  );
}
