/**
 * The post's first comment, posted on LinkedIn right after the post: a text box with its own
 * counter against the 1,250-character limit (a warning near it; the box takes no more), saved
 * shortly after typing stops and on leaving the box. While it is being edited, a fresher post
 * (the editor's poll) does not overwrite it.
 */
import { useEffect, useRef, useState } from "preact/hooks";
import type { Schemas } from "../state/api.ts";
import { savePublishing } from "../state/posts.ts";
import { ErrorMessage } from "./error_message.tsx";

type Post = Schemas["Post"];

/** LinkedIn's limit of a comment, in UTF-16 code units as the server counts. */
export const FIRST_COMMENT_MAX = 1250;
/** From this many characters on the counter warns. */
export const FIRST_COMMENT_WARN_AT = 1125;
const SAVE_AFTER_MS = 700;

const nf = new Intl.NumberFormat("en-US");

type SaveState = "saved" | "dirty" | "saving" | "error";

const SAVE_TEXT: Record<SaveState, string> = {
  saved: "Saved",
  dirty: "Unsaved changes",
  saving: "Saving…",
  error: "Not saved",
};

export function FirstComment({ post, onSaved }: { post: Post; onSaved: (post: Post) => void }) {
  const saved = post.first_comment ?? "";
  const [text, setText] = useState(saved);
  const [state, setState] = useState<SaveState>("saved");
  const [error, setError] = useState<unknown>(null);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const focused = useRef(false);
  const edit = useRef(0);
  const latest = useRef({ text, state, post, onSaved });
  latest.current = { text, state, post, onSaved };

  useEffect(() => {
    if (!focused.current && latest.current.state === "saved") setText(saved);
  }, [saved]);

  async function save() {
    clearTimeout(timer.current);
    const { text, post, onSaved } = latest.current;
    const version = edit.current;
    setState("saving");
    setError(null);
    try {
      const answer = await savePublishing(post, {
        first_comment: text.trim() === "" ? null : text,
      });
      onSaved(answer);
      if (version === edit.current) setState("saved");
    } catch (err) {
      setError(err);
      setState("error");
    }
  }
  // Leaving the editor with a change not yet sent sends it.
  useEffect(() => () => {
    if (latest.current.state === "dirty") void save();
  }, []);

  const count = text.length;
  const level = count >= FIRST_COMMENT_MAX
    ? "over"
    : count >= FIRST_COMMENT_WARN_AT
    ? "warning"
    : "ok";
  const left = FIRST_COMMENT_MAX - count;

  return (
    <section class="first-comment" aria-labelledby="first-comment-heading">
      <div class="post-section-head">
        <h2 id="first-comment-heading" class="post-section-title">
          <label for="first-comment">First comment</label>
        </h2>
        <p
          class={`editor-save-state is-${state}`}
          role="status"
          aria-label="First comment save state"
        >
          {count > 0 || state !== "saved" ? SAVE_TEXT[state] : ""}
        </p>
      </div>
      {post.status === "published" && (
        <p class="review-line review-warning" role="note">
          The post is on LinkedIn already: changing its first comment here changes nothing there.
        </p>
      )}
      <p id="first-comment-hint" class="field-hint">
        Posted as a comment right after the post goes out: a link, a source, a question.
      </p>
      <textarea
        id="first-comment"
        class="first-comment-input"
        rows={3}
        maxLength={FIRST_COMMENT_MAX}
        value={text}
        aria-describedby="first-comment-hint first-comment-count"
        onInput={(e) => {
          // The box takes no more than the limit, pasted text included.
          const next = e.currentTarget.value.slice(0, FIRST_COMMENT_MAX);
          if (next !== e.currentTarget.value) e.currentTarget.value = next;
          setText(next);
          edit.current++;
          setState("dirty");
          clearTimeout(timer.current);
          timer.current = setTimeout(() => void save(), SAVE_AFTER_MS);
        }}
        onFocus={() => {
          focused.current = true;
        }}
        onBlur={() => {
          focused.current = false;
          if (latest.current.state === "dirty") void save();
        }}
      />
      <p id="first-comment-count" class={`first-comment-count is-${level}`}>
        <span class="visually-hidden">First comment length:</span>
        <span class="first-comment-count-value">
          {nf.format(count)} / {nf.format(FIRST_COMMENT_MAX)}
        </span>
        {level === "warning" && <span>{` (${nf.format(left)} left)`}</span>}
        {level === "over" && <span>&nbsp;(limit reached)</span>}
      </p>
      <ErrorMessage error={error} onRetry={() => void save()} />
    </section>
  );
}
