/**
 * One idea on the board: its title, text, tags, source, author and age; "Write a post" (or
 * "Open post" once converted), inline edit (title, description, tags, source URL) and delete
 * behind a confirmation. Each action's error shows on the card.
 */
import { useEffect, useRef, useState } from "preact/hooks";
import type { Schemas } from "../state/api.ts";
import { deleteIdea, updateIdea } from "../state/ideas.ts";
import { createPost } from "../state/posts.ts";
import { Link, navigate } from "../router.tsx";
import { ErrorMessage } from "./error_message.tsx";
import { parseTags } from "./idea_filters.tsx";
import { RelativeTime } from "./idea_time.tsx";

type Idea = Schemas["Idea"];
type Mode = "view" | "edit" | "delete";

/** Only web links become links (a stored `javascript:` URL stays text). */
function safeHref(value: string): string | null {
  try {
    const u = new URL(value);
    return u.protocol === "http:" || u.protocol === "https:" ? u.href : null;
  } catch {
    return null;
  }
}

function hostOf(href: string): string {
  try {
    return new URL(href).host.replace(/^www\./, "");
  } catch {
    return href;
  }
}

export function IdeaItem(
  { idea, workspaceId, authorName, onChange, onDelete, onTagClick }: {
    idea: Idea;
    workspaceId: string;
    authorName?: string;
    onChange: (idea: Idea) => void;
    onDelete: (id: string) => void;
    onTagClick: (tag: string) => void;
  },
) {
  const [mode, setMode] = useState<Mode>("view");
  const [busy, setBusy] = useState<null | "write" | "save" | "delete">(null);
  const [error, setError] = useState<unknown>(null);
  const editButton = useRef<HTMLButtonElement>(null);
  const deleteButton = useRef<HTMLButtonElement>(null);
  const returnFocus = useRef<"edit" | "delete" | null>(null);
  const base = `/workspaces/${encodeURIComponent(workspaceId)}`;
  const headingId = `idea-${idea.idea_id}-title`;

  useEffect(() => {
    if (mode !== "view" || !returnFocus.current) return;
    (returnFocus.current === "edit" ? editButton : deleteButton).current?.focus();
    returnFocus.current = null;
  }, [mode]);

  const back = (from: "edit" | "delete") => {
    returnFocus.current = from;
    setError(null);
    setMode("view");
  };

  async function writePost() {
    setBusy("write");
    setError(null);
    try {
      const post = await createPost(workspaceId, {
        title: idea.title,
        source_idea_id: idea.idea_id,
      });
      navigate(`${base}/posts/${encodeURIComponent(post.post_id)}`);
    } catch (err) {
      setError(err);
      setBusy(null);
    }
  }

  async function remove() {
    setBusy("delete");
    setError(null);
    try {
      await deleteIdea(workspaceId, idea.idea_id);
      onDelete(idea.idea_id);
    } catch (err) {
      setError(err);
      setBusy(null);
    }
  }

  if (mode === "edit") {
    return (
      <li class="idea-card idea-editing">
        <IdeaEditForm
          idea={idea}
          workspaceId={workspaceId}
          onSaved={(next) => {
            onChange(next);
            back("edit");
          }}
          onCancel={() => back("edit")}
        />
      </li>
    );
  }

  const source = idea.source_url ? safeHref(idea.source_url) : null;
  const showDescription = idea.description.trim() && idea.description.trim() !== idea.title.trim();

  return (
    <li class="idea-card">
      <article aria-labelledby={headingId}>
        <div class="idea-head">
          <h2 class="idea-title" id={headingId}>{idea.title}</h2>
          <span class={`idea-status idea-status-${idea.status}`}>
            {idea.status === "new" ? "New" : "Converted"}
          </span>
        </div>
        {showDescription && <p class="idea-description">{idea.description}</p>}
        <p class="idea-meta">
          {authorName && <span>{authorName}</span>}
          <RelativeTime iso={idea.created_at} />
          {source && (
            <a href={source} target="_blank" rel="noopener noreferrer" class="idea-source">
              {hostOf(source)}
            </a>
          )}
          {!source && idea.source_url && <span class="idea-source">{idea.source_url}</span>}
        </p>
        {idea.tags.length > 0 && (
          <ul class="idea-tags" aria-label="Tags">
            {idea.tags.map((tag) => (
              <li key={tag}>
                <button
                  type="button"
                  class="idea-tag"
                  title={`Show ideas tagged ${tag}`}
                  onClick={() => onTagClick(tag)}
                >
                  #{tag}
                </button>
              </li>
            ))}
          </ul>
        )}
        {mode === "delete"
          ? (
            <div class="idea-confirm" role="group" aria-label="Confirm delete">
              <p>Delete this idea? This cannot be undone.</p>
              <div class="idea-actions">
                <button
                  type="button"
                  class="button idea-danger"
                  disabled={busy === "delete"}
                  onClick={() => void remove()}
                >
                  {busy === "delete" ? "Deleting…" : "Delete idea"}
                </button>
                <CancelButton onCancel={() => back("delete")} />
              </div>
            </div>
          )
          : (
            <div class="idea-actions">
              {idea.status === "converted" && idea.linked_post_id
                ? (
                  <Link
                    class="button secondary"
                    href={`${base}/posts/${encodeURIComponent(idea.linked_post_id)}`}
                  >
                    Open post
                  </Link>
                )
                : idea.status === "new" && (
                  <button
                    type="button"
                    class="button"
                    disabled={busy !== null}
                    onClick={() => void writePost()}
                  >
                    {busy === "write" ? "Creating post…" : "Write a post"}
                  </button>
                )}
              <button
                type="button"
                class="button secondary"
                ref={editButton}
                onClick={() => {
                  setError(null);
                  setMode("edit");
                }}
              >
                Edit
              </button>
              <button
                type="button"
                class="button secondary idea-danger-text"
                ref={deleteButton}
                onClick={() => {
                  setError(null);
                  setMode("delete");
                }}
              >
                Delete
              </button>
            </div>
          )}
        <ErrorMessage error={error} />
      </article>
    </li>
  );
}

/** Cancel, focused when it appears (the safe choice under Enter). */
function CancelButton({ onCancel }: { onCancel: () => void }) {
  const ref = useRef<HTMLButtonElement>(null);
  useEffect(() => ref.current?.focus(), []);
  return (
    <button type="button" class="button secondary" ref={ref} onClick={onCancel}>
      Cancel
    </button>
  );
}

function IdeaEditForm(
  { idea, workspaceId, onSaved, onCancel }: {
    idea: Idea;
    workspaceId: string;
    onSaved: (idea: Idea) => void;
    onCancel: () => void;
  },
) {
  const [title, setTitle] = useState(idea.title);
  const [description, setDescription] = useState(idea.description);
  const [tags, setTags] = useState(idea.tags.join(", "));
  const [source, setSource] = useState(idea.source_url);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const first = useRef<HTMLInputElement>(null);
  useEffect(() => first.current?.focus(), []);
  const id = (name: string) => `idea-${idea.idea_id}-${name}`;
  const titleError = title.trim() === ""
    ? "A title is needed"
    : title.trim().length > 500
    ? "At most 500 characters"
    : null;

  return (
    <form
      class="idea-edit"
      aria-label={`Edit idea ${idea.title}`}
      onKeyDown={(e) => {
        if (e.key === "Escape") {
          e.preventDefault();
          onCancel();
        }
      }}
      onSubmit={async (e) => {
        e.preventDefault();
        if (titleError) return;
        setBusy(true);
        setError(null);
        try {
          const saved = await updateIdea(idea.idea_id, {
            workspace_id: workspaceId,
            title: title.trim(),
            description,
            tags: parseTags(tags),
            source_url: source.trim(),
          });
          onSaved(saved);
        } catch (err) {
          setError(err);
          setBusy(false);
        }
      }}
    >
      <div class="field">
        <label for={id("edit-title")}>Title</label>
        <input
          id={id("edit-title")}
          ref={first}
          value={title}
          maxLength={500}
          required
          aria-invalid={titleError ? true : undefined}
          aria-describedby={titleError ? id("edit-title-error") : undefined}
          onInput={(e) => setTitle(e.currentTarget.value)}
        />
        {titleError && <p class="field-error" id={id("edit-title-error")}>{titleError}</p>}
      </div>
      <div class="field">
        <label for={id("edit-description")}>Description</label>
        <textarea
          id={id("edit-description")}
          rows={4}
          value={description}
          onInput={(e) => setDescription(e.currentTarget.value)}
        />
      </div>
      <div class="idea-edit-row">
        <div class="field">
          <label for={id("edit-tags")}>Tags</label>
          <input
            id={id("edit-tags")}
            value={tags}
            placeholder="comma, separated"
            aria-describedby={id("edit-tags-hint")}
            onInput={(e) => setTags(e.currentTarget.value)}
          />
          <span class="idea-hint" id={id("edit-tags-hint")}>Separate tags with commas</span>
        </div>
        <div class="field">
          <label for={id("edit-source")}>Source URL</label>
          <input
            id={id("edit-source")}
            type="url"
            inputMode="url"
            placeholder="https://…"
            value={source}
            onInput={(e) => setSource(e.currentTarget.value)}
          />
        </div>
      </div>
      <ErrorMessage error={error} />
      <div class="idea-actions">
        <button type="submit" class="button" disabled={busy || titleError !== null}>
          {busy ? "Saving…" : "Save"}
        </button>
        <button type="button" class="button secondary" onClick={onCancel}>Cancel</button>
      </div>
    </form>
  );
}
