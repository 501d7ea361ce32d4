/**
 * The ideas board's filters: status, tags (a comma list; ideas carrying every tag) and author.
 * The values live in the URL query (the screen owns that); the tags box applies as you pause
 * typing, on Enter, or on leaving it.
 */
import { useEffect, useRef, useState } from "preact/hooks";
import type { Schemas } from "../state/api.ts";

export interface IdeaFilterValues {
  status: "" | "new" | "converted";
  /** Comma-separated, normalised. */
  tags: string;
  /** A user id, or "" for anyone. */
  author: string;
}

/** "a, b,,c " -> ["a", "b", "c"] (trimmed, no empties, no duplicates). */
export function parseTags(text: string): string[] {
  const out: string[] = [];
  for (const part of text.split(",")) {
    const tag = part.trim();
    if (tag && !out.includes(tag)) out.push(tag);
  }
  return out;
}

export function IdeaFilters(
  { values, members, me, onChange }: {
    values: IdeaFilterValues;
    /** undefined while loading. */
    members?: Schemas["WorkspaceMemberWithProfile"][];
    me?: string;
    onChange: (next: IdeaFilterValues) => void;
  },
) {
  const [tags, setTags] = useState(values.tags.split(",").join(", "));
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  // The URL changed (back button, a tag clicked, Clear): show its tags.
  useEffect(() => {
    if (parseTags(tags).join(",") !== values.tags) setTags(values.tags.split(",").join(", "));
  }, [values.tags]);
  useEffect(() => () => clearTimeout(timer.current), []);

  const applyTags = (text: string) => {
    clearTimeout(timer.current);
    if (parseTags(text).join(",") !== values.tags) onChange({ ...values, tags: text });
  };
  const active = Boolean(values.status || values.tags || values.author);

  return (
    <form
      class="idea-filters"
      role="search"
      aria-label="Filter ideas"
      onSubmit={(e) => {
        e.preventDefault();
        applyTags(tags);
      }}
    >
      <div class="idea-filter">
        <label for="idea-filter-status">Status</label>
        <select
          id="idea-filter-status"
          value={values.status}
          onChange={(e) =>
            onChange({ ...values, status: e.currentTarget.value as IdeaFilterValues["status"] })}
        >
          <option value="">Any status</option>
          <option value="new">New</option>
          <option value="converted">Converted</option>
        </select>
      </div>
      <div class="idea-filter idea-filter-tags">
        <label for="idea-filter-tags">Tags</label>
        <input
          id="idea-filter-tags"
          type="search"
          placeholder="e.g. hiring, remote"
          autoComplete="off"
          value={tags}
          onInput={(e) => {
            const text = e.currentTarget.value;
            setTags(text);
            clearTimeout(timer.current);
            timer.current = setTimeout(() => applyTags(text), 400);
          }}
          onBlur={() => applyTags(tags)}
        />
      </div>
      <div class="idea-filter">
        <label for="idea-filter-author">Author</label>
        <select
          id="idea-filter-author"
          value={values.author}
          onChange={(e) => onChange({ ...values, author: e.currentTarget.value })}
        >
          <option value="">Anyone</option>
          {(members ?? []).map((m) => (
            <option key={m.user_id} value={m.user_id}>
              {(m.name || m.email) + (m.user_id === me ? " (you)" : "")}
            </option>
          ))}
          {values.author && !members?.some((m) => m.user_id === values.author) && (
            <option value={values.author}>{members ? "A former member" : "Loading…"}</option>
          )}
        </select>
      </div>
      {active && (
        <button
          type="button"
          class="button secondary idea-filter-clear"
          onClick={() => {
            setTags("");
            onChange({ status: "", tags: "", author: "" });
          }}
        >
          Clear filters
        </button>
      )}
    </form>
  );
}
