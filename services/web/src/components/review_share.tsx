/**
 * In the editor's review bar: "Share for review" (owners and editors) makes a link for someone
 * without an account (their name, how many hours it works, 72 by default), shows its URL once
 * with a Copy button, and lists the post's links (reviewer, until when, their decision) with
 * Revoke. And the approvals count ("1 of 2 approvals") when the workspace needs more than one.
 */
import { useEffect, useRef, useState } from "preact/hooks";
import type { Schemas } from "../state/api.ts";
import {
  createReviewLink,
  DEFAULT_LINK_HOURS,
  loadReviewLinks,
  MAX_LINK_HOURS,
  type ReviewLink,
  revokeReviewLink,
} from "../state/review_links.ts";
import { CaptureCopyField } from "./capture_copy.tsx";
import { useConfirm } from "./confirm_dialog.tsx";
import { ErrorMessage } from "./error_message.tsx";
import { Loading } from "./loading.tsx";
import { useResource } from "./use_resource.ts";
import { describedBy, fieldErrors } from "./workspace_form.tsx";

type Post = Schemas["Post"];
type Workspace = Schemas["WorkspaceDetail"];

const WHEN = new Intl.DateTimeFormat(undefined, {
  day: "numeric",
  month: "short",
  hour: "2-digit",
  minute: "2-digit",
});

function when(iso: string) {
  return <time dateTime={iso}>{WHEN.format(new Date(iso))}</time>;
}

/** "1 of 2 approvals: Olga Owner, Clara (review link)", when more than one is needed. */
export function ApprovalCount({ post, workspace }: { post: Post; workspace: Workspace }) {
  const needed = workspace.approvals_required ?? 1;
  if (!workspace.approval_required || needed <= 1 || post.status === "published") return null;
  const approvals = post.approvals ?? [];
  const have = Math.min(approvals.length, needed);
  return (
    <p class="review-line review-approvals">
      <strong>{have} of {needed} approvals</strong>
      {approvals.length > 0 && (
        <>
          {": "}
          {approvals.map((a) => a.external ? `${a.reviewer_name} (review link)` : a.reviewer_name)
            .join(", ")}
        </>
      )}
    </p>
  );
}

/** What the list says of a link's state: its decision, or whether it still works. */
function linkState(link: ReviewLink): { label: string; tone: string } {
  if (link.decision === "approve") return { label: "Approved", tone: "approve" };
  if (link.decision === "request_changes") {
    return { label: "Changes requested", tone: "request_changes" };
  }
  if (Date.parse(link.expires_at) <= Date.now()) return { label: "Expired", tone: "expired" };
  return { label: "No decision yet", tone: "open" };
}

export function ShareForReview({ post }: { post: Post }) {
  const workspaceId = post.workspace_id;
  const postId = post.post_id;
  const links = useResource(() => loadReviewLinks(workspaceId, postId), [workspaceId, postId]);
  const [open, setOpen] = useState(false);
  const [made, setMade] = useState<{ url: string; reviewer: string } | null>(null);
  const [dialog, ask] = useConfirm();
  const [revokeError, setRevokeError] = useState<unknown>(null);

  // A decision through a link changes the post: read the list again when it does.
  const reload = useRef(links.reload);
  reload.current = links.reload;
  const signature = `${post.status}|${post.approvals?.length ?? 0}|${post.updated_at}`;
  const first = useRef(true);
  useEffect(() => {
    if (first.current) {
      first.current = false;
      return;
    }
    reload.current();
  }, [signature]);

  const items = links.data?.items ?? [];
  const revoke = async (link: ReviewLink) => {
    const ok = await ask({
      title: `Revoke the link for ${link.reviewer_name}?`,
      body: "The link stops working at once. A decision already given stays in the history.",
      confirmLabel: "Revoke link",
    });
    if (!ok) return;
    setRevokeError(null);
    try {
      await revokeReviewLink(workspaceId, postId, link.link_id);
      links.reload();
    } catch (err) {
      setRevokeError(err);
    }
  };

  return (
    <div class="review-share" aria-labelledby="review-share-heading" role="group">
      {dialog}
      <h3 id="review-share-heading" class="review-history-title">Review links</h3>
      <p class="field-hint">
        For someone without an account: they see the post as LinkedIn would show it and approve or
        ask for changes. A link stops working when it expires, when you revoke it, or when the post
        changes.
      </p>
      {post.status !== "published" && !open && (
        <div>
          <button
            type="button"
            class="button secondary"
            aria-expanded="false"
            onClick={() => {
              setMade(null);
              setOpen(true);
            }}
          >
            Share for review
          </button>
        </div>
      )}
      {open && (
        <MakeLink
          post={post}
          onCancel={() => setOpen(false)}
          onMade={(url, reviewer) => {
            setOpen(false);
            setMade({ url, reviewer });
            links.reload();
          }}
        />
      )}
      {made && (
        <div class="review-share-made">
          <p class="review-line">
            Send this link to {made.reviewer}. It is shown only now; make a new one if it is lost.
          </p>
          <CaptureCopyField
            id="review-share-url"
            label={`Review link for ${made.reviewer}`}
            value={made.url}
            buttonLabel="Copy"
          />
        </div>
      )}
      {links.loading && !links.data && <Loading label="Loading review links" />}
      {links.error ? <ErrorMessage error={links.error} onRetry={links.reload} /> : null}
      {items.length > 0 && (
        <ul class="review-share-list" aria-labelledby="review-share-heading">
          {items.map((link) => {
            const state = linkState(link);
            return (
              <li key={link.link_id} class="review-share-item">
                <span class="review-share-who">{link.reviewer_name}</span>
                <span class={`review-share-state is-${state.tone}`}>{state.label}</span>
                <span class="review-share-when">
                  {link.decided_at
                    ? <>decided {when(link.decided_at)}</>
                    : state.tone === "expired"
                    ? <>expired {when(link.expires_at)}</>
                    : <>works until {when(link.expires_at)}</>}
                </span>
                {!link.decided_at && state.tone !== "expired" && (
                  <button
                    type="button"
                    class="comment-link review-share-revoke"
                    aria-label={`Revoke the link for ${link.reviewer_name}`}
                    onClick={() => void revoke(link)}
                  >
                    Revoke
                  </button>
                )}
              </li>
            );
          })}
        </ul>
      )}
      <ErrorMessage error={revokeError} />
    </div>
  );
}

function MakeLink(
  { post, onCancel, onMade }: {
    post: Post;
    onCancel: () => void;
    onMade: (url: string, reviewer: string) => void;
  },
) {
  const [name, setName] = useState("");
  const [hours, setHours] = useState(String(DEFAULT_LINK_HOURS));
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const first = useRef<HTMLInputElement>(null);
  useEffect(() => first.current?.focus(), []);
  const { byField, rest } = fieldErrors(error, ["reviewer_name", "expires_in_hours"]);
  return (
    <form
      class="review-form"
      aria-label="Share for review"
      onKeyDown={(e) => {
        if (e.key === "Escape") onCancel();
      }}
      onSubmit={async (e) => {
        e.preventDefault();
        setBusy(true);
        setError(null);
        try {
          const reviewer = name.trim();
          const link = await createReviewLink(
            post.workspace_id,
            post.post_id,
            reviewer,
            Number(hours),
          );
          onMade(link.url, reviewer);
        } catch (err) {
          setError(err);
        } finally {
          setBusy(false);
        }
      }}
    >
      <div class="field">
        <label for="review-share-name">Reviewer's name</label>
        <input
          id="review-share-name"
          ref={first}
          required
          maxLength={100}
          autoComplete="off"
          value={name}
          onInput={(e) => setName(e.currentTarget.value)}
          {...describedBy("review-share-name", byField.reviewer_name)}
        />
        {byField.reviewer_name && (
          <p class="field-error" id="review-share-name-error" role="alert">
            {byField.reviewer_name}
          </p>
        )}
      </div>
      <div class="field">
        <label for="review-share-hours">Works for (hours)</label>
        <input
          id="review-share-hours"
          type="number"
          inputMode="numeric"
          min={1}
          max={MAX_LINK_HOURS}
          step={1}
          required
          value={hours}
          onInput={(e) => setHours(e.currentTarget.value)}
          {...describedBy("review-share-hours", byField.expires_in_hours, true)}
        />
        <p class="field-hint" id="review-share-hours-hint">
          1 to {MAX_LINK_HOURS} hours (two weeks); {DEFAULT_LINK_HOURS} is three days.
        </p>
        {byField.expires_in_hours && (
          <p class="field-error" id="review-share-hours-error" role="alert">
            {byField.expires_in_hours}
          </p>
        )}
      </div>
      <ErrorMessage error={rest} />
      <div class="button-row wa-start">
        <button type="submit" class="button" disabled={busy}>
          {busy ? "Making the link…" : "Make link"}
        </button>
        <button type="button" class="button secondary" onClick={onCancel}>Cancel</button>
      </div>
    </form>
  );
}
