/**
 * `/workspaces/:id/actions`: the actions assigned to me and those I created
 * (`?view=created`), filtered by status and assignee (`?status=`, `?assignee=`), newest first
 * and loaded a page at a time as the person scrolls; create and edit in a dialog; accept or
 * decline (the assignee), status, delete (creator or admin), and attachments. `?action=<id>`
 * opens one action.
 */
import { useEffect, useState } from "preact/hooks";
import { EmptyState } from "../../components/empty_state.tsx";
import { ErrorMessage } from "../../components/error_message.tsx";
import { Loading } from "../../components/loading.tsx";
import { LoadMore } from "../../components/load_more.tsx";
import { useResource } from "../../components/use_resource.ts";
import { ConfirmDialog, WorkspaceDialog } from "../../components/workspace_dialog.tsx";
import { Link, navigate, url } from "../../router.tsx";
import type { ScreenProps } from "../../screen_props.ts";
import {
  actionBoard,
  type ActionQuery,
  deleteAction,
  patchAction,
  refreshAction,
} from "../../state/actions.ts";
import { loadMembers } from "../../state/members.ts";
import { loadPosts } from "../../state/posts.ts";
import { claims } from "../../state/session.ts";
import { ActionCard } from "./card.tsx";
import { ActionForm } from "./form.tsx";
import { type Action, type Status, STATUSES } from "./shared.ts";

export default function ActionsScreen({ params }: ScreenProps) {
  const workspaceId = params.workspaceId;
  const me = claims.value?.sub ?? "";
  const search = url.value.search;
  const view = search.get("view") === "created" ? "created" : "assigned";
  const status = (search.get("status") ?? "") as Status | "";
  const assignee = view === "created" ? search.get("assignee") ?? "" : "";
  const openId = search.get("action");

  const setQuery = (changes: Record<string, string | null>) => {
    const next = new URLSearchParams(search);
    for (const [k, v] of Object.entries(changes)) {
      if (v) next.set(k, v);
      else next.delete(k);
    }
    const qs = next.toString();
    navigate(`${url.value.path}${qs ? `?${qs}` : ""}`, { replace: true });
  };

  // The server filters: mine to do (assignee me), or mine created (creator me, any assignee).
  const query: ActionQuery = {
    workspaceId,
    status,
    assigneeId: view === "assigned" ? me : assignee || undefined,
    createdBy: view === "created" ? me : undefined,
  };
  const reload = () => void actionBoard.load(query);
  useEffect(reload, [workspaceId, view, status, assignee, me]);
  const members = useResource(
    () => loadMembers(workspaceId),
    [workspaceId],
  );
  const posts = useResource(
    () => loadPosts(workspaceId),
    [workspaceId],
  );
  const [editing, setEditing] = useState<Action | "new" | null>(null);
  const [deleting, setDeleting] = useState<Action | null>(null);

  const memberList = members.data?.members ?? [];
  const postList = posts.data?.items ?? [];
  const board = actionBoard.state.value?.key === actionBoard.keyOf(query)
    ? actionBoard.state.value
    : null;
  const loaded = board?.loaded ?? false;
  const items = board?.items ?? [];
  const complete = loaded && board?.nextCursor === null;
  const filtered = !!status || !!assignee;
  const base = `/workspaces/${encodeURIComponent(workspaceId)}/actions`;

  return (
    <div class="stack actions-screen">
      <header class="screen-head with-action">
        <div>
          <h1>Actions</h1>
          <p class="wa-muted">
            Tasks for the team: who does what, by when, with the files it needs.
          </p>
        </div>
        <button type="button" class="button" onClick={() => setEditing("new")}>
          New action
        </button>
      </header>

      <div class="wa-toolbar">
        <nav class="wa-segmented" aria-label="Actions views">
          <Link
            href={base}
            aria-current={view === "assigned" ? "page" : undefined}
          >
            Assigned to me
          </Link>
          <Link
            href={`${base}?view=created`}
            aria-current={view === "created" ? "page" : undefined}
          >
            Created by me
          </Link>
        </nav>
        <div class="wa-filters">
          <label class="inline-label">
            Status
            <select
              value={status}
              onChange={(e) => setQuery({ status: e.currentTarget.value || null })}
            >
              <option value="">Any status</option>
              {STATUSES.map((s) => <option key={s.value} value={s.value}>{s.label}</option>)}
            </select>
          </label>
          {view === "created" && (
            <label class="inline-label">
              Assignee
              <select
                value={assignee}
                onChange={(e) => setQuery({ assignee: e.currentTarget.value || null })}
              >
                <option value="">Anyone</option>
                {memberList.map((m) => (
                  <option key={m.user_id} value={m.user_id}>{m.name || m.email}</option>
                ))}
              </select>
            </label>
          )}
        </div>
      </div>

      {!loaded && !board?.error && <Loading label="Loading actions" />}
      {!loaded && board?.error ? <ErrorMessage error={board.error} onRetry={reload} /> : null}
      {complete && items.length === 0 && (
        <EmptyState
          title={filtered
            ? "No actions match these filters"
            : view === "assigned"
            ? "Nothing is assigned to you"
            : "You have not created any actions"}
        >
          {filtered
            ? (
              <button
                type="button"
                class="button secondary"
                onClick={() => setQuery({ status: null, assignee: null })}
              >
                Clear filters
              </button>
            )
            : (
              <>
                <p>
                  Create an action to ask a teammate for something (a review, a visual, a fact
                  check) with a due date and the files it needs.
                </p>
                <button type="button" class="button" onClick={() => setEditing("new")}>
                  New action
                </button>
              </>
            )}
        </EmptyState>
      )}
      {items.length > 0 && (
        <ul class="action-list" aria-label="Actions">
          {items.map((a) => (
            <ActionCard
              key={a.action_id}
              action={a}
              me={me}
              open={openId === a.action_id}
              posts={postList}
              onToggle={() => setQuery({ action: openId === a.action_id ? null : a.action_id })}
              onChanged={() => void refreshAction(query, a.action_id)}
              onEdit={() => setEditing(a)}
              onDelete={() => setDeleting(a)}
            />
          ))}
        </ul>
      )}
      {board && <LoadMore list={board} onMore={() => void actionBoard.more()} noun="actions" />}

      <WorkspaceDialog
        title={editing === "new" ? "New action" : "Edit action"}
        open={editing !== null}
        onClose={() => setEditing(null)}
        wide
      >
        {editing !== null && (
          <ActionForm
            workspaceId={workspaceId}
            action={editing === "new" ? null : editing}
            members={memberList}
            membersError={members.error}
            posts={postList}
            me={me}
            onCancel={() => setEditing(null)}
            onDone={(saved) => {
              setEditing(null);
              if (editing !== "new") patchAction(saved, query);
              else {
                // the same view reloads here; another view loads when the URL below changes
                reload();
                // show the new action: it is in "Created by me" unless it was assigned to me
                const mine = saved.assignee_id === me;
                setQuery({
                  action: saved.action_id,
                  view: mine && view === "assigned" ? null : "created",
                  status: null,
                  assignee: null,
                });
              }
            }}
          />
        )}
      </WorkspaceDialog>
      <ConfirmDialog
        open={!!deleting}
        title="Delete action"
        confirmLabel="Delete"
        onClose={() => setDeleting(null)}
        onConfirm={async () => {
          await deleteAction(workspaceId, deleting!.action_id);
        }}
      >
        <p>
          Delete <strong>{deleting?.title}</strong> and its attachments? This cannot be undone.
        </p>
      </ConfirmDialog>
    </div>
  );
}
