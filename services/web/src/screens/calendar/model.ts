/**
 * The calendar screen's view of the data: the URL's view and day, the range it covers, the
 * items by day, and where a post dropped on a day lands.
 */
import type { PlanItem, PlannedPost } from "../../state/calendar.ts";
import {
  addDays,
  addMonths,
  dayInZone,
  isDayKey,
  monthGrid,
  timeInZone,
  weekOf,
} from "../../components/calendar_dates.ts";
import { zonedToIso } from "../../components/schedule_time.ts";

export type View = "week" | "month";

/** `?view=month&date=2027-03-22` (a bad or missing value falls back to this week, today). */
export function readView(search: URLSearchParams, today: string): { view: View; date: string } {
  const view = search.get("view") === "month" ? "month" : "week";
  const asked = search.get("date") ?? "";
  return { view, date: isDayKey(asked) ? asked : today };
}

export function viewHref(base: string, view: View, date: string): string {
  return `${base}?view=${view}&date=${date}`;
}

/** The days a view shows (a week, or the whole weeks of a month). */
export function daysOf(view: View, date: string): string[] {
  return view === "week" ? weekOf(date) : monthGrid(date);
}

/** The day a step back or forward lands on. */
export function step(view: View, date: string, by: -1 | 1): string {
  return view === "week" ? addDays(date, 7 * by) : addMonths(date, by);
}

/** Items grouped by their day in the zone, each day's in time order. */
export function byDay(items: PlanItem[], zone: string): Map<string, PlanItem[]> {
  const days = new Map<string, PlanItem[]>();
  for (const item of items) {
    const day = dayInZone(Date.parse(item.at), zone);
    const list = days.get(day) ?? [];
    list.push(item);
    days.set(day, list);
  }
  return days;
}

/** What is being moved: a post on the calendar (with its time) or one ready to schedule. */
export interface Moving {
  post_id: string;
  title: string;
  /** Its current time, when it is scheduled. */
  at: string | null;
}

/**
 * Where a post dropped on `day` goes: a scheduled post keeps its time of day; a post not yet
 * scheduled takes the day's first free slot still ahead, else 09:00.
 */
export function dropTime(
  moving: Moving,
  day: string,
  dayItems: PlanItem[],
  zone: string,
  now = Date.now(),
): string | null {
  if (moving.at) return zonedToIso(`${day}T${timeInZone(Date.parse(moving.at), zone)}`, zone);
  const slot = dayItems.find((i) => i.kind === "slot" && Date.parse(i.at) > now);
  return slot ? slot.at : zonedToIso(`${day}T09:00`, zone);
}

export function isPost(item: PlanItem): item is PlannedPost {
  return item.kind !== "slot";
}

export function titleOf(title: string): string {
  return title.trim() || "Untitled post";
}
