/**
 * `/workspaces/:id/prompts`: the caller's own prompts in the workspace (the API lists only
 * those): create, edit, delete (never the last one: 409, said plainly) and set the default.
 */
import { useEffect, useState } from "preact/hooks";
import { ApiError, type Schemas } from "../state/api.ts";
import {
  createPrompt,
  deletePrompt,
  loadList,
  loadPrompts,
  makeDefaultPrompt,
  updatePrompt,
} from "../state/prompts.ts";
import { EmptyState } from "../components/empty_state.tsx";
import { ErrorMessage } from "../components/error_message.tsx";
import { Loading } from "../components/loading.tsx";
import { useResource } from "../components/use_resource.ts";
import { ConfirmDialog, WorkspaceDialog } from "../components/workspace_dialog.tsx";
import { FormDialogButtons, useSaveForm } from "../components/form_dialog.tsx";
import { describedBy, Field, formatWhen } from "../components/workspace_form.tsx";
import { Link } from "../router.tsx";
import type { ScreenProps } from "../screen_props.ts";
import { FILLED_PLACEHOLDERS, unfilledPlaceholders } from "../components/prompt_placeholders.ts";

type Prompt = Schemas["Prompt"];
type Tone = Prompt["tone"];

const TONES: { value: Tone; label: string }[] = [
  { value: "professional", label: "Professional" },
  { value: "casual", label: "Casual" },
  { value: "educational", label: "Educational" },
  { value: "storytelling", label: "Storytelling" },
  { value: "provocative", label: "Provocative" },
];
const TONE_LABEL = Object.fromEntries(TONES.map((t) => [t.value, t.label])) as Record<
  Tone,
  string
>;

const PROMPT_FIELDS = [
  "name",
  "system_instruction",
  "user_template",
  "tone",
  "default_audience",
  "default_language",
] as const;

export default function PromptsScreen({ params }: ScreenProps) {
  const workspaceId = params.workspaceId;
  const prompts = useResource(
    () => loadPrompts(workspaceId),
    [workspaceId],
  );
  const [editing, setEditing] = useState<Prompt | "new" | null>(null);
  const [deleting, setDeleting] = useState<Prompt | null>(null);
  const [rowError, setRowError] = useState<{ id: string; error: unknown } | null>(null);
  const [busyId, setBusyId] = useState<string | null>(null);
  const items = prompts.data?.items ?? [];

  const setDefault = async (p: Prompt) => {
    setBusyId(p.prompt_id);
    setRowError(null);
    try {
      await makeDefaultPrompt(workspaceId, p.prompt_id);
      prompts.reload();
    } catch (error) {
      setRowError({ id: p.prompt_id, error });
    } finally {
      setBusyId(null);
    }
  };

  return (
    <div class="stack">
      <header class="screen-head with-action">
        <div>
          <h1>Prompts</h1>
          <p class="wa-muted">
            Your saved instructions for AI drafting in this workspace. Only you see your prompts;
            your default is used when you generate without choosing one.
          </p>
        </div>
        {items.length > 0 && (
          <button type="button" class="button" onClick={() => setEditing("new")}>
            New prompt
          </button>
        )}
      </header>
      {prompts.loading && !prompts.data && <Loading label="Loading prompts" />}
      {prompts.error ? <ErrorMessage error={prompts.error} onRetry={prompts.reload} /> : null}
      {prompts.data && items.length === 0 && (
        <EmptyState title="No prompts yet">
          <p>
            A prompt tells the AI how to write: a persona, a template with placeholders such as{" "}
            <code>{"{idea_title}"}</code>, and a tone. Create one to shape every generated post.
          </p>
          <button type="button" class="button" onClick={() => setEditing("new")}>
            New prompt
          </button>
        </EmptyState>
      )}
      {items.length > 0 && (
        <ul class="card-list" aria-label="Your prompts">
          {items.map((p) => (
            <li key={p.prompt_id} class="card prompt-card">
              <div class="card-head">
                <h2 class="card-title">{p.name}</h2>
                {p.is_default && <span class="wa-badge wa-accent">Default</span>}
              </div>
              <p class="wa-meta">
                <span>Tone: {TONE_LABEL[p.tone] ?? p.tone}</span>
                {p.default_audience && <span>Audience: {p.default_audience}</span>}
                {p.default_language && <span>Language: {p.default_language}</span>}
                <span>Updated {formatWhen(p.updated_at)}</span>
              </p>
              <p class="wa-clamp">{p.system_instruction}</p>
              <div class="button-row wa-start">
                <button
                  type="button"
                  class="button secondary wa-small"
                  aria-label={`Edit ${p.name}`}
                  onClick={() => setEditing(p)}
                >
                  Edit
                </button>
                {!p.is_default && (
                  <button
                    type="button"
                    class="button secondary wa-small"
                    aria-label={`Set as default: ${p.name}`}
                    disabled={busyId === p.prompt_id}
                    onClick={() => void setDefault(p)}
                  >
                    Set as default
                  </button>
                )}
                <button
                  type="button"
                  class="button secondary wa-small wa-danger-text"
                  aria-label={`Delete ${p.name}`}
                  onClick={() => setDeleting(p)}
                >
                  Delete
                </button>
              </div>
              {rowError?.id === p.prompt_id && <ErrorMessage error={rowError.error} />}
            </li>
          ))}
        </ul>
      )}
      <p class="wa-muted">
        The workspace's default prompt for everyone is chosen in{" "}
        <Link href={`/workspaces/${encodeURIComponent(workspaceId)}/settings`}>settings</Link>.
      </p>
      <WorkspaceDialog
        title={editing === "new" ? "New prompt" : "Edit prompt"}
        open={editing !== null}
        onClose={() => setEditing(null)}
        wide
      >
        {editing !== null && (
          <PromptForm
            workspaceId={workspaceId}
            prompt={editing === "new" ? null : editing}
            onDone={() => {
              setEditing(null);
              prompts.reload();
            }}
            onCancel={() => setEditing(null)}
          />
        )}
      </WorkspaceDialog>
      <ConfirmDialog
        open={!!deleting}
        title="Delete prompt"
        confirmLabel="Delete"
        onClose={() => setDeleting(null)}
        onConfirm={async () => {
          try {
            await deletePrompt(workspaceId, deleting!.prompt_id);
          } catch (err) {
            if (err instanceof ApiError && err.status === 409) {
              throw new ApiError(
                409,
                `${err.message}. You need at least one prompt here: create another one first, ` +
                  `then delete this one.`,
              );
            }
            throw err;
          }
          prompts.reload();
        }}
      >
        <p>
          Delete <strong>{deleting?.name}</strong>? This cannot be undone.
        </p>
      </ConfirmDialog>
    </div>
  );
}

function PromptForm(
  { workspaceId, prompt, onDone, onCancel }: {
    workspaceId: string;
    prompt: Prompt | null;
    onDone: () => void;
    onCancel: () => void;
  },
) {
  const [name, setName] = useState(prompt?.name ?? "");
  const [system, setSystem] = useState(prompt?.system_instruction ?? "");
  const [template, setTemplate] = useState(
    prompt?.user_template ?? "Write a LinkedIn post about: {idea_title}\n\n{idea_description}",
  );
  const [tone, setTone] = useState<Tone>(prompt?.tone ?? "professional");
  const [audience, setAudience] = useState(prompt?.default_audience ?? "");
  const [language, setLanguage] = useState(prompt?.default_language ?? "");
  const form = useSaveForm(PROMPT_FIELDS, async () => {
    const fields = {
      name,
      system_instruction: system,
      user_template: template,
      tone,
      default_audience: audience || null,
      default_language: language || null,
    };
    if (prompt) await updatePrompt(workspaceId, prompt.prompt_id, fields);
    else await createPrompt(workspaceId, fields);
  }, onDone);
  const lists = useResource(
    () =>
      Promise.all([
        loadList(workspaceId, "audiences"),
        loadList(workspaceId, "languages"),
      ]),
    [workspaceId],
  );
  useEffect(() => form.clearError(), [prompt]);
  const { byField } = form;
  const unfilled = unfilledPlaceholders(template).map((name) => `{${name}}`);
  const templateProblem = byField.user_template ??
    (unfilled.length
      ? `${unfilled.join(", ")} ${unfilled.length === 1 ? "is" : "are"} not filled in by ` +
        "generation; use the placeholders listed above"
      : undefined);
  const audiences = withCurrent(lists.data?.[0].items.map((i) => i.name) ?? [], audience);
  const languages = withCurrent(lists.data?.[1].items.map((i) => i.name) ?? [], language);

  return (
    <form onSubmit={form.onSubmit}>
      <Field id="prompt-name" label="Name" error={byField.name}>
        <input
          id="prompt-name"
          value={name}
          required
          autoFocus
          onInput={(e) => setName(e.currentTarget.value)}
          {...describedBy("prompt-name", byField.name)}
        />
      </Field>
      <Field
        id="prompt-system"
        label="System instruction"
        error={byField.system_instruction}
        hint="Who the writer is and how they write (the persona)."
      >
        <textarea
          id="prompt-system"
          rows={4}
          required
          value={system}
          onInput={(e) => setSystem(e.currentTarget.value)}
          {...describedBy("prompt-system", byField.system_instruction, true)}
        />
      </Field>
      <Field
        id="prompt-template"
        label="User template"
        error={templateProblem}
        hint={
          <>
            The request. Generation fills in these placeholders:{" "}
            {FILLED_PLACEHOLDERS.map(([name, meaning], i) => (
              <span key={name}>
                {i > 0 && ", "}
                <code title={meaning}>{`{${name}}`}</code>
              </span>
            ))}; any other is refused.
          </>
        }
      >
        <textarea
          id="prompt-template"
          rows={4}
          required
          value={template}
          onInput={(e) => setTemplate(e.currentTarget.value)}
          {...describedBy("prompt-template", templateProblem, true)}
        />
      </Field>
      <div class="form-grid">
        <Field id="prompt-tone" label="Tone" error={byField.tone}>
          <select
            id="prompt-tone"
            value={tone}
            onChange={(e) => setTone(e.currentTarget.value as Tone)}
            {...describedBy("prompt-tone", byField.tone)}
          >
            {TONES.map((t) => <option key={t.value} value={t.value}>{t.label}</option>)}
          </select>
        </Field>
        <Field id="prompt-audience" label="Default audience" error={byField.default_audience}>
          <select
            id="prompt-audience"
            value={audience}
            onChange={(e) => setAudience(e.currentTarget.value)}
            {...describedBy("prompt-audience", byField.default_audience)}
          >
            <option value="">None</option>
            {audiences.map((a) => <option key={a} value={a}>{a}</option>)}
          </select>
        </Field>
        <Field id="prompt-language" label="Default language" error={byField.default_language}>
          <select
            id="prompt-language"
            value={language}
            onChange={(e) => setLanguage(e.currentTarget.value)}
            {...describedBy("prompt-language", byField.default_language)}
          >
            <option value="">None</option>
            {languages.map((l) => <option key={l} value={l}>{l}</option>)}
          </select>
        </Field>
      </div>
      {lists.error ? <ErrorMessage error={lists.error} onRetry={lists.reload} /> : null}
      <FormDialogButtons
        error={form.rest}
        busy={form.busy}
        label={prompt ? "Save prompt" : "Create prompt"}
        onCancel={onCancel}
      />
    </form>
  );
}

/** The list's names, plus the current value when the list no longer holds it. */
function withCurrent(names: string[], current: string): string[] {
  return current && !names.includes(current) ? [current, ...names] : names;
}
