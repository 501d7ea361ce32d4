/** One action in the list: its summary, accept or decline, and (open) details and files. */
import { useState } from "preact/hooks";
import { ActionAttachments } from "../../components/action_attachments.tsx";
import { ErrorMessage } from "../../components/error_message.tsx";
import { formatWhen } from "../../components/workspace_form.tsx";
import { Link } from "../../router.tsx";
import { respondToAction as respond, setActionStatus } from "../../state/actions.ts";
import { isAdmin } from "../../state/session.ts";
import {
  type Action,
  formatDay,
  type Post,
  PRIORITY_LABEL,
  RESPONSE_LABEL,
  type Status,
  STATUS_LABEL,
  STATUSES,
} from "./shared.ts";

export function ActionCard(
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
        {
          /* The card's heading holds its disclosure button (as an accordion's does), so the
            details' own headings sit below it. */
        }
        <h2 class="action-heading">
          <button
            type="button"
            class="action-toggle"
            aria-expanded={open}
            aria-controls={detailsId}
            onClick={onToggle}
          >
            <span class="action-title">{a.title}</span>
          </button>
        </h2>
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
                  void run(() => setActionStatus(a, next));
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
