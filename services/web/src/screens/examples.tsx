/**
 * `/workspaces/:id/examples`: the workspace's example posts, its voice: generation adds up to
 * five of them (ranked by shared tags) to every prompt. Any member may create, edit, delete.
 */
import { useState } from "preact/hooks";
import type { Schemas } from "../state/api.ts";
import { deleteExample, loadExamples, saveExample } from "../state/examples.ts";
import { EmptyState } from "../components/empty_state.tsx";
import { ErrorMessage } from "../components/error_message.tsx";
import { Loading } from "../components/loading.tsx";
import { useResource } from "../components/use_resource.ts";
import { ConfirmDialog, WorkspaceDialog } from "../components/workspace_dialog.tsx";
import { FormDialogButtons, useSaveForm } from "../components/form_dialog.tsx";
import { describedBy, Field, formatWhen } from "../components/workspace_form.tsx";
import type { ScreenProps } from "../screen_props.ts";

type Example = Schemas["ExamplePost"];

export default function ExamplesScreen({ params }: ScreenProps) {
  const workspaceId = params.workspaceId;
  const examples = useResource(
    () => loadExamples(workspaceId),
    [workspaceId],
  );
  const [editing, setEditing] = useState<Example | "new" | null>(null);
  const [deleting, setDeleting] = useState<Example | null>(null);
  const items = examples.data?.items ?? [];
  return (
    <div class="stack">
      <header class="screen-head with-action">
        <div>
          <h1>Example posts</h1>
          <p class="wa-muted">
            Posts in your team's voice. Generation adds up to five of them, those sharing the most
            tags with the idea, to show the AI how you write.
          </p>
        </div>
        {items.length > 0 && (
          <button type="button" class="button" onClick={() => setEditing("new")}>
            New example
          </button>
        )}
      </header>
      {examples.loading && !examples.data && <Loading label="Loading example posts" />}
      {examples.error ? <ErrorMessage error={examples.error} onRetry={examples.reload} /> : null}
      {examples.data && items.length === 0 && (
        <EmptyState title="No example posts yet">
          <p>Paste a post your team is proud of, tag it by topic, and drafts will sound like it.</p>
          <button type="button" class="button" onClick={() => setEditing("new")}>
            New example
          </button>
        </EmptyState>
      )}
      {items.length > 0 && (
        <ul class="card-list" aria-label="Example posts">
          {items.map((ex) => (
            <li key={ex.example_id} class="card">
              <div class="card-head">
                <h2 class="card-title">{ex.title || "Untitled example"}</h2>
              </div>
              <p class="wa-meta">
                {ex.tags.length > 0 && (
                  <span class="wa-tag-list">
                    {ex.tags.map((t) => <span key={t} class="wa-chip">#{t}</span>)}
                  </span>
                )}
                <span>Updated {formatWhen(ex.updated_at)}</span>
              </p>
              <p class="wa-clamp wa-pre">{ex.content}</p>
              <div class="button-row wa-start">
                <button
                  type="button"
                  class="button secondary wa-small"
                  aria-label={`Edit ${ex.title || "untitled example"}`}
                  onClick={() => setEditing(ex)}
                >
                  Edit
                </button>
                <button
                  type="button"
                  class="button secondary wa-small wa-danger-text"
                  aria-label={`Delete ${ex.title || "untitled example"}`}
                  onClick={() => setDeleting(ex)}
                >
                  Delete
                </button>
              </div>
            </li>
          ))}
        </ul>
      )}
      <WorkspaceDialog
        title={editing === "new" ? "New example post" : "Edit example post"}
        open={editing !== null}
        onClose={() => setEditing(null)}
        wide
      >
        {editing !== null && (
          <ExampleForm
            workspaceId={workspaceId}
            example={editing === "new" ? null : editing}
            onCancel={() => setEditing(null)}
            onDone={() => {
              setEditing(null);
              examples.reload();
            }}
          />
        )}
      </WorkspaceDialog>
      <ConfirmDialog
        open={!!deleting}
        title="Delete example post"
        confirmLabel="Delete"
        onClose={() => setDeleting(null)}
        onConfirm={async () => {
          await deleteExample(workspaceId, deleting!.example_id);
          examples.reload();
        }}
      >
        <p>
          Delete <strong>{deleting?.title || "this example"}</strong>? Generation stops using it.
        </p>
      </ConfirmDialog>
    </div>
  );
}

function ExampleForm(
  { workspaceId, example, onDone, onCancel }: {
    workspaceId: string;
    example: Example | null;
    onDone: () => void;
    onCancel: () => void;
  },
) {
  const [title, setTitle] = useState(example?.title ?? "");
  const [content, setContent] = useState(example?.content ?? "");
  const [tags, setTags] = useState((example?.tags ?? []).join(", "));
  const form = useSaveForm(["title", "content", "tags"], async () => {
    const body = {
      workspace_id: workspaceId,
      title: title.trim(),
      content,
      tags: tags.split(",").map((t) => t.trim().replace(/^#/, "")).filter(Boolean),
    };
    await saveExample(body, example?.example_id);
  }, onDone);
  const { byField } = form;
  return (
    <form onSubmit={form.onSubmit}>
      <Field id="example-title" label="Title" error={byField.title}>
        <input
          id="example-title"
          value={title}
          required
          autoFocus
          onInput={(e) => setTitle(e.currentTarget.value)}
          {...describedBy("example-title", byField.title)}
        />
      </Field>
      <Field id="example-content" label="Text" error={byField.content}>
        <textarea
          id="example-content"
          rows={8}
          required
          value={content}
          onInput={(e) => setContent(e.currentTarget.value)}
          {...describedBy("example-content", byField.content)}
        />
      </Field>
      <Field
        id="example-tags"
        label="Tags"
        error={byField.tags}
        hint="Comma-separated, for example: hiring, culture. Examples sharing an idea's tags are used first."
      >
        <input
          id="example-tags"
          value={tags}
          onInput={(e) => setTags(e.currentTarget.value)}
          {...describedBy("example-tags", byField.tags, true)}
        />
      </Field>
      <FormDialogButtons
        error={form.rest}
        busy={form.busy}
        label={example ? "Save example" : "Create example"}
        onCancel={onCancel}
      />
    </form>
  );
}
