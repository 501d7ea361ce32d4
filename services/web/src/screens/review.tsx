/**
 * `/review/:token`: a reviewer without an account (no sign-in) sees the post as LinkedIn's feed
 * would show it, the workspace that asks, their own name and until when the link works, and
 * approves or requests changes with an optional note, once. A link that expired, was revoked or
 * outlived a change of the post answers 404, said in words; too many requests (429) asks to try
 * again shortly.
 */
import { useEffect, useRef, useState } from "preact/hooks";
import type { ScreenProps } from "../screen_props.ts";
import { ApiError } from "../state/api.ts";
import {
  decideReviewLink,
  openReviewLink,
  type ReviewDecision,
  type ReviewLinkView,
} from "../state/review_links.ts";
import { useResource } from "../components/use_resource.ts";
import { Loading } from "../components/loading.tsx";
import { ErrorMessage } from "../components/error_message.tsx";
import { LinkedInPostCard } from "../components/linkedin_post_card.tsx";

const WHEN = new Intl.DateTimeFormat(undefined, {
  weekday: "short",
  day: "numeric",
  month: "short",
  hour: "2-digit",
  minute: "2-digit",
});

export default function ReviewScreen({ params }: ScreenProps) {
  const token = params.token;
  const view = useResource(() => openReviewLink(token), [token]);
  return (
    <div class="review-page">
      <p class="review-page-brand">Content Pipeline</p>
      {view.loading && !view.data && <Loading label="Opening the post" />}
      {view.error ? <LinkProblem error={view.error} onRetry={view.reload} /> : null}
      {view.data && !view.error && (
        <Review
          key={view.data.decision ?? "open"}
          token={token}
          view={view.data}
          onGone={view.reload}
        />
      )}
    </div>
  );
}

/** 404 and 429 in words; anything else with the server's message and Retry. */
function LinkProblem({ error, onRetry }: { error: unknown; onRetry: () => void }) {
  const status = error instanceof ApiError ? error.status : null;
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), [status]);
  if (status === 404) {
    return (
      <section class="card review-page-card stack" aria-labelledby="review-gone">
        <h1 id="review-gone" ref={heading} tabIndex={-1}>
          This review link is not valid any more
        </h1>
        <p>
          It may have expired or been withdrawn, or the post changed after the link was made, so
          what it showed is no longer what would be published.
        </p>
        <p>Ask the person who sent it to you for a new link.</p>
      </section>
    );
  }
  if (status === 429) {
    return (
      <section class="card review-page-card stack" aria-labelledby="review-busy">
        <h1 id="review-busy" ref={heading} tabIndex={-1}>Too many requests for this link</h1>
        <p>This review link was opened too often in the last minute. Try again in a minute.</p>
        <div>
          <button type="button" class="button" onClick={onRetry}>Try again</button>
        </div>
      </section>
    );
  }
  return (
    <section class="card review-page-card stack" aria-labelledby="review-error">
      <h1 id="review-error" ref={heading} tabIndex={-1}>The post could not be opened</h1>
      <ErrorMessage error={error} onRetry={onRetry} />
    </section>
  );
}

function Review(
  { token, view, onGone }: { token: string; view: ReviewLinkView; onGone: () => void },
) {
  const [decision, setDecision] = useState<ReviewDecision | null>(view.decision);
  const [note, setNote] = useState("");
  const [busy, setBusy] = useState<ReviewDecision | null>(null);
  const [error, setError] = useState<unknown>(null);
  const outcome = useRef<HTMLHeadingElement>(null);
  const title = view.post.title.trim();
  const pdf = view.post.media.find((m) => m.kind === "document");

  const decide = async (choice: ReviewDecision) => {
    setBusy(choice);
    setError(null);
    try {
      const answer = await decideReviewLink(token, choice, note.trim() || null);
      setDecision(answer.decision);
      setTimeout(() => outcome.current?.focus(), 0);
    } catch (err) {
      // Decided meanwhile (another tab), or the link died: show what the server says now.
      if (err instanceof ApiError && (err.status === 409 || err.status === 404)) onGone();
      else setError(err);
    } finally {
      setBusy(null);
    }
  };

  return (
    <>
      <header class="review-page-head">
        <h1>
          {view.workspace_name ? `${view.workspace_name} asks for your review` : "Your review"}
        </h1>
        <p class="review-page-meta">
          For <strong>{view.reviewer_name}</strong> · this link works until{" "}
          <time dateTime={view.expires_at}>{WHEN.format(new Date(view.expires_at))}</time>
        </p>
        {title && <p class="review-page-title">Post: {title}</p>}
      </header>

      <section class="review-page-preview" aria-labelledby="review-preview-heading">
        <h2 id="review-preview-heading" class="visually-hidden">The post as LinkedIn shows it</h2>
        <LinkedInPostCard
          author={view.workspace_name || "The author"}
          page={false}
          text={view.post.content}
          media={view.post.media}
          firstComment={view.post.first_comment}
        />
        {pdf?.downloadUrl && (
          <p class="review-page-document">
            <a href={pdf.downloadUrl} target="_blank" rel="noopener">
              Open the document “{pdf.title || pdf.filename}”
              <span class="visually-hidden">(opens in a new tab)</span>
            </a>
          </p>
        )}
      </section>

      {decision
        ? (
          <section
            class={`card review-page-card review-page-done is-${decision}`}
            aria-labelledby="review-outcome"
          >
            <h2 id="review-outcome" ref={outcome} tabIndex={-1}>
              {decision === "approve" ? "You approved this post" : "You asked for changes"}
            </h2>
            <p>
              {decision === "approve"
                ? "Thank you. The team has been told that you approved it."
                : "Thank you. The team has been told, and the post went back to its author."}{" "}
              This link takes one decision; it cannot be changed here.
            </p>
          </section>
        )
        : (
          <form
            class="card review-page-card review-page-decide"
            aria-labelledby="review-decide-heading"
            onSubmit={(e) => e.preventDefault()}
          >
            <h2 id="review-decide-heading">Your decision</h2>
            <div class="field">
              <label for="review-page-note">Note for the team (optional)</label>
              <textarea
                id="review-page-note"
                rows={3}
                maxLength={2000}
                value={note}
                placeholder="What should change, or anything they should know"
                onInput={(e) => setNote(e.currentTarget.value)}
              />
            </div>
            {error instanceof ApiError && error.status === 429
              ? (
                <div class="error-message" role="alert">
                  <p>Too many requests for this link. Try again in a minute.</p>
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
            <p class="field-hint">You decide once: this link cannot change its decision.</p>
          </form>
        )}
    </>
  );
}
