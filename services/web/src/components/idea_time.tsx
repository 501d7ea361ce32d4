/** "3 min ago" for a timestamp, and its full local date for a tooltip. */
const UNITS: [Intl.RelativeTimeFormatUnit, number][] = [
  ["year", 365 * 24 * 3600],
  ["month", 30 * 24 * 3600],
  ["week", 7 * 24 * 3600],
  ["day", 24 * 3600],
  ["hour", 3600],
  ["minute", 60],
];

let relative: Intl.RelativeTimeFormat | null = null;
let absolute: Intl.DateTimeFormat | null = null;

export function relativeTime(iso: string, now = Date.now()): string {
  const seconds = (new Date(iso).getTime() - now) / 1000;
  if (!Number.isFinite(seconds)) return "";
  if (Math.abs(seconds) < 45) return "just now";
  relative ??= new Intl.RelativeTimeFormat(undefined, { numeric: "auto" });
  for (const [unit, size] of UNITS) {
    if (Math.abs(seconds) >= size || unit === "minute") {
      return relative.format(Math.round(seconds / size), unit);
    }
  }
  return "";
}

export function fullDate(iso: string): string {
  absolute ??= new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "short" });
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? "" : absolute.format(d);
}

/** A `<time>` reading "3 min ago", the full date on hover. */
export function RelativeTime({ iso, prefix = "" }: { iso: string; prefix?: string }) {
  return <time dateTime={iso} title={fullDate(iso)}>{prefix}{relativeTime(iso)}</time>;
}
