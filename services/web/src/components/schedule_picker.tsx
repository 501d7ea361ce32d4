/**
 * Scheduling and publishing in the editor's review bar: "Next free slot" (the
 * server picks the workspace's next publishing slot no other post holds), "Pick a time" (a day
 * and a wall-clock time in the workspace's timezone, checked as typed), "Publish now",
 * "Unschedule"; the scheduled time in the workspace's zone; who the post is published as (a
 * page of the connection); `publish_error` and `first_comment_error` as the server says them;
 * and once published, the link to the post on LinkedIn.
 */
import { useEffect, useState } from "preact/hooks";
import { ApiError, type Schemas } from "../state/api.ts";
import { publishPost, schedulePost, unschedulePost } from "../state/posts.ts";
import { Link } from "../router.tsx";
import { ErrorMessage } from "./error_message.tsx";
import { dayTimeAt, formatInZone } from "./schedule_time.ts";
import { DayTimeFields, useDayTime } from "./day_time_fields.tsx";
import { PublishAs } from "./publish_as.tsx";

type Post = Schemas["Post"];
type Workspace = Schemas["WorkspaceDetail"];

const NOT_CONNECTED = "LinkedIn is not connected";

function ScheduleError({ error, workspaceId }: { error: unknown; workspaceId: string }) {
  if (error instanceof ApiError && error.message === NOT_CONNECTED) {
    return (
      <div class="error-message" role="alert">
        <p>{error.message}.</p>
        <p>
          <Link href={`/workspaces/${encodeURIComponent(workspaceId)}/settings#linkedin`}>
            Connect LinkedIn in the workspace settings
          </Link>{" "}
          (an owner or editor can), then schedule again.
        </p>
      </div>
    );
  }
  return <ErrorMessage error={error} />;
}

const BUSY_LABEL: Record<string, string> = {
  publish: "Publishing…",
  unschedule: "Unscheduling…",
};

/** A small action button that shows its busy label while its action (`what`) runs. */
function BusyButton(
  { busy, what, secondary, onClick, children }: {
    busy: string | null;
    what: string;
    secondary?: boolean;
    onClick: () => Promise<void>;
    children: string;
  },
) {
  return (
    <button
      type="button"
      class={secondary ? "button secondary wa-small" : "button wa-small"}
      disabled={busy !== null}
      onClick={() => void onClick()}
    >
      {busy === what ? BUSY_LABEL[what] : children}
    </button>
  );
}

export function SchedulePicker(
  { post, workspace, onChange }: {
    post: Post;
    workspace: Workspace;
    onChange: (post: Post) => void;
  },
) {
  const tz = workspace.timezone || "UTC";
  const workspaceId = post.workspace_id;
  const [busy, setBusy] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [picking, setPicking] = useState(false);

  const run = async (what: string, action: () => Promise<Post>) => {
    setBusy(what);
    setError(null);
    try {
      onChange(await action());
      setPicking(false);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(null);
    }
  };
  const schedule = (at?: string) =>
    run(at ? "pick" : "next", () => schedulePost(workspaceId, post.post_id, at));
  const publishNow = () => run("publish", () => publishPost(workspaceId, post.post_id));
  const unschedule = () => run("unschedule", () => unschedulePost(workspaceId, post.post_id));

  const settings = `/workspaces/${encodeURIComponent(workspaceId)}/settings`;
  const status = post.status;
  // Publishing speaks for the workspace's LinkedIn member: owners and editors only.
  const canPublish = workspace.member_role === "owner" || workspace.member_role === "editor";
  const schedulable = canPublish && (status === "approved" ||
    (!workspace.approval_required && (status === "draft" || status === "in_review")));
  const slots = workspace.publishing_slots;

  return (
    <div class="schedule" role="group" aria-labelledby="schedule-heading">
      <h3 id="schedule-heading" class="review-history-title">Publishing</h3>

      <PublishAs post={post} workspace={workspace} onChange={onChange} />

      {post.publish_error && (
        <p class="review-line review-warning" role="note">
          Last attempt to publish: {post.publish_error}
        </p>
      )}
      {status === "published" && post.linkedin_first_comment_urn && (
        <p class="review-line">The first comment is posted under the post.</p>
      )}
      {post.first_comment_error && (
        <p class="review-line review-warning" role="note">
          The first comment was not posted: {post.first_comment_error}
        </p>
      )}

      {status === "published" && (
        <p class="review-line">
          Published{post.published_at
            ? <>{" "}on {formatInZone(post.published_at, tz)} ({tz})</>
            : null}
          {post.linkedin_post_url && (
            <>
              {" · "}
              <a href={post.linkedin_post_url} target="_blank" rel="noopener noreferrer">
                View on LinkedIn
                <span class="visually-hidden">(opens in a new tab)</span>
              </a>
            </>
          )}
        </p>
      )}

      {status === "scheduled" && post.scheduled_at && (
        <>
          <p class="review-line" aria-label="Scheduled time">
            Goes out on{" "}
            <time dateTime={post.scheduled_at}>
              <strong>{formatInZone(post.scheduled_at, tz)}</strong>
            </time>{" "}
            <span class="wa-muted">({tz})</span>
          </p>
          {canPublish && (
            <div class="button-row wa-start">
              <BusyButton busy={busy} what="publish" onClick={publishNow}>Publish now</BusyButton>
              <BusyButton busy={busy} what="unschedule" secondary onClick={unschedule}>
                Unschedule
              </BusyButton>
            </div>
          )}
        </>
      )}

      {schedulable && (
        <>
          <div class="button-row wa-start">
            <button
              type="button"
              class="button wa-small"
              disabled={busy !== null || slots.length === 0}
              aria-describedby="schedule-slots"
              onClick={() => void schedule()}
            >
              {busy === "next" ? "Scheduling…" : "Next free slot"}
            </button>
            <button
              type="button"
              class="button secondary wa-small"
              aria-expanded={picking}
              aria-controls="schedule-pick"
              disabled={busy !== null}
              onClick={() => setPicking(!picking)}
            >
              Pick a time
            </button>
            <BusyButton busy={busy} what="publish" secondary onClick={publishNow}>
              Publish now
            </BusyButton>
          </div>
          <p class="field-hint" id="schedule-slots">
            {slots.length > 0
              ? (
                <>
                  Slots: {slots.join(", ")} ({tz}). <Link href={settings}>Change slots</Link>
                </>
              )
              : (
                <>
                  No publishing slots yet: <Link href={settings}>add them in settings</Link>{" "}
                  or pick a time.
                </>
              )}
          </p>
          {picking && (
            <PickTimeForm
              zone={tz}
              busy={busy}
              onSchedule={(at) => void schedule(at)}
              onCancel={() => setPicking(false)}
            />
          )}
        </>
      )}

      {!canPublish && status !== "published" && (
        <p class="wa-muted review-line">
          The workspace's owner and editors schedule and publish posts.
        </p>
      )}
      {canPublish && !schedulable && status !== "scheduled" && status !== "published" && (
        <p class="wa-muted review-line">
          Scheduling opens once a reviewer approves the post.
        </p>
      )}

      <ScheduleError error={error} workspaceId={workspaceId} />
    </div>
  );
}

/** "Pick a time": a day and a time in the workspace's zone (an hour from now to start with). */
function PickTimeForm(
  { zone, busy, onSchedule, onCancel }: {
    zone: string;
    busy: string | null;
    onSchedule: (at: string) => void;
    onCancel: () => void;
  },
) {
  const picked = useDayTime(dayTimeAt(Date.now() + 60 * 60_000, zone), zone, "schedule-at");
  useEffect(() => document.getElementById("schedule-at-date")?.focus(), []);
  return (
    <form
      id="schedule-pick"
      class="schedule-pick"
      noValidate
      onSubmit={(e) => {
        e.preventDefault();
        const at = picked.submit();
        if (at) onSchedule(at);
      }}
    >
      <DayTimeFields picked={picked} legend="Publish at" />
      <div class="button-row wa-start">
        <button type="submit" class="button" disabled={busy !== null}>
          {busy === "pick" ? "Scheduling…" : "Schedule"}
        </button>
        <button type="button" class="button secondary" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
