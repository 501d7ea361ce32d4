/**
 * Edits a list of named items in place: rename in the row, remove with the row's button, add
 * at the bottom (Enter adds). Items keep their `id` when renamed, so references to them stay.
 */
import { useState } from "preact/hooks";

export interface ListEntry {
  id: string;
  name: string;
}

export function ListEditor(
  { idPrefix, itemLabel, items, onChange, readOnly, placeholder, addLabel, max, describedBy }: {
    /** prefix of the inputs' ids (unique on the page) */
    idPrefix: string;
    /** what one item is called, for labels: "Audience", "Slot" */
    itemLabel: string;
    items: ListEntry[];
    onChange: (items: ListEntry[]) => void;
    readOnly?: boolean;
    placeholder?: string;
    addLabel?: string;
    max?: number;
    describedBy?: string;
  },
) {
  const [draft, setDraft] = useState("");
  const full = max !== undefined && items.length >= max;
  if (readOnly) {
    return items.length === 0 ? <p class="wa-muted">None yet.</p> : (
      <ul class="wa-chip-list">
        {items.map((item) => <li key={item.id} class="wa-chip">{item.name}</li>)}
      </ul>
    );
  }
  const add = () => {
    const name = draft.trim();
    if (!name || full) return;
    const taken = new Set(items.map((i) => i.id));
    let id = name;
    for (let n = 2; taken.has(id); n++) id = `${name}-${n}`;
    onChange([...items, { id, name }]);
    setDraft("");
  };
  return (
    <div class="list-editor">
      {items.length === 0 && <p class="wa-muted">None yet. Add the first one below.</p>}
      {items.length > 0 && (
        <ol class="list-editor-items">
          {items.map((item, i) => (
            <li key={item.id} class="list-editor-row">
              <input
                id={`${idPrefix}-${i}`}
                aria-label={`${itemLabel} ${i + 1}`}
                aria-describedby={describedBy}
                value={item.name}
                onInput={(e) => {
                  const name = e.currentTarget.value;
                  onChange(items.map((it, j) => (j === i ? { ...it, name } : it)));
                }}
              />
              <button
                type="button"
                class="button secondary wa-small"
                aria-label={`Remove ${itemLabel.toLowerCase()} ${item.name || i + 1}`}
                onClick={() => onChange(items.filter((_, j) => j !== i))}
              >
                Remove
              </button>
            </li>
          ))}
        </ol>
      )}
      <div class="list-editor-row list-editor-add">
        <input
          id={`${idPrefix}-new`}
          aria-label={`New ${itemLabel.toLowerCase()}`}
          aria-describedby={describedBy}
          placeholder={placeholder}
          value={draft}
          disabled={full}
          onInput={(e) => setDraft(e.currentTarget.value)}
          onKeyDown={(e) => {
            if (e.key === "Enter") {
              e.preventDefault();
              add();
            }
          }}
        />
        <button
          type="button"
          class="button secondary wa-small"
          onClick={add}
          disabled={!draft.trim() || full}
        >
          {addLabel ?? `Add ${itemLabel.toLowerCase()}`}
        </button>
      </div>
      {full && <p class="wa-muted">At most {max} items.</p>}
    </div>
  );
}
