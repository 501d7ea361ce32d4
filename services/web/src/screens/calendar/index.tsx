/**
 * The calendar (`/workspaces/:id/calendar?view=week|month&date=YYYY-MM-DD`): a week or a month
 * of the workspace's days in its timezone, scheduled and published posts on their days, free
 * publishing slots as places to drop a post. Owners and editors move a post by dragging it to
 * another day or slot, or with its Move button (a day and a time); posts ready to be scheduled
 * wait above the days, to be dragged into a slot or scheduled the same way.
 */
import { useState } from "preact/hooks";
import type { ScreenProps } from "../../screen_props.ts";
import { Link, navigate, url } from "../../router.tsx";
import { loadWorkspace } from "../../state/workspaces.ts";
import { loadPlanning, movePost } from "../../state/calendar.ts";
import { useResource } from "../../components/use_resource.ts";
import { Loading } from "../../components/loading.tsx";
import { ErrorMessage } from "../../components/error_message.tsx";
import {
  addDays,
  dayInZone,
  dayName,
  monthName,
  rangeName,
  timeInZone,
  WEEKDAYS,
} from "../../components/calendar_dates.ts";
import { Day } from "./day.tsx";
import { MoveDialog } from "./move_dialog.tsx";
import { ReadyPosts } from "./ready.tsx";
import { zonedToIso } from "../../components/schedule_time.ts";
import { byDay, daysOf, dropTime, type Moving, readView, step, viewHref } from "./model.ts";

export default function CalendarScreen({ params }: ScreenProps) {
  const { workspaceId } = params;
  const workspace = useResource(() => loadWorkspace(workspaceId), [workspaceId]);
  if (!workspace.data) {
    return (
      <section class="stack">
        <h1>Calendar</h1>
        {workspace.error
          ? <ErrorMessage error={workspace.error} onRetry={workspace.reload} />
          : <Loading label="Loading the calendar" />}
      </section>
    );
  }
  const ws = workspace.data;
  return (
    <Calendar
      workspaceId={workspaceId}
      zone={ws.timezone || "UTC"}
      approvalRequired={ws.approval_required}
      canMove={ws.member_role === "owner" || ws.member_role === "editor"}
    />
  );
}

function Calendar(
  { workspaceId, zone, approvalRequired, canMove }: {
    workspaceId: string;
    zone: string;
    approvalRequired: boolean;
    canMove: boolean;
  },
) {
  const base = `/workspaces/${encodeURIComponent(workspaceId)}`;
  const today = dayInZone(Date.now(), zone);
  const { view, date } = readView(url.value.search, today);
  const days = daysOf(view, date);
  const from = days[0];
  const to = days[days.length - 1];
  const planning = useResource(
    () => loadPlanning(workspaceId, from, to, { approvalRequired }),
    [workspaceId, from, to, approvalRequired],
  );
  const tz = planning.data?.timezone ?? zone;
  const items = byDay(planning.data?.items ?? [], tz);
  const [dragging, setDragging] = useState<Moving | null>(null);
  const [dialog, setDialog] = useState<Moving | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [done, setDone] = useState("");

  const move = async (moving: Moving, at: string | null, fromDialog: boolean) => {
    setError(null);
    if (!at || Date.parse(at) <= Date.now()) {
      setError(new Error(`That time has passed in ${tz}: pick a later one`));
      return;
    }
    setBusy(true);
    try {
      await movePost(workspaceId, moving.post_id, at);
      const day = dayInZone(Date.parse(at), tz);
      const verb = moving.at ? "Moved" : "Scheduled";
      setDone(`${verb} “${moving.title}” to ${dayName(day)} at ${timeInZone(Date.parse(at), tz)}`);
      if (fromDialog) setDialog(null);
      planning.reload();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  const onDrop = (day: string, slotAt: string | null) => {
    const moving = dragging;
    setDragging(null);
    if (!moving) return;
    const at = slotAt ?? dropTime(moving, day, items.get(day) ?? [], tz);
    if (moving.at && at && Date.parse(at) === Date.parse(moving.at)) return;
    void move(moving, at, false);
  };

  const nextSlot = planning.data?.items.find((i) =>
    i.kind === "slot" && Date.parse(i.at) > Date.now()
  );
  const suggested = nextSlot
    ? Date.parse(nextSlot.at)
    : Date.parse(zonedToIso(`${addDays(today, 1)}T09:00`, tz)!);

  const title = view === "week" ? rangeName(from, to) : monthName(date);
  const unit = view === "week" ? "week" : "month";
  const dayProps = {
    zone: tz,
    today,
    canMove,
    postHref: (id: string) => `${base}/posts/${encodeURIComponent(id)}`,
    dragging,
    onDragStart: (m: Moving) => {
      setError(null);
      setDragging(m);
    },
    onDragEnd: () => setDragging(null),
    onDrop,
    onMove: (m: Moving) => {
      setError(null);
      setDialog(m);
    },
  };

  return (
    <section class={`calendar-screen stack is-${view}`}>
      <header class="cal-header">
        <h1>Calendar</h1>
        <nav class="cal-views" aria-label="Calendar view">
          {(["week", "month"] as const).map((v) => (
            <Link
              key={v}
              href={viewHref(`${base}/calendar`, v, date)}
              class="cal-view-link"
              aria-current={v === view ? "page" : undefined}
            >
              {v === "week" ? "Week" : "Month"}
            </Link>
          ))}
        </nav>
      </header>
      <div class="cal-toolbar">
        <div class="button-row wa-start">
          <button
            type="button"
            class="button secondary wa-small"
            onClick={() => navigate(viewHref(`${base}/calendar`, view, step(view, date, -1)))}
          >
            <span aria-hidden="true">‹</span>{" "}
            <span>
              Previous<span class="cal-unit">{` ${unit}`}</span>
            </span>
          </button>
          <button
            type="button"
            class="button secondary wa-small"
            disabled={days.includes(today)}
            onClick={() => navigate(viewHref(`${base}/calendar`, view, today))}
          >
            Today
          </button>
          <button
            type="button"
            class="button secondary wa-small"
            onClick={() => navigate(viewHref(`${base}/calendar`, view, step(view, date, 1)))}
          >
            <span>
              Next<span class="cal-unit">{` ${unit}`}</span>
            </span>{" "}
            <span aria-hidden="true">›</span>
          </button>
        </div>
        <h2 class="cal-range" aria-live="polite">{title}</h2>
        <p class="cal-zone wa-muted">Times in {tz}</p>
      </div>
      <p class="visually-hidden" role="status">{done}</p>
      {done && !error && <p class="cal-done" aria-hidden="true">{done}</p>}
      {!dialog && <ErrorMessage error={error} />}
      {planning.error && <ErrorMessage error={planning.error} onRetry={planning.reload} />}
      {canMove && planning.data && (
        <ReadyPosts
          posts={planning.data.ready}
          postHref={dayProps.postHref}
          onDragStart={dayProps.onDragStart}
          onDragEnd={dayProps.onDragEnd}
          onSchedule={dayProps.onMove}
        />
      )}
      {!canMove && (
        <p class="cal-note wa-muted">The workspace's owner and editors move and schedule posts.</p>
      )}
      {planning.loading && !planning.data ? <Loading label="Loading the calendar" /> : (
        <div
          class={`cal-grid${planning.loading ? " is-loading" : ""}`}
          aria-busy={planning.loading ? "true" : undefined}
        >
          {WEEKDAYS.map((w) => (
            <div key={w} class="cal-weekday" aria-hidden="true">{w.slice(0, 3)}</div>
          ))}
          {days.map((day) => (
            <Day
              key={day}
              day={day}
              items={items.get(day) ?? []}
              inMonth={view === "month" ? day.slice(0, 7) === date.slice(0, 7) : undefined}
              {...dayProps}
            />
          ))}
        </div>
      )}
      <MoveDialog
        moving={dialog}
        zone={tz}
        suggested={suggested}
        busy={busy}
        error={dialog ? error : null}
        onMove={(at) => dialog && void move(dialog, at, true)}
        onClose={() => {
          setDialog(null);
          setError(null);
        }}
      />
    </section>
  );
}
