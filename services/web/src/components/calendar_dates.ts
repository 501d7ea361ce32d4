/**
 * Days of a workspace's calendar as `YYYY-MM-DD` keys in its timezone: today, weeks (Monday
 * first), a month's grid, and the names a day is read out by ("Monday 22 March 2027"). Day
 * arithmetic is done on the keys (UTC dates), so a DST change never moves a day.
 */

const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;

export const WEEKDAYS = [
  "Monday",
  "Tuesday",
  "Wednesday",
  "Thursday",
  "Friday",
  "Saturday",
  "Sunday",
];
export const MONTHS = [
  "January",
  "February",
  "March",
  "April",
  "May",
  "June",
  "July",
  "August",
  "September",
  "October",
  "November",
  "December",
];

/** The key's UTC midnight, or null when it is not a real day. */
function utcOf(key: string): number | null {
  const m = DAY.exec(key);
  if (!m) return null;
  const ms = Date.UTC(+m[1], +m[2] - 1, +m[3]);
  const d = new Date(ms);
  return d.getUTCDate() === +m[3] && d.getUTCMonth() === +m[2] - 1 ? ms : null;
}

const keyOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** Whether `key` names a real day (`2027-02-30` does not). */
export function isDayKey(key: string): boolean {
  return utcOf(key) !== null;
}

/** The day (in `timeZone`) that holds instant `ms`. */
export function dayInZone(ms: number, timeZone: string): string {
  const parts = new Intl.DateTimeFormat("en-US", {
    timeZone,
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
  }).formatToParts(new Date(ms));
  const n = (type: string) => parts.find((p) => p.type === type)?.value ?? "";
  return `${n("year")}-${n("month")}-${n("day")}`;
}

/** `HH:MM` of instant `ms` in `timeZone` (24-hour clock). */
export function timeInZone(ms: number, timeZone: string): string {
  const parts = new Intl.DateTimeFormat("en-US", {
    timeZone,
    hourCycle: "h23",
    hour: "2-digit",
    minute: "2-digit",
  }).formatToParts(new Date(ms));
  const n = (type: string) => parts.find((p) => p.type === type)?.value ?? "00";
  return `${n("hour")}:${n("minute")}`;
}

export function addDays(key: string, days: number): string {
  return keyOf(utcOf(key)! + days * 86_400_000);
}

/** 0 for Monday ... 6 for Sunday. */
export function weekdayIndex(key: string): number {
  return (new Date(utcOf(key)!).getUTCDay() + 6) % 7;
}

/** The Monday of `key`'s week. */
export function startOfWeek(key: string): string {
  return addDays(key, -weekdayIndex(key));
}

/** The seven days of `key`'s week, Monday first. */
export function weekOf(key: string): string[] {
  const start = startOfWeek(key);
  return Array.from({ length: 7 }, (_, i) => addDays(start, i));
}

/** The first day of `key`'s month. */
export function startOfMonth(key: string): string {
  return `${key.slice(0, 8)}01`;
}

/** `key` moved by `months`, its day kept within the target month (31 Jan + 1 → 28 Feb). */
export function addMonths(key: string, months: number): string {
  const d = new Date(utcOf(key)!);
  const first = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + months, 1));
  const last = new Date(Date.UTC(first.getUTCFullYear(), first.getUTCMonth() + 1, 0));
  const day = Math.min(d.getUTCDate(), last.getUTCDate());
  return keyOf(Date.UTC(first.getUTCFullYear(), first.getUTCMonth(), day));
}

/** The whole weeks that cover `key`'s month (Monday to Sunday; 28 to 42 days). */
export function monthGrid(key: string): string[] {
  const first = startOfMonth(key);
  const last = addDays(addMonths(first, 1), -1);
  const days: string[] = [];
  for (
    let day = startOfWeek(first);
    day <= last || weekdayIndex(day) !== 0;
    day = addDays(day, 1)
  ) {
    days.push(day);
  }
  return days;
}

/** "Monday 22 March 2027": how assistive technology names a day. */
export function dayName(key: string): string {
  const d = new Date(utcOf(key)!);
  return `${WEEKDAYS[weekdayIndex(key)]} ${d.getUTCDate()} ${
    MONTHS[d.getUTCMonth()]
  } ${d.getUTCFullYear()}`;
}

/** "March 2027". */
export function monthName(key: string): string {
  const d = new Date(utcOf(key)!);
  return `${MONTHS[d.getUTCMonth()]} ${d.getUTCFullYear()}`;
}

/** "22 – 28 March 2027", "29 March – 4 April 2027", "28 December 2026 – 3 January 2027". */
export function rangeName(from: string, to: string): string {
  const a = new Date(utcOf(from)!);
  const b = new Date(utcOf(to)!);
  const end = `${b.getUTCDate()} ${MONTHS[b.getUTCMonth()]} ${b.getUTCFullYear()}`;
  if (a.getUTCFullYear() !== b.getUTCFullYear()) {
    return `${a.getUTCDate()} ${MONTHS[a.getUTCMonth()]} ${a.getUTCFullYear()} – ${end}`;
  }
  if (a.getUTCMonth() !== b.getUTCMonth()) {
    return `${a.getUTCDate()} ${MONTHS[a.getUTCMonth()]} – ${end}`;
  }
  return `${a.getUTCDate()} – ${end}`;
}
