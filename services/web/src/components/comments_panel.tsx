/**
 * Inline comments on the post: select words in the editor, then "Comment on selection" (or
 * Ctrl-Alt-M / ⌘⌥M) to anchor a comment on them, or write a comment on the whole post.
 * Threads list open ones first, resolved ones folded away; comment events from the live
 * session (type-100 frames) refresh the list without a reload. `?comment=<id>` (the link in
 * comment DMs) opens and focuses that thread.
 *
 * Anchors are Yjs relative positions in `mark_id` (editor/comment_anchor.ts); the editor
 * highlights them (editor/comment_highlights.ts).
 */
import { useEffect, useMemo, useRef, useState } from "preact/hooks";
import { useSignal } from "@preact/signals";
import type { Schemas } from "../state/api.ts";
import { addComment, loadComments } from "../state/comments.ts";
import type { EditorSession } from "../editor/session.ts";
import { decodeAnchor, encodeAnchor, resolveAnchor } from "../editor/comment_anchor.ts";
import {
  commentHighlights,
  setActiveComment,
  setCommentMarks,
} from "../editor/comment_highlights.ts";
import { commentShortcut } from "../editor/comment_shortcut.ts";
import { useResource } from "./use_resource.ts";
import { Loading } from "./loading.tsx";
import { ErrorMessage } from "./error_message.tsx";
import { claims, isAdmin } from "../state/session.ts";
import { workspaces } from "../state/workspaces.ts";
import { url } from "../router.tsx";
import { CommentThread } from "./comment_thread.tsx";
import { TEXT_EXCERPT_MAX } from "./comment_limits.ts";
import { mentionedIds, MentionTextarea, useMentionable } from "./mention_textarea.tsx";

type Comment = Schemas["Comment"];

const IS_MAC = typeof navigator !== "undefined" && /Mac|iPhone|iPad/.test(navigator.platform);
const SHORTCUT_LABEL = IS_MAC ? "⌘⌥M" : "Ctrl+Alt+M";

interface Pending {
  markId: string;
  excerpt: string;
}

export function CommentsPanel({ session }: { session: EditorSession }) {
  const { workspaceId, postId, ytext } = session;
  const list = useResource(
    () => loadComments(workspaceId, postId),
    [workspaceId, postId],
  );
  const comments = list.data?.items;
  const view = session.view.value;

  const selection = useSignal({ from: 0, to: 0 });
  /** Bumped on every change of the text: re-checks which anchors still have their words. */
  const docTick = useSignal(0);
  const [pending, setPending] = useState<Pending | null>(null);
  const [draft, setDraft] = useState("");
  const [saving, setSaving] = useState(false);
  const [formError, setFormError] = useState<unknown>(null);
  const [hint, setHint] = useState<string | null>(null);
  const [activeId, setActiveId] = useState<string | null>(
    () => url.value.search.get("comment"),
  );
  const [resolvedOpen, setResolvedOpen] = useState(false);
  const deepLink = useRef<string | null>(url.value.search.get("comment"));
  const textarea = useRef<HTMLTextAreaElement>(null);
  const panel = useRef<HTMLElement>(null);

  const mentionable = useMentionable(workspaceId);
  const me = claims.value?.sub ?? "";
  const role = workspaces.value?.find((w) => w.workspace_id === workspaceId)?.member_role;
  const privileged = isAdmin.value || role === "owner";

  /** Starts a comment on the editor's selection; answers false when nothing is selected. */
  const startComment = useRef<() => boolean>(() => false);
  startComment.current = () => {
    const v = session.view.value;
    const sel = v?.state.selection.main;
    if (!v || !sel || sel.empty) {
      setHint("Select the words you want to comment on first, then try again.");
      return false;
    }
    const markId = encodeAnchor(ytext, sel.from, sel.to);
    if (!markId) {
      setHint("This selection cannot be anchored; comment on the whole post instead.");
      return false;
    }
    setHint(null);
    setFormError(null);
    setPending({
      markId,
      excerpt: v.state.doc.sliceString(sel.from, sel.to).slice(0, TEXT_EXCERPT_MAX),
    });
    setTimeout(() => textarea.current?.focus(), 0);
    return true;
  };

  const focusThread = (id: string, { focus = false } = {}) => {
    setActiveId(id);
    setTimeout(() => {
      const el = panel.current?.querySelector<HTMLElement>(`[data-thread-id="${id}"]`);
      el?.scrollIntoView({ block: "nearest" });
      if (focus) el?.focus();
    }, 0);
  };

  // The editor extensions: highlights (click one to open its thread) and the shortcut.
  useEffect(() => {
    const extension = [
      commentHighlights({ ytext, onSelect: (id) => focusThread(id) }),
      commentShortcut({
        onComment: () => startComment.current(),
        onSelection: (from, to) => {
          selection.value = { from, to };
          if (from !== to) setHint(null);
        },
      }),
    ];
    session.extraExtensions.value = [...session.extraExtensions.value, extension];
    const onText = () => docTick.value++;
    ytext.observe(onText);
    return () => {
      ytext.unobserve(onText);
      session.extraExtensions.value = session.extraExtensions.value.filter((e) => e !== extension);
    };
  }, [session]);

  // Live: every comment event re-reads the list.
  useEffect(() => session.onCommentEvent(() => list.reload()), [session]);

  // The open threads' anchors go to the highlights; the focused one stands out.
  useEffect(() => {
    if (!view) return;
    const marks = (comments ?? []).flatMap((c) => {
      const anchor = c.resolved_at ? null : decodeAnchor(c.mark_id);
      return anchor ? [{ id: c.comment_id, anchor }] : [];
    });
    view.dispatch({ effects: [setCommentMarks.of(marks), setActiveComment.of(activeId)] });
  }, [view, comments, activeId]);

  // The deep link: open (and unfold) the thread once the list is there.
  useEffect(() => {
    const id = deepLink.current;
    if (!id || !comments) return;
    const found = comments.find((c) => c.comment_id === id);
    if (!found) {
      setHint("The comment in the link no longer exists.");
      deepLink.current = null;
      return;
    }
    if (found.resolved_at) setResolvedOpen(true);
    if (view) {
      deepLink.current = null;
      focusThread(id, { focus: true });
      showInText(found, { focusEditor: false });
    }
  }, [comments, view]);

  function showInText(comment: Comment, { focusEditor = true } = {}) {
    setActiveId(comment.comment_id);
    const v = session.view.value;
    const anchor = decodeAnchor(comment.mark_id);
    const at = anchor && resolveAnchor(ytext, anchor);
    if (!v || !at || at.to > v.state.doc.length) return;
    v.dispatch({ selection: { anchor: at.from, head: at.to }, scrollIntoView: true });
    if (focusEditor) v.focus();
  }

  async function submit(e: Event) {
    e.preventDefault();
    if (!draft.trim()) {
      setFormError(new Error("Write your comment first"));
      return;
    }
    setSaving(true);
    setFormError(null);
    try {
      const created = await addComment(
        workspaceId,
        postId,
        draft.trim(),
        pending ? { markId: pending.markId, excerpt: pending.excerpt } : undefined,
        mentionedIds(draft, mentionable),
      );
      setDraft("");
      setPending(null);
      setActiveId(created.comment_id);
      list.reload();
    } catch (err) {
      setFormError(err);
    } finally {
      setSaving(false);
    }
  }

  const open = useMemo(() => (comments ?? []).filter((c) => !c.resolved_at), [comments]);
  const resolved = useMemo(() => (comments ?? []).filter((c) => c.resolved_at), [comments]);
  const hasSelection = selection.value.from !== selection.value.to;
  docTick.value; // re-render when the text changes (anchors may lose their words)

  const located = (c: Comment) => {
    const anchor = decodeAnchor(c.mark_id);
    return anchor ? resolveAnchor(ytext, anchor) !== null : null;
  };

  const thread = (c: Comment) => (
    <CommentThread
      key={c.comment_id}
      comment={c}
      workspaceId={workspaceId}
      postId={postId}
      active={c.comment_id === activeId}
      located={located(c)}
      canDelete={(by) => by === me || privileged}
      onShow={() => showInText(c)}
      onChanged={list.reload}
    />
  );

  return (
    <section class="card stack comments-panel" aria-labelledby="comments-heading" ref={panel}>
      <div class="comments-head">
        <h2 id="comments-heading">
          Comments{open.length > 0 && <span class="comments-count">{open.length} open</span>}
        </h2>
        <button
          type="button"
          class="button secondary"
          onClick={() => startComment.current()}
          aria-keyshortcuts={IS_MAC ? "Meta+Alt+M" : "Control+Alt+M"}
          title={`Comment on the selected words (${SHORTCUT_LABEL})`}
          aria-disabled={!hasSelection}
        >
          Comment on selection
        </button>
      </div>
      {hint && <p class="comment-hint" role="status">{hint}</p>}

      <form class="comment-form stack" onSubmit={submit}>
        {pending && (
          <div class="comment-pending">
            <blockquote class="comment-excerpt-quote">“{pending.excerpt}”</blockquote>
            <button
              type="button"
              class="comment-link"
              onClick={() => setPending(null)}
            >
              Comment on the whole post instead
            </button>
          </div>
        )}
        <div class="field">
          <label for="comment-new">
            {pending ? "Comment on the selected words" : "Comment on the whole post"}
          </label>
          <MentionTextarea
            id="comment-new"
            inputRef={textarea}
            members={mentionable}
            rows={2}
            value={draft}
            maxLength={10000}
            placeholder={pending
              ? "What should change here?"
              : "Or select words in the post to comment on them"}
            onInput={setDraft}
            onKeyDown={(e) => {
              if (e.key === "Enter" && (e.metaKey || e.ctrlKey)) {
                e.preventDefault();
                e.currentTarget.form?.requestSubmit();
              }
              if (e.key === "Escape" && pending) setPending(null);
            }}
          />
        </div>
        <ErrorMessage error={formError} />
        <div class="comment-form-actions">
          <button type="submit" class="button" disabled={saving}>
            {saving && <span class="spinner" aria-hidden="true" />}
            {saving ? "Adding…" : "Add comment"}
          </button>
        </div>
      </form>

      {list.error && !comments && <ErrorMessage error={list.error} onRetry={list.reload} />}
      {!comments && !list.error && <Loading label="Loading comments" />}
      {comments && (
        <>
          {open.length === 0
            ? (
              <p class="comments-empty">
                No open comments. Select words in the post to comment on them, or write a comment on
                the whole post above.
              </p>
            )
            : (
              <ul class="comment-threads" aria-label="Open comments">
                {open.map((c) => <li key={c.comment_id}>{thread(c)}</li>)}
              </ul>
            )}
          {resolved.length > 0 && (
            <details
              class="comments-resolved"
              open={resolvedOpen}
              onToggle={(e) => setResolvedOpen((e.currentTarget as HTMLDetailsElement).open)}
            >
              <summary>Resolved ({resolved.length})</summary>
              <ul class="comment-threads" aria-label="Resolved comments">
                {resolved.map((c) => <li key={c.comment_id}>{thread(c)}</li>)}
              </ul>
            </details>
          )}
          {list.error && <ErrorMessage error={list.error} onRetry={list.reload} />}
        </>
      )}
    </section>
  );
}
