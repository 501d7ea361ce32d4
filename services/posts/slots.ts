/**
 * Publishing slots: `"<Mon|...|Sun> HH:MM"` in the workspace's IANA time zone.
 * The next free slot is computed on wall-clock time in that zone, so 09:00 stays 09:00 across
 * a DST change. A slot time that does not exist that day (skipped by a spring-forward) is
 * published at the first minute that exists after it (02:30 -> 03:30 in Europe/Zurich); an
 * ambiguous one (repeated by a fall-back) takes its first occurrence.
 */

const DAYS = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];
const SLOT = /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun) ([01]\d|2[0-3]):([0-5]\d)$/;

const formatters = new Map<string, Intl.DateTimeFormat>();
function formatter(zone: string): Intl.DateTimeFormat {
  let f = formatters.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat("en-US", {
      timeZone: zone,
      hourCycle: "h23",
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      second: "2-digit",
    });
    formatters.set(zone, f);
  }
  return f;
}

/** The wall-clock fields of `instant` in `zone`. */
function wallClock(instant: number, zone: string) {
  const parts: Record<string, number> = {};
  for (const p of formatter(zone).formatToParts(new Date(instant))) {
    if (p.type !== "literal") parts[p.type] = Number(p.value);
  }
  return {
    year: parts.year,
    month: parts.month,
    day: parts.day,
    hour: parts.hour % 24,
    minute: parts.minute,
    second: parts.second,
  };
}

/** The zone's offset from UTC at `instant`, in milliseconds. */
function offsetAt(instant: number, zone: string): number {
  const w = wallClock(instant, zone);
  const asUtc = Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute, w.second);
  return asUtc - Math.floor(instant / 1000) * 1000;
}

/**
 * The instant at which the wall clock in `zone` shows that date and time; the first one when
 * it shows it twice, the first existing minute after it when it never does.
 */
export function zonedInstant(
  zone: string,
  year: number,
  month: number,
  day: number,
  hour: number,
  minute: number,
): number {
  const wall = Date.UTC(year, month - 1, day, hour, minute);
  // Candidates from the offsets around that wall time; keep those that read back exactly.
  const offsets = new Set([
    offsetAt(wall - 86_400_000, zone),
    offsetAt(wall, zone),
    offsetAt(wall + 86_400_000, zone),
  ]);
  const exact = [...offsets].map((o) => wall - o).filter((t) => {
    const w = wallClock(t, zone);
    return w.year === year && w.month === month && w.day === day && w.hour === hour &&
      w.minute === minute;
  }).sort((a, b) => a - b);
  if (exact.length > 0) return exact[0];
  // A gap: the clock jumped over this time. Shift by the jump (the later offset applies).
  return wall - Math.min(...offsets);
}

/** Parses a slot entry; null for one that is not `"<Day> HH:MM"`. */
export function parseSlot(slot: string): { weekday: number; hour: number; minute: number } | null {
  const m = SLOT.exec(slot);
  if (!m) return null;
  return { weekday: DAYS.indexOf(m[1]), hour: Number(m[2]), minute: Number(m[3]) };
}

/**
 * The earliest slot instant after `now` that is not in `taken` (instants in ms), looking up to
 * `horizonDays` ahead; null when there is no slot at all (or every one is taken).
 */
export function nextFreeSlot(
  slots: readonly string[],
  zone: string,
  now: number,
  taken: ReadonlySet<number> = new Set(),
  horizonDays = 400,
): number | null {
  const parsed = slots.map(parseSlot).filter((s) => s !== null);
  if (parsed.length === 0) return null;
  const today = wallClock(now, zone);
  for (let d = 0; d <= horizonDays; d++) {
    // Calendar arithmetic on a UTC date: the zone's day d days after today.
    const date = new Date(Date.UTC(today.year, today.month - 1, today.day + d));
    const weekday = date.getUTCDay();
    const candidates = parsed.filter((s) => s.weekday === weekday).map((s) =>
      zonedInstant(
        zone,
        date.getUTCFullYear(),
        date.getUTCMonth() + 1,
        date.getUTCDate(),
        s.hour,
        s.minute,
      )
    ).filter((t) => t > now && !taken.has(t)).sort((a, b) => a - b);
    if (candidates.length > 0) return candidates[0];
  }
  return null;
}

/**
 * Every slot instant from `from` to `to` (dates `YYYY-MM-DD` in `zone`, both included), in
 * time order.
 */
export function slotsBetween(
  slots: readonly string[],
  zone: string,
  from: { year: number; month: number; day: number },
  days: number,
): number[] {
  const parsed = slots.map(parseSlot).filter((s) => s !== null);
  const out: number[] = [];
  for (let d = 0; d < days; d++) {
    const date = new Date(Date.UTC(from.year, from.month - 1, from.day + d));
    for (const s of parsed) {
      if (s.weekday !== date.getUTCDay()) continue;
      out.push(
        zonedInstant(
          zone,
          date.getUTCFullYear(),
          date.getUTCMonth() + 1,
          date.getUTCDate(),
          s.hour,
          s.minute,
        ),
      );
    }
  }
  return out.sort((a, b) => a - b);
}
