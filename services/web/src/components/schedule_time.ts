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
