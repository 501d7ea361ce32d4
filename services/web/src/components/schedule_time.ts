/**
 * Times in a workspace's timezone (an IANA name): shown for `scheduled_at`, and a
 * `datetime-local` value read as a wall-clock time in that zone, turned into an ISO instant.
 */

/** The zone's offset from UTC at instant `ms`, in milliseconds (east positive). */
function offsetAt(ms: number, timeZone: string): number {
  const parts = new Intl.DateTimeFormat("en-US", {
    timeZone,
    hourCycle: "h23",
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
    hour: "2-digit",
    minute: "2-digit",
    second: "2-digit",
  }).formatToParts(new Date(ms));
  const n = (type: string) => Number(parts.find((p) => p.type === type)?.value ?? 0);
  const wall = Date.UTC(n("year"), n("month") - 1, n("day"), n("hour"), n("minute"), n("second"));
  return wall - Math.floor(ms / 1000) * 1000;
}

/**
 * `2026-03-29T02:30` (a `datetime-local` value) as a wall-clock time in `timeZone` → the ISO
 * instant; null when the value is malformed. A time skipped by a DST change moves forward.
 */
export function zonedToIso(local: string, timeZone: string): string | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2}))?$/.exec(local);
  if (!m) return null;
  const wall = Date.UTC(+m[1], +m[2] - 1, +m[3], +m[4], +m[5], +(m[6] ?? 0));
  let ms = wall - offsetAt(wall, timeZone);
  ms = wall - offsetAt(ms, timeZone);
  return new Date(ms).toISOString();
}

/** Instant `ms` as a `datetime-local` value in `timeZone` (minutes). */
export function isoToZonedLocal(ms: number, timeZone: string): string {
  const shifted = new Date(ms + offsetAt(ms, timeZone));
  return shifted.toISOString().slice(0, 16);
}

/** "Wed 3 Jun, 14:30" in the zone. */
export function formatInZone(iso: string, timeZone: string): string {
  try {
    return new Intl.DateTimeFormat(undefined, {
      timeZone,
      weekday: "short",
      day: "numeric",
      month: "short",
      hour: "2-digit",
      minute: "2-digit",
    }).format(new Date(iso));
  } catch {
    return new Date(iso).toISOString();
  }
}

/** What a day field and a time field hold (`badInput`: the browser could not read what was typed). */
export interface DayTimeInput {
  date: string;
  time: string;
  badDate?: boolean;
  badTime?: boolean;
}

export type DayTimeCheck =
  | { ok: true; at: string }
  | { ok: false; field: "date" | "time"; message: string; empty: boolean };

/**
 * A day and a time, read as a wall-clock time in `timeZone`: the ISO instant, or what is wrong
 * (a malformed or missing day or time, a time already past) and which field says it.
 */
export function checkDayTime(
  input: DayTimeInput,
  timeZone: string,
  now = Date.now(),
): DayTimeCheck {
  const fail = (field: "date" | "time", message: string, empty = false): DayTimeCheck => ({
    ok: false,
    field,
    message,
    empty,
  });
  if (input.badDate) return fail("date", "Enter the whole date: day, month and year");
  if (!input.date) return fail("date", "Enter a day", true);
  if (!/^\d{4}-\d{2}-\d{2}$/.test(input.date)) return fail("date", "Enter a date as YYYY-MM-DD");
  if (input.badTime) return fail("time", "Enter the whole time: hours and minutes");
  if (!input.time) return fail("time", "Enter a time", true);
  if (!/^\d{2}:\d{2}(:\d{2})?$/.test(input.time)) return fail("time", "Enter a time as HH:MM");
  // 2027-02-30 would parse as 2 March: a day that does not exist is refused, not moved
  if (!isRealDay(input.date)) return fail("date", "Enter a real date");
  const at = zonedToIso(`${input.date}T${input.time}`, timeZone);
  if (!at) return fail("time", "Enter a time as HH:MM");
  if (Date.parse(at) <= now) {
    // a day before today is the day's fault; today at an hour gone is the time's
    return input.date < isoToZonedLocal(now, timeZone).slice(0, 10)
      ? fail("date", `That day has passed in ${timeZone}: pick a later one`)
      : fail("time", `That time has passed in ${timeZone}: pick a later one`);
  }
  return { ok: true, at };
}

function isRealDay(key: string): boolean {
  const [y, m, d] = key.split("-").map(Number);
  const date = new Date(Date.UTC(y, m - 1, d));
  return date.getUTCMonth() === m - 1 && date.getUTCDate() === d;
}

/** Instant `ms` as the day and the time fields' values in `timeZone`. */
export function dayTimeAt(ms: number, timeZone: string): { date: string; time: string } {
  const local = isoToZonedLocal(ms, timeZone);
  return { date: local.slice(0, 10), time: local.slice(11, 16) };
}
