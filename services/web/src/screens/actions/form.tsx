/** Creating or editing an action (title, description, assignee, due date, priority, post). */
import { useState } from "preact/hooks";
import { ErrorMessage } from "../../components/error_message.tsx";
import { FormDialogButtons, useSaveForm } from "../../components/form_dialog.tsx";
import { describedBy, Field } from "../../components/workspace_form.tsx";
import { createAction, updateAction } from "../../state/actions.ts";
import { type Action, ACTION_FIELDS, type Member, type Post, PRIORITIES } from "./shared.ts";

export function ActionForm(
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
      ? updateAction(workspaceId, action.action_id, fields)
      : createAction(workspaceId, fields);
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
