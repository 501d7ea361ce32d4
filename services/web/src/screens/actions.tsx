/**
 * `/workspaces/:id/actions`: the actions assigned to me and those I created
 * (`?view=created`), filtered by status and assignee (`?status=`, `?assignee=`); create and
 * edit in a dialog; accept or decline (the assignee), status, delete (creator or admin), and
 * attachments. `?action=<id>` opens one action.
 */
import { useState } from "preact/hooks";
import { api, call, type Schemas } from "../api/client.ts";
import { ActionAttachments } from "../components/action_attachments.tsx";
import { EmptyState } from "../components/empty_state.tsx";
import { ErrorMessage } from "../components/error_message.tsx";
import { Loading } from "../components/loading.tsx";
import { useResource } from "../components/use_resource.ts";
import { ConfirmDialog, WorkspaceDialog } from "../components/workspace_dialog.tsx";
import { FormDialogButtons, useSaveForm } from "../components/form_dialog.tsx";
import { describedBy, Field, formatWhen } from "../components/workspace_form.tsx";
import { Link, navigate, url } from "../router.tsx";
import type { ScreenProps } from "../routes.ts";
import { claims, isAdmin } from "../state/session.ts";

type Action = Schemas["Action"];
type Status = Action["status"];
type Member = Schemas["WorkspaceMemberWithProfile"];
type Post = Schemas["Post"];

const STATUSES: { value: Status; label: string }[] = [
  { value: "open", label: "Open" },
  { value: "in_progress", label: "In progress" },
  { value: "completed", label: "Completed" },
  { value: "cancelled", label: "Cancelled" },
];
const STATUS_LABEL = Object.fromEntries(STATUSES.map((s) => [s.value, s.label])) as Record<
  Status,
  string
>;
const PRIORITIES = [
  { value: "p1_urgent", label: "Urgent" },
  { value: "p2_high", label: "High" },
  { value: "p3_medium", label: "Medium" },
  { value: "p4_low", label: "Low" },
];
const PRIORITY_LABEL: Record<string, string> = Object.fromEntries(
  PRIORITIES.map((p) => [p.value, p.label]),
);
const RESPONSE_LABEL = { pending: "Not answered", accepted: "Accepted", declined: "Declined" };
const ACTION_FIELDS = [
  "title",
  "description",
  "assignee_id",
  "due_date",
  "priority",
  "linked_post_id",
] as const;

/** Open work first, then by priority, then by due date. */
function order(a: Action, b: Action): number {
  const done = (x: Action) => (x.status === "completed" || x.status === "cancelled" ? 1 : 0);
  const prio = (x: Action) => PRIORITIES.findIndex((p) => p.value === x.priority) >>> 0;
  return done(a) - done(b) || prio(a) - prio(b) ||
    (a.due_date ?? "9999").localeCompare(b.due_date ?? "9999") ||
    b.created_at.localeCompare(a.created_at);
}

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

  const actions = useResource(
    () =>
      call(api.GET("/api/actions", {
        params: {
          query: {
            workspaceId,
            ...(status ? { status } : {}),
            ...(view === "assigned"
              ? { assigneeId: me }
              : assignee
              ? { assigneeId: assignee }
              : {}),
          },
        },
      })),
    [workspaceId, view, status, assignee, me],
  );
  const members = useResource(
    () => call(api.GET("/api/workspaces/{id}/members", { params: { path: { id: workspaceId } } })),
    [workspaceId],
  );
  const posts = useResource(
    () => call(api.GET("/api/posts", { params: { query: { workspaceId } } })),
    [workspaceId],
  );
  const [editing, setEditing] = useState<Action | "new" | null>(null);
  const [deleting, setDeleting] = useState<Action | null>(null);

  const memberList = members.data?.members ?? [];
  const postList = posts.data?.items ?? [];
  const items = (actions.data?.items ?? [])
    .filter((a) => view === "assigned" || a.created_by === me)
    .sort(order);
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

      {actions.loading && !actions.data && <Loading label="Loading actions" />}
      {actions.error ? <ErrorMessage error={actions.error} onRetry={actions.reload} /> : null}
      {actions.data && items.length === 0 && (
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
              onChanged={actions.reload}
              onEdit={() => setEditing(a)}
              onDelete={() => setDeleting(a)}
            />
          ))}
        </ul>
      )}

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
              actions.reload();
              if (editing === "new") {
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
          await call(api.DELETE("/api/actions/{id}", {
            params: { path: { id: deleting!.action_id }, query: { workspaceId } },
          }));
          actions.reload();
        }}
      >
        <p>
          Delete <strong>{deleting?.title}</strong> and its attachments? This cannot be undone.
        </p>
      </ConfirmDialog>
    </div>
  );
}

function ActionCard(
  { action: a, me, open, posts, onToggle, onChanged, onEdit, onDelete }: {
    action: Action;
    me: string;
    open: boolean;
    posts: Post[];
    onToggle: () => void;
    onChanged: () => void;
    onEdit: () => void;
    onDelete: () => void;
  },
) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const isAssignee = a.assignee_id === me;
  const canDelete = a.created_by === me || isAdmin.value;
  const post = a.linked_post_id ? posts.find((p) => p.post_id === a.linked_post_id) : null;
  const detailsId = `action-${a.action_id}-details`;
  const overdue = a.due_date && a.status !== "completed" && a.status !== "cancelled" &&
    a.due_date < new Date().toISOString().slice(0, 10);

  const run = async (step: () => Promise<unknown>) => {
    setBusy(true);
    setError(null);
    try {
      await step();
      onChanged();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  return (
    <li class={`card action-card action-status-${a.status}`}>
      <div class="action-summary">
        <button
          type="button"
          class="action-toggle"
          aria-expanded={open}
          aria-controls={detailsId}
          onClick={onToggle}
        >
          <span class="action-title">{a.title}</span>
        </button>
        <div class="wa-meta">
          {a.priority && (
            <span class={`wa-badge priority-${a.priority}`}>
              {PRIORITY_LABEL[a.priority] ?? a.priority}
            </span>
          )}
          <span class={`wa-badge status-badge status-${a.status}`}>{STATUS_LABEL[a.status]}</span>
          {a.due_date && (
            <span class={overdue ? "wa-due wa-overdue" : "wa-due"}>
              Due {formatDay(a.due_date)}
              {overdue ? " (overdue)" : ""}
            </span>
          )}
          <span>
            {isAssignee ? "You" : a.assignee_name || "Someone"}:{" "}
            {RESPONSE_LABEL[a.assignee_response]}
          </span>
          {a.attachments.length > 0 && (
            <span>
              {a.attachments.length} {a.attachments.length === 1 ? "file" : "files"}
            </span>
          )}
        </div>
      </div>
      {isAssignee && a.assignee_response === "pending" && (
        <div class="button-row wa-start wa-respond">
          <span class="wa-muted">Will you take this on?</span>
          <button
            type="button"
            class="button wa-small"
            disabled={busy}
            aria-label={`Accept ${a.title}`}
            onClick={() => run(() => respond(a, "accepted"))}
          >
            Accept
          </button>
          <button
            type="button"
            class="button secondary wa-small"
            disabled={busy}
            aria-label={`Decline ${a.title}`}
            onClick={() => run(() => respond(a, "declined"))}
          >
            Decline
          </button>
        </div>
      )}
      {!open && <ErrorMessage error={error} />}
      {open && (
        <div id={detailsId} class="action-details stack">
          {a.description
            ? <p class="wa-pre">{a.description}</p>
            : <p class="wa-muted">No description.</p>}
          <dl class="wa-facts">
            <div>
              <dt>Linked post</dt>
              <dd>
                {a.linked_post_id
                  ? (
                    <Link
                      href={`/workspaces/${encodeURIComponent(a.workspace_id)}/posts/${
                        encodeURIComponent(a.linked_post_id)
                      }`}
                    >
                      {post?.title || "Open the post"}
                    </Link>
                  )
                  : "None"}
              </dd>
            </div>
            <div>
              <dt>Created</dt>
              <dd>{formatWhen(a.created_at)}</dd>
            </div>
            {a.completed_at && (
              <div>
                <dt>Completed</dt>
                <dd>{formatWhen(a.completed_at)}</dd>
              </div>
            )}
          </dl>
          <div class="button-row wa-start">
            <label class="inline-label">
              Status
              <select
                value={a.status}
                disabled={busy}
                onChange={(e) => {
                  const next = e.currentTarget.value as Status;
                  void run(() =>
                    call(api.PUT("/api/actions/{id}/status", {
                      params: { path: { id: a.action_id } },
                      body: { workspace_id: a.workspace_id, status: next },
                    }))
                  );
                }}
              >
                {STATUSES.map((s) => <option key={s.value} value={s.value}>{s.label}</option>)}
              </select>
            </label>
            {isAssignee && a.assignee_response !== "pending" && (
              <button
                type="button"
                class="button secondary wa-small"
                disabled={busy}
                onClick={() =>
                  run(() =>
                    respond(a, a.assignee_response === "accepted" ? "declined" : "accepted")
                  )}
              >
                {a.assignee_response === "accepted" ? "Decline instead" : "Accept instead"}
              </button>
            )}
            <button type="button" class="button secondary wa-small" onClick={onEdit}>Edit</button>
            {canDelete && (
              <button
                type="button"
                class="button secondary wa-small wa-danger-text"
                onClick={onDelete}
              >
                Delete
              </button>
            )}
          </div>
          <ErrorMessage error={error} />
          <ActionAttachments
            workspaceId={a.workspace_id}
            actionId={a.action_id}
            actionTitle={a.title}
            onChanged={onChanged}
          />
        </div>
      )}
    </li>
  );
}

function respond(a: Action, response: "accepted" | "declined") {
  return call(api.PUT("/api/actions/{id}/response", {
    params: { path: { id: a.action_id } },
    body: { workspace_id: a.workspace_id, response },
  }));
}

function ActionForm(
  { workspaceId, action, members, membersError, posts, me, onDone, onCancel }: {
    workspaceId: string;
    action: Action | null;
    members: Member[];
    membersError: unknown;
    posts: Post[];
    me: string;
    onDone: (saved: Action) => void;
    onCancel: () => void;
  },
) {
  const [title, setTitle] = useState(action?.title ?? "");
  const [description, setDescription] = useState(action?.description ?? "");
  const [assignee, setAssignee] = useState(action?.assignee_id ?? "");
  const [due, setDue] = useState(action?.due_date ?? "");
  const [priority, setPriority] = useState(action?.priority ?? "p3_medium");
  const [linked, setLinked] = useState(action?.linked_post_id ?? "");
  const form = useSaveForm(ACTION_FIELDS, () => {
    const fields = {
      title,
      description,
      assignee_id: assignee,
      due_date: due || null,
      priority: priority || null,
      linked_post_id: linked || null,
    };
    return action
      ? call(api.PUT("/api/actions/{id}", {
        params: { path: { id: action.action_id } },
        body: { workspace_id: workspaceId, ...fields },
      }))
      : call(api.POST("/api/actions", {
        body: { workspace_id: workspaceId, ...fields },
      }));
  }, onDone);
  const { byField } = form;
  const knownPriority = PRIORITIES.some((p) => p.value === priority);
  return (
    <form onSubmit={form.onSubmit}>
      <Field id="action-title" label="Title" error={byField.title}>
        <input
          id="action-title"
          value={title}
          required
          autoFocus
          onInput={(e) => setTitle(e.currentTarget.value)}
          {...describedBy("action-title", byField.title)}
        />
      </Field>
      <Field id="action-description" label="Description" error={byField.description}>
        <textarea
          id="action-description"
          rows={3}
          value={description}
          onInput={(e) => setDescription(e.currentTarget.value)}
          {...describedBy("action-description", byField.description)}
        />
      </Field>
      <div class="form-grid">
        <Field
          id="action-assignee"
          label="Assignee"
          error={byField.assignee_id}
          hint={action && assignee !== action.assignee_id
            ? "A new assignee is asked to accept again."
            : undefined}
        >
          <select
            id="action-assignee"
            value={assignee}
            required
            onChange={(e) => setAssignee(e.currentTarget.value)}
            {...describedBy(
              "action-assignee",
              byField.assignee_id,
              !!action && assignee !== action.assignee_id,
            )}
          >
            <option value="">Choose a member</option>
            {members.map((m) => (
              <option key={m.user_id} value={m.user_id}>
                {m.name || m.email}
                {m.user_id === me ? " (you)" : ""}
              </option>
            ))}
          </select>
        </Field>
        <Field id="action-due" label="Due date" error={byField.due_date}>
          <input
            id="action-due"
            type="date"
            value={due}
            onInput={(e) => setDue(e.currentTarget.value)}
            {...describedBy("action-due", byField.due_date)}
          />
        </Field>
        <Field id="action-priority" label="Priority" error={byField.priority}>
          <select
            id="action-priority"
            value={priority}
            onChange={(e) => setPriority(e.currentTarget.value)}
            {...describedBy("action-priority", byField.priority)}
          >
            {!knownPriority && priority && <option value={priority}>{priority}</option>}
            {PRIORITIES.map((p) => <option key={p.value} value={p.value}>{p.label}</option>)}
          </select>
        </Field>
        <Field id="action-post" label="Linked post" error={byField.linked_post_id}>
          <select
            id="action-post"
            value={linked}
            onChange={(e) => setLinked(e.currentTarget.value)}
            {...describedBy("action-post", byField.linked_post_id)}
          >
            <option value="">None</option>
            {linked && !posts.some((p) => p.post_id === linked) && (
              <option value={linked}>The linked post</option>
            )}
            {posts.map((p) => (
              <option key={p.post_id} value={p.post_id}>{p.title || "Untitled post"}</option>
            ))}
          </select>
        </Field>
      </div>
      {membersError ? <ErrorMessage error={membersError} /> : null}
      <FormDialogButtons
        error={form.rest}
        busy={form.busy}
        label={action ? "Save action" : "Create action"}
        onCancel={onCancel}
      />
    </form>
  );
}

/** `2030-01-15` as "15 Jan 2030" (a date without a time: no timezone shift). */
function formatDay(day: string): string {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(day);
  if (!m) return day;
  const d = new Date(Date.UTC(+m[1], +m[2] - 1, +m[3]));
  return d.toLocaleDateString(undefined, {
    day: "numeric",
    month: "short",
    year: "numeric",
    timeZone: "UTC",
  });
}
