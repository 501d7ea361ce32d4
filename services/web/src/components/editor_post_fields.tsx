import { useEffect, useRef, useState } from "preact/hooks";
import type { Schemas } from "../state/api.ts";
import { setPostStatus, updatePost } from "../state/posts.ts";
import { ErrorMessage } from "./error_message.tsx";

type Post = Schemas["Post"];
type Status = Post["status"];

export const STATUSES: { value: Status; label: string }[] = [
  { value: "draft", label: "Draft" },
  { value: "in_review", label: "In review" },
  { value: "approved", label: "Approved" },
  { value: "scheduled", label: "Scheduled" },
  { value: "published", label: "Published" },
];

const AUTOSAVE_MS = 700;

function parseTags(text: string): string[] {
  const seen = new Set<string>();
  for (const raw of text.split(",")) {
    const tag = raw.trim().replace(/^#/, "");
    if (tag) seen.add(tag);
  }
  return [...seen];
}

type SaveState = "saved" | "dirty" | "saving" | "error";

/**
 * The post's title, tags and status. Title and tags save by themselves shortly after typing
 * stops (and on leaving the field); the status saves when chosen. The save state is announced.
 */
export function EditorPostFields(
  { post, onSaved }: { post: Post; onSaved: (post: Post) => void },
) {
  const [title, setTitle] = useState(post.title);
  const [tags, setTags] = useState(post.tags.join(", "));
  const [state, setState] = useState<SaveState>("saved");
  const [error, setError] = useState<unknown>(null);
  const [statusSaving, setStatusSaving] = useState(false);
  const [statusError, setStatusError] = useState<unknown>(null);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const edit = useRef(0);
  const latest = useRef({ title, tags });
  latest.current = { title, tags };

  useEffect(() => () => clearTimeout(timer.current), []);

  async function save() {
    clearTimeout(timer.current);
    const version = edit.current;
    const { title, tags } = latest.current;
    setState("saving");
    setError(null);
    try {
      const saved = await updatePost(post, { title: title.trim(), tags: parseTags(tags) });
      onSaved(saved);
      if (version === edit.current) setState("saved");
    } catch (err) {
      setError(err);
      setState("error");
    }
  }

  function changed(next: { title?: string; tags?: string }) {
    if (next.title !== undefined) setTitle(next.title);
    if (next.tags !== undefined) setTags(next.tags);
    edit.current++;
    setState("dirty");
    clearTimeout(timer.current);
    timer.current = setTimeout(() => void save(), AUTOSAVE_MS);
  }

  function flush() {
    if (state === "dirty") void save();
  }

  async function changeStatus(status: Status) {
    setStatusSaving(true);
    setStatusError(null);
    try {
      onSaved(await setPostStatus(post, status));
    } catch (err) {
      setStatusError(err);
    } finally {
      setStatusSaving(false);
    }
  }

  const saveText = state === "saving"
    ? "Saving…"
    : state === "dirty"
    ? "Unsaved changes"
    : state === "error"
    ? "Not saved"
    : "All changes saved";

  return (
    <div class="editor-post-fields">
      <div class="editor-title-row">
        <label class="visually-hidden" for="post-title">Title</label>
        {
          /* a text area so a long title wraps and stays readable (it grows with its text); the
            title is still one line: Enter saves, and a pasted line break becomes a space */
        }
        <textarea
          id="post-title"
          class="editor-title-input"
          rows={1}
          value={title}
          placeholder="Untitled post"
          maxLength={500}
          onInput={(e) => {
            const el = e.currentTarget;
            if (/[\r\n]/.test(el.value)) el.value = el.value.replace(/[\r\n]+/g, " ");
            changed({ title: el.value });
          }}
          onBlur={flush}
          onKeyDown={(e) => {
            if (e.key === "Enter") {
              e.preventDefault();
              void save();
            }
          }}
        />
        <p class={`editor-save-state is-${state}`} role="status" aria-label="Save state">
          {saveText}
        </p>
      </div>
      <div class="editor-meta-row">
        <div class="field editor-tags-field">
          <label for="post-tags">Tags</label>
          <input
            id="post-tags"
            value={tags}
            placeholder="launch, hiring"
            aria-describedby="post-tags-hint"
            onInput={(e) => changed({ tags: e.currentTarget.value })}
            onBlur={flush}
            onKeyDown={(e) => {
              if (e.key === "Enter") {
                e.preventDefault();
                void save();
              }
            }}
          />
          <span id="post-tags-hint" class="hint">Separate tags with commas</span>
        </div>
        <div class="field editor-status-field">
          <label for="post-status">Status</label>
          <select
            id="post-status"
            value={post.status}
            disabled={statusSaving}
            onChange={(e) => void changeStatus(e.currentTarget.value as Status)}
          >
            {STATUSES.map((s) => <option key={s.value} value={s.value}>{s.label}</option>)}
          </select>
        </div>
      </div>
      <ErrorMessage error={error} onRetry={() => void save()} />
      <ErrorMessage error={statusError} />
    </div>
  );
}
