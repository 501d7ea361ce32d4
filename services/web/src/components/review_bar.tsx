/**
 * The editor's review bar: the post's status; "Request review" (1 to 10 owners or
 * editors other than the author, with an optional note); for a reviewer who is not the author,
 * Approve / Request changes with a note; the review history (oldest first); who approved and
 * when, or that the text changed after approval; and the schedule picker. The post is re-read
 * every few seconds while the tab is visible (and on focus), so a decision taken in another
 * browser, a publication or an approval withdrawn by an edit shows up without a reload.
 */
import { useEffect, useRef, useState } from "preact/hooks";
import { ApiError, type Schemas } from "../state/api.ts";
import { loadMembers } from "../state/members.ts";
import { watchPost } from "../state/posts.ts";
import { loadReviews, requestReview, submitReview } from "../state/reviews.ts";
import { loadWorkspace } from "../state/workspaces.ts";
import { claims } from "../state/session.ts";
import { ErrorMessage } from "./error_message.tsx";
import { Loading } from "./loading.tsx";
import { useResource } from "./use_resource.ts";
import { SchedulePicker } from "./schedule_picker.tsx";
import { ApprovalCount, ShareForReview } from "./review_share.tsx";

type Post = Schemas["Post"];
type Review = Schemas["PostReview"];
type Member = Schemas["WorkspaceMemberWithProfile"];

const POLL_MS = 4000;
const MAX_REVIEWERS = 10;

export const STATUS_LABEL: Record<Post["status"], string> = {
  draft: "Draft",
  in_review: "In review",
  approved: "Approved",
  scheduled: "Scheduled",
  published: "Published",
};

const DECISION_LABEL: Record<Review["decision"], string> = {
  approve: "Approved",
  request_changes: "Changes requested",
  voided: "Approval voided",
};

const WHEN = new Intl.DateTimeFormat(undefined, {
  day: "numeric",
  month: "short",
  hour: "2-digit",
  minute: "2-digit",
});

function when(iso: string) {
  return <time dateTime={iso}>{WHEN.format(new Date(iso))}</time>;
}

export function ReviewBar({ post, onChange }: { post: Post; onChange: (post: Post) => void }) {
  const workspaceId = post.workspace_id;
  const postId = post.post_id;
  const me = claims.value?.sub ?? "";
  const workspace = useResource(
    () => loadWorkspace(workspaceId),
    [workspaceId],
  );
  const members = useResource(
    () => loadMembers(workspaceId),
    [workspaceId],
  );
  const reviews = useResource(
    () => loadReviews(workspaceId, postId),
    [workspaceId, postId],
  );

  // Keep the post fresh: a light poll while visible, and a read when the window regains focus.
  const latest = useRef(post);
  latest.current = post;
  const onChangeRef = useRef(onChange);
  onChangeRef.current = onChange;
  const reloadReviews = useRef(reviews.reload);
  reloadReviews.current = reviews.reload;
  useEffect(() =>
    watchPost({
      workspaceId: workspaceId,
      postId,
      everyMs: POLL_MS,
      current: () => latest.current,
      onChange: (fresh, before) => {
        onChangeRef.current(fresh);
        if (fresh.status !== before.status || fresh.approved_at !== before.approved_at) {
          reloadReviews.current();
        }
      },
    }), [workspaceId, postId]);

  const changed = (next: Post) => {
    onChange(next);
    reviews.reload();
  };

  const all = members.data?.members ?? [];
  const nameOf = (id: string | null) => {
    if (!id) return "";
    const m = all.find((m) => m.user_id === id);
    if (m) return m.name || m.email;
    // A reviewer through a review link has no account: their approval carries the name.
    const outside = post.approvals?.find((a) => a.reviewer_id === id);
    return outside ? `${outside.reviewer_name} (review link)` : "a former member";
  };
  const myRole = workspace.data?.member_role;
  const isAuthor = post.author_id === me;
  const canReview = post.status === "in_review" && !isAuthor &&
    (myRole === "owner" || myRole === "editor");
  const items = reviews.data?.items ?? [];
  const last = items[items.length - 1];
  const withdrawn = post.status === "in_review" && last?.decision === "voided";
  // An approval covers the text as it was approved; once published, the live text here may
  // differ from what LinkedIn shows, so the approval is no longer claimed for it.
  const approvalStands = post.status === "approved" || post.status === "scheduled";

  return (
    <section class="review-bar" aria-labelledby="review-bar-heading">
      <div class="review-bar-head">
        <h2 id="review-bar-heading" class="review-bar-title">Review and publishing</h2>
        <span
          class={`review-status review-status-${post.status}`}
          role="status"
          aria-label="Post status"
        >
          {STATUS_LABEL[post.status]}
        </span>
        {workspace.data && (
          <span class="review-bar-rule">
            {workspace.data.approval_required
              ? "Approval required before publishing"
              : "Approval optional in this workspace"}
          </span>
        )}
      </div>

      {post.status === "in_review" && post.reviewer_ids.length > 0 && (
        <p class="review-line">
          Waiting for {post.reviewer_ids.map(nameOf).join(", ")}.
        </p>
      )}
      {workspace.data && <ApprovalCount post={post} workspace={workspace.data} />}
      {withdrawn && (
        <p class="review-line review-warning">
          The text changed after {last.reviewer_name} approved it, so the post went back to review.
        </p>
      )}
      {approvalStands && post.approved_by && post.approved_at && (
        <p class="review-line">
          Approved by <strong>{nameOf(post.approved_by)}</strong> on {when(post.approved_at)}
        </p>
      )}

      <div class="review-actions">
        {(post.status === "draft" || post.status === "in_review") && (
          <RequestReview
            post={post}
            candidates={all.filter((m) =>
              m.user_id !== post.author_id && (m.role === "owner" || m.role === "editor")
            )}
            loading={members.loading && !members.data}
            again={post.status === "in_review"}
            onDone={changed}
          />
        )}
        {canReview && <Decide post={post} onDone={changed} />}
      </div>
      {members.error ? <ErrorMessage error={members.error} onRetry={members.reload} /> : null}

      {workspace.data && (
        <SchedulePicker post={post} workspace={workspace.data} onChange={onChange} />
      )}
      {workspace.error ? <ErrorMessage error={workspace.error} onRetry={workspace.reload} /> : null}

      <History reviews={items} loading={reviews.loading && !reviews.data} />
      {reviews.error ? <ErrorMessage error={reviews.error} onRetry={reviews.reload} /> : null}
      {(myRole === "owner" || myRole === "editor") && <ShareForReview post={post} />}
    </section>
  );
}

function RequestReview(
  { post, candidates, loading, again, onDone }: {
    post: Post;
    candidates: Member[];
    loading: boolean;
    again: boolean;
    onDone: (post: Post) => void;
  },
) {
  const [open, setOpen] = useState(false);
  const [picked, setPicked] = useState<string[]>(post.reviewer_ids);
  const [note, setNote] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const first = useRef<HTMLInputElement>(null);
  useEffect(() => {
    if (open) first.current?.focus();
  }, [open]);

  if (!open) {
    return (
      <button
        type="button"
        class={again ? "button secondary" : "button"}
        aria-expanded="false"
        onClick={() => {
          setPicked(post.reviewer_ids);
          setOpen(true);
        }}
      >
        {again ? "Change reviewers" : "Request review"}
      </button>
    );
  }
  const toggle = (id: string, on: boolean) =>
    setPicked((p) => on ? [...p.filter((x) => x !== id), id] : p.filter((x) => x !== id));
  return (
    <form
      class="review-form"
      aria-label="Request review"
      onSubmit={async (e) => {
        e.preventDefault();
        setBusy(true);
        setError(null);
        try {
          const next = await requestReview(post, picked, note.trim() || null);
          setOpen(false);
          setNote("");
          onDone(next);
        } catch (err) {
          setError(err);
        } finally {
          setBusy(false);
        }
      }}
      onKeyDown={(e) => {
        if (e.key === "Escape") setOpen(false);
      }}
    >
      <fieldset class="plain-fieldset review-reviewers">
        <legend>Reviewers (1 to {MAX_REVIEWERS})</legend>
        {loading && <Loading label="Loading members" />}
        {!loading && candidates.length === 0 && (
          <p class="wa-muted">
            No one can review yet: reviewers are the workspace's owner and editors other than the
            author. Invite an editor in the workspace settings.
          </p>
        )}
        {candidates.map((m, i) => {
          const checked = picked.includes(m.user_id);
          return (
            <label key={m.user_id} class="review-check">
              <input
                ref={i === 0 ? first : undefined}
                type="checkbox"
                checked={checked}
                disabled={!checked && picked.length >= MAX_REVIEWERS}
                onChange={(e) => toggle(m.user_id, e.currentTarget.checked)}
              />
              <span>{m.name || m.email}</span>
              <span class="wa-muted">{m.role === "owner" ? "Owner" : "Editor"}</span>
            </label>
          );
        })}
      </fieldset>
      <div class="field">
        <label for="review-request-note">Note for the reviewers (optional)</label>
        <textarea
          id="review-request-note"
          rows={2}
          maxLength={2000}
          value={note}
          onInput={(e) => setNote(e.currentTarget.value)}
        />
      </div>
      <ErrorMessage error={error} />
      <div class="button-row wa-start">
        <button type="submit" class="button" disabled={busy || picked.length === 0}>
          {busy ? "Sending…" : "Send request"}
        </button>
        <button type="button" class="button secondary" onClick={() => setOpen(false)}>
          Cancel
        </button>
      </div>
    </form>
  );
}

function Decide({ post, onDone }: { post: Post; onDone: (post: Post) => void }) {
  const [note, setNote] = useState("");
  const [busy, setBusy] = useState<"approve" | "request_changes" | null>(null);
  const [error, setError] = useState<unknown>(null);
  const decide = async (decision: "approve" | "request_changes") => {
    setBusy(decision);
    setError(null);
    try {
      const next = await submitReview(post, decision, note.trim() || null);
      setNote("");
      onDone(next);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(null);
    }
  };
  return (
    <div class="review-form review-decide" role="group" aria-labelledby="review-decide-label">
      <span id="review-decide-label" class="field-label">Your review</span>
      <div class="field">
        <label for="review-decision-note">Note to the author (optional)</label>
        <textarea
          id="review-decision-note"
          rows={2}
          maxLength={2000}
          value={note}
          onInput={(e) => setNote(e.currentTarget.value)}
        />
      </div>
      {error instanceof ApiError && error.status === 409
        ? (
          <div class="error-message" role="alert">
            <p>{error.message}</p>
            <p class="hint">
              The post is no longer waiting for a review; its status is shown above.
            </p>
          </div>
        )
        : <ErrorMessage error={error} />}
      <div class="button-row wa-start">
        <button
          type="button"
          class="button"
          disabled={busy !== null}
          onClick={() => void decide("approve")}
        >
          {busy === "approve" ? "Approving…" : "Approve"}
        </button>
        <button
          type="button"
          class="button secondary"
          disabled={busy !== null}
          onClick={() => void decide("request_changes")}
        >
          {busy === "request_changes" ? "Sending…" : "Request changes"}
        </button>
      </div>
    </div>
  );
}

function History({ reviews, loading }: { reviews: Review[]; loading: boolean }) {
  return (
    <div class="review-history">
      <h3 id="review-history-heading" class="review-history-title">Review history</h3>
      {loading && <Loading label="Loading reviews" />}
      {!loading && reviews.length === 0 && (
        <p class="wa-muted">
          No reviews yet. Request a review when the text is ready; decisions are listed here.
        </p>
      )}
      {reviews.length > 0 && (
        <ol class="review-list" aria-labelledby="review-history-heading">
          {reviews.map((r) => (
            <li key={r.review_id} class="review-item">
              <span class={`review-decision review-decision-${r.decision}`}>
                {DECISION_LABEL[r.decision]}
              </span>
              <span class="review-who">
                {r.reviewer_name} · {when(r.created_at)}
              </span>
              {r.note && <p class="review-note">{r.note}</p>}
            </li>
          ))}
        </ol>
      )}
    </div>
  );
}
