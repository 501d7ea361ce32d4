import { badRequest } from "../../shared/http/app_error.ts";
import { toIso } from "../../shared/time.ts";
import type { ReviewOperations } from "./review.ts";
import type { PostStatus } from "./schemas.ts";
import { slotsBetween, zonedInstant } from "./slots.ts";
import type { PostsStore } from "./store.ts";

/** The longest range one calendar request covers, in days. */
export const CALENDAR_MAX_DAYS = 62;

export interface CalendarItem {
  kind: "scheduled" | "published" | "slot";
  at: string;
  post_id: string | null;
  title: string | null;
  status: PostStatus | null;
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** A `YYYY-MM-DD` that names a real day, as its parts; 400 naming `field` otherwise. */
export function parseDay(value: string, field: string) {
  const m = DATE.exec(value);
  const date = m && new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  if (
    !m || !date || date.getUTCDate() !== Number(m[3]) || date.getUTCMonth() !== Number(m[2]) - 1
  ) {
    throw badRequest(`${field} must be a date (YYYY-MM-DD)`);
  }
  return { year: Number(m[1]), month: Number(m[2]), day: Number(m[3]), utc: date.getTime() };
}

/**
 * A workspace's calendar from `from` to `to` (both included, days in the workspace's time zone):
 * its scheduled posts at `scheduled_at`, its published posts at `published_at`, and every
 * publishing slot in the range that no scheduled post takes, in time order.
 */
export async function workspaceCalendar(
  deps: { store: PostsStore; review: ReviewOperations },
  workspaceId: string,
  fromText: string,
  toText: string,
): Promise<{ timezone: string; items: CalendarItem[] }> {
  const from = parseDay(fromText, "from");
  const to = parseDay(toText, "to");
  const days = Math.round((to.utc - from.utc) / 86_400_000) + 1;
  if (days < 1) throw badRequest("to must not be before from");
  if (days > CALENDAR_MAX_DAYS) {
    throw badRequest(`A calendar covers at most ${CALENDAR_MAX_DAYS} days`);
  }
  const ws = await deps.review.settings(workspaceId);
  const zone = ws?.timezone ?? "UTC";
  const start = zonedInstant(zone, from.year, from.month, from.day, 0, 0);
  const end = new Date(to.utc + 86_400_000);
  const endInstant = zonedInstant(
    zone,
    end.getUTCFullYear(),
    end.getUTCMonth() + 1,
    end.getUTCDate(),
    0,
    0,
  );
  const inRange = (iso: string | null) => {
    const t = iso ? Date.parse(iso) : NaN;
    return t >= start && t < endInstant;
  };
  const items: CalendarItem[] = [];
  const taken = new Set<number>();
  for (const post of await deps.store.listPosts(workspaceId)) {
    if (post.status === "scheduled" && inRange(post.scheduled_at)) {
      taken.add(Date.parse(post.scheduled_at!));
      items.push(item("scheduled", post.scheduled_at!, post));
    } else if (post.status === "published" && inRange(post.published_at)) {
      items.push(item("published", post.published_at!, post));
    }
  }
  for (const slot of slotsBetween(ws?.publishing_slots ?? [], zone, from, days)) {
    if (slot < start || slot >= endInstant || taken.has(slot)) continue;
    items.push({
      kind: "slot",
      at: toIso(new Date(slot)),
      post_id: null,
      title: null,
      status: null,
    });
  }
  items.sort((a, b) => Date.parse(a.at) - Date.parse(b.at));
  return { timezone: zone, items };
}

function item(
  kind: "scheduled" | "published",
  at: string,
  post: { post_id: string; title: string; status: PostStatus },
): CalendarItem {
  return { kind, at, post_id: post.post_id, title: post.title, status: post.status };
}
