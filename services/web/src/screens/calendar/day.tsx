/**
 * One day of the calendar: named by its date for assistive technology, today marked, its posts
 * (time, title, approval, a Move button) and its free slots still ahead, which take a dropped
 * post; the day itself takes one too (the post keeps its time of day).
 */
import { useState } from "preact/hooks";
import { Link } from "../../router.tsx";
import {
  dayName,
  MONTHS,
  timeInZone,
  weekdayIndex,
  WEEKDAYS,
} from "../../components/calendar_dates.ts";
import type { PlanItem, PlannedPost } from "../../state/calendar.ts";
import { isPost, type Moving, titleOf } from "./model.ts";

export interface DayProps {
  day: string;
  items: PlanItem[];
  zone: string;
  today: string;
  /** Month view: false for the days of the weeks around the month. */
  inMonth?: boolean;
  /** Owners and editors move posts; viewers only look. */
  canMove: boolean;
  postHref: (postId: string) => string;
  dragging: Moving | null;
  onDragStart: (moving: Moving) => void;
  onDragEnd: () => void;
  /** A post dropped on the day (`slotAt` null) or on one of its free slots. */
  onDrop: (day: string, slotAt: string | null) => void;
  onMove: (moving: Moving) => void;
}

export const DRAG_TYPE = "text/plain";

/** Drop-target handlers: highlighted while a post is over it. */
function useDropTarget(enabled: boolean, drop: () => void) {
  const [over, setOver] = useState(false);
  if (!enabled) return { over: false, handlers: {} };
  return {
    over,
    handlers: {
      onDragOver: (e: DragEvent) => {
        e.preventDefault();
        e.stopPropagation();
        if (e.dataTransfer) e.dataTransfer.dropEffect = "move";
        if (!over) setOver(true);
      },
      onDragLeave: () => setOver(false),
      onDrop: (e: DragEvent) => {
        e.preventDefault();
        e.stopPropagation();
        setOver(false);
        drop();
      },
    },
  };
}

export function Day(props: DayProps) {
  const { day, items, today, inMonth, canMove, dragging } = props;
  const past = day < today;
  const dayDrop = useDropTarget(canMove && !past && dragging !== null, () => {
    props.onDrop(day, null);
  });
  const now = Date.now();
  const shown = items.filter((i) => isPost(i) || Date.parse(i.at) > now);
  const [, m, d] = day.split("-").map(Number);
  const weekday = WEEKDAYS[weekdayIndex(day)];
  const classes = [
    "cal-day",
    day === today && "is-today",
    past && "is-past",
    inMonth === false && "is-outside",
    dayDrop.over && "is-drop-over",
  ].filter(Boolean).join(" ");
  return (
    <div
      class={classes}
      role="group"
      aria-label={dayName(day)}
      aria-current={day === today ? "date" : undefined}
      {...dayDrop.handlers}
    >
      <div class="cal-day-head" aria-hidden="true">
        <span class="cal-day-weekday">{weekday.slice(0, 3)}</span>
        <span class="cal-day-number">{d}</span>
        {d === 1 && <span class="cal-day-month">{MONTHS[m - 1].slice(0, 3)}</span>}
        {day === today && <span class="cal-today">Today</span>}
      </div>
      {day === today && <span class="visually-hidden">Today</span>}
      {shown.length > 0 && (
        <ul class="cal-items">
          {shown.map((item) =>
            isPost(item)
              ? <PostCard key={`${item.post_id}`} item={item} {...props} />
              : <SlotItem key={item.at} at={item.at} {...props} />
          )}
        </ul>
      )}
    </div>
  );
}

function SlotItem({ at, zone, day, canMove, dragging, onDrop }: DayProps & { at: string }) {
  const drop = useDropTarget(canMove && dragging !== null, () => onDrop(day, at));
  const time = timeInZone(Date.parse(at), zone);
  return (
    <li class={drop.over ? "cal-slot is-drop-over" : "cal-slot"} {...drop.handlers}>
      <span class="cal-time">{time}</span> <span>Free slot</span>
    </li>
  );
}

function PostCard(props: DayProps & { item: PlannedPost }) {
  const { item, zone, canMove, postHref, onDragStart, onDragEnd, onMove, dragging } = props;
  const title = titleOf(item.title);
  const movable = canMove && item.kind === "scheduled";
  const moving: Moving = { post_id: item.post_id, title, at: item.at };
  const state = item.kind === "published"
    ? { label: "Published", cls: "is-published" }
    : item.approved
    ? { label: "Approved", cls: "is-approved" }
    : { label: "Not approved", cls: "is-unapproved" };
  return (
    <li
      class={`cal-post ${state.cls}${dragging?.post_id === item.post_id ? " is-dragging" : ""}`}
      draggable={movable}
      onDragStart={movable
        ? (e) => {
          e.dataTransfer?.setData(DRAG_TYPE, item.post_id);
          if (e.dataTransfer) e.dataTransfer.effectAllowed = "move";
          onDragStart(moving);
        }
        : undefined}
      onDragEnd={movable ? onDragEnd : undefined}
    >
      <span class="cal-time">{timeInZone(Date.parse(item.at), zone)}</span>
      <Link href={postHref(item.post_id)} class="cal-post-title" draggable={false}>
        {title}
      </Link>
      <span class={`cal-badge ${state.cls}`}>{state.label}</span>
      {movable && (
        <button
          type="button"
          class="cal-move"
          aria-label={`Move “${title}”`}
          onClick={() => onMove(moving)}
        >
          Move
        </button>
      )}
    </li>
  );
}
