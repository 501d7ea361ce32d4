/**
 * A workspace's screens open only for a workspace in the caller's list. A link to one they are not
 * a member of (deleted, removed, someone else's) says so once, with a way back, instead of every
 * panel of the screen failing on its own with a Retry that cannot help.
 */
import type { ComponentChildren } from "preact";
import { useEffect, useState } from "preact/hooks";
import { Link } from "../router.tsx";
import { loadWorkspaces, workspaces } from "../state/workspaces.ts";
import { Loading } from "./loading.tsx";

export function WorkspaceGate(
  { workspaceId, children }: { workspaceId: string; children: ComponentChildren },
) {
  const list = workspaces.value;
  // still loading: the screen starts at once (its own requests answer in parallel)
  const known = !list || list.some((w) => w.workspace_id === workspaceId);
  // asked again for this id: "asking", then "done" (the fresh list was read) or "failed"
  const [check, setCheck] = useState<{ id: string; state: "asking" | "done" | "failed" } | null>(
    null,
  );
  const state = check?.id === workspaceId ? check.state : null;
  useEffect(() => {
    if (known || state !== null) return;
    // the list may be older than a membership given since (an invite, a new owner): ask again once
    setCheck({ id: workspaceId, state: "asking" });
    loadWorkspaces().then(
      () => setCheck({ id: workspaceId, state: "done" }),
      () => setCheck({ id: workspaceId, state: "failed" }),
    );
  }, [workspaceId, known, state]);
  // a failed re-check leaves the screen to show its own error
  if (known || state === "failed") return <>{children}</>;
  if (state !== "done") return <Loading label="Loading workspace" />;
  return (
    <section class="card narrow stack">
      <h1>You do not have access to this workspace</h1>
      <p>
        It may have been deleted, or you are not one of its members. Ask one of its owners to add
        you.
      </p>
      <p>
        <Link href="/">Go to your workspaces</Link>
      </p>
    </section>
  );
}
