/**
 * One comment thread in the comments panel: the anchored words (click to show them in the
 * text), the comment, its replies, a reply form, resolve/reopen and delete. Every change goes
 * to the API and then `onChanged` re-reads the list (the others hear the comment event).
 */
import { useId, useState } from "preact/hooks";
import type { Schemas } from "../state/api.ts";
import {
  addReply,
  deleteComment as removeComment,
  deleteReply as removeReply,
  toggleResolved as toggleCommentResolved,
} from "../state/comments.ts";
import { ErrorMessage } from "./error_message.tsx";
import { RelativeTime } from "./idea_time.tsx";
import { useConfirm } from "./confirm_dialog.tsx";
import { mentionedIds, MentionText, MentionTextarea, useMentionable } from "./mention_textarea.tsx";

type Comment = Schemas["Comment"];

export interface CommentThreadProps {
  comment: Comment;
  workspaceId: string;
  postId: string;
  active: boolean;
  /** true: its words are in the text; false: they were deleted; null: a page-level comment. */
  located: boolean | null;
  canDelete: (createdBy: string) => boolean;
  onShow: () => void;
  onChanged: () => void;
}

export function CommentThread(
  { comment, workspaceId, postId, active, located, canDelete, onShow, onChanged }:
    CommentThreadProps,
) {
  const id = useId();
  const [reply, setReply] = useState("");
  const [busy, setBusy] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [dialog, ask] = useConfirm();
  const mentionable = useMentionable(workspaceId);
  const resolved = Boolean(comment.resolved_at);
  const commentId = comment.comment_id;

  async function run(what: string, action: () => Promise<unknown>) {
    setBusy(what);
    setError(null);
    try {
      await action();
      onChanged();
      return true;
    } catch (err) {
      setError(err);
      return false;
    } finally {
      setBusy(null);
    }
  }

  const toggleResolved = () =>
    run("resolve", () => toggleCommentResolved(workspaceId, postId, commentId));

  async function deleteComment() {
    const ok = await ask({
      title: "Delete this comment?",
      body: comment.replies.length > 0
        ? `Its ${comment.replies.length} ${
          comment.replies.length === 1 ? "reply goes" : "replies go"
        } too. This cannot be undone.`
        : "This cannot be undone.",
      confirmLabel: "Delete comment",
    });
    if (!ok) return;
    await run("delete", () => removeComment(workspaceId, postId, commentId));
  }

  const deleteReply = (replyId: string) =>
    run(
      `reply-${replyId}`,
      () => removeReply(workspaceId, postId, commentId, replyId),
    );

  async function sendReply(e: Event) {
    e.preventDefault();
    if (!reply.trim()) {
      setError(new Error("Write your reply first"));
      return;
    }
    const ok = await run(
      "reply",
      () =>
        addReply(workspaceId, postId, commentId, reply.trim(), mentionedIds(reply, mentionable)),
    );
    if (ok) setReply("");
  }

  return (
    <article
      class={`comment-thread${active ? " is-active" : ""}${resolved ? " is-resolved" : ""}`}
      data-thread-id={comment.comment_id}
      tabIndex={-1}
      aria-labelledby={`${id}-by`}
      aria-current={active ? "true" : undefined}
    >
      {dialog}
      {comment.text_excerpt
        ? (
          <button
            type="button"
            class="comment-excerpt"
            onClick={onShow}
            title={located === false ? undefined : "Show these words in the post"}
          >
            <span class="visually-hidden">Show in the post:</span>
            <span class="comment-excerpt-text">“{comment.text_excerpt}”</span>
          </button>
        )
        : <p class="comment-scope">On the whole post</p>}
      {located === false && !resolved && (
        <p class="comment-note">The commented words were deleted.</p>
      )}
      <p class="comment-meta" id={`${id}-by`}>
        <span class="comment-author">{comment.created_by_name || "Someone"}</span>{" "}
        <RelativeTime iso={comment.created_at} />
        {resolved && <span class="comment-badge">Resolved</span>}
      </p>
      <p class="comment-body">
        <MentionText text={comment.body} members={mentionable} />
      </p>

      {comment.replies.length > 0 && (
        <ul class="comment-replies" aria-label="Replies">
          {comment.replies.map((r) => (
            <li key={r.reply_id} class="comment-reply">
              <p class="comment-meta">
                <span class="comment-author">{r.created_by_name || "Someone"}</span>{" "}
                <RelativeTime iso={r.created_at} />
                {canDelete(r.created_by) && (
                  <button
                    type="button"
                    class="comment-link comment-reply-delete"
                    disabled={busy !== null}
                    aria-label={`Delete reply by ${r.created_by_name || "someone"}`}
                    onClick={() => deleteReply(r.reply_id)}
                  >
                    Delete
                  </button>
                )}
              </p>
              <p class="comment-body">
                <MentionText text={r.body} members={mentionable} />
              </p>
            </li>
          ))}
        </ul>
      )}

      <form class="comment-reply-form" onSubmit={sendReply}>
        <label class="visually-hidden" for={`${id}-reply`}>
          Reply to {comment.created_by_name || "this comment"}
        </label>
        <MentionTextarea
          id={`${id}-reply`}
          members={mentionable}
          rows={1}
          value={reply}
          maxLength={10000}
          placeholder="Reply…"
          onInput={setReply}
          onKeyDown={(e) => {
            if (e.key === "Enter" && (e.metaKey || e.ctrlKey)) {
              e.preventDefault();
              e.currentTarget.form?.requestSubmit();
            }
          }}
        />
        <button type="submit" class="button secondary" disabled={busy !== null}>
          {busy === "reply" && <span class="spinner" aria-hidden="true" />}Reply
        </button>
      </form>

      <ErrorMessage error={error} />
      <div class="comment-actions">
        <button
          type="button"
          class="button secondary"
          disabled={busy !== null}
          onClick={toggleResolved}
        >
          {busy === "resolve" && <span class="spinner" aria-hidden="true" />}
          {resolved ? "Reopen" : "Resolve"}
        </button>
        {canDelete(comment.created_by) && (
          <button
            type="button"
            class="button secondary danger"
            disabled={busy !== null}
            onClick={deleteComment}
          >
            {busy === "delete" && <span class="spinner" aria-hidden="true" />}
            Delete comment
          </button>
        )}
      </div>
    </article>
  );
}
