/** The workspace's audiences or languages, edited as one list (any member may). */
import { useEffect, useState } from "preact/hooks";
import { ErrorMessage } from "../../components/error_message.tsx";
import { Loading } from "../../components/loading.tsx";
import { useResource } from "../../components/use_resource.ts";
import { fieldErrors } from "../../components/workspace_form.tsx";
import { ListEditor, type ListEntry } from "../../components/workspace_list_editor.tsx";
import { loadList, saveList } from "../../state/prompts.ts";

export function ItemList(
  { workspaceId, kind }: { workspaceId: string; kind: "audiences" | "languages" },
) {
  const label = kind === "audiences" ? "Audiences" : "Languages";
  const one = kind === "audiences" ? "Audience" : "Language";
  const list = useResource(
    () => loadList(workspaceId, kind),
    [workspaceId, kind],
  );
  const [items, setItems] = useState<ListEntry[] | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [saved, setSaved] = useState(false);
  useEffect(() => {
    if (list.data) setItems(list.data.items);
  }, [list.data]);
  const { byField, rest } = fieldErrors(error, [kind]);
  const headingId = `${kind}-heading`;
  return (
    <section class="card settings-section" aria-labelledby={headingId}>
      <h2 id={headingId}>{label}</h2>
      <p class="wa-muted" id={`${kind}-hint`}>
        {kind === "audiences"
          ? "Who posts are written for; offered when generating a post. Any member can edit this list."
          : "Languages offered when generating a post. Any member can edit this list."}
      </p>
      {list.loading && !items && <Loading label={`Loading ${kind}`} />}
      {list.error ? <ErrorMessage error={list.error} onRetry={list.reload} /> : null}
      {items && (
        <form
          onSubmit={async (e) => {
            e.preventDefault();
            setBusy(true);
            setError(null);
            setSaved(false);
            try {
              const clean = items.map((i) => ({ id: i.id, name: i.name.trim() }));
              const answer = await saveList(workspaceId, kind, clean);
              setItems(answer.items);
              setSaved(true);
            } catch (err) {
              setError(err);
            } finally {
              setBusy(false);
            }
          }}
        >
          <ListEditor
            idPrefix={kind}
            itemLabel={one}
            items={items}
            max={30}
            describedBy={byField[kind] ? `${kind}-hint ${kind}-error` : `${kind}-hint`}
            onChange={(next) => {
              setItems(next);
              setSaved(false);
            }}
          />
          {byField[kind] && (
            <p class="field-error" id={`${kind}-error`} role="alert">{byField[kind]}</p>
          )}
          <ErrorMessage error={rest} />
          <div class="button-row wa-start">
            <button type="submit" class="button" disabled={busy}>
              {busy ? "Saving…" : `Save ${kind}`}
            </button>
            <span class="saved-note" role="status">{saved ? "Saved" : ""}</span>
          </div>
        </form>
      )}
    </section>
  );
}
