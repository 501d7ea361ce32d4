/** Timestamps on the wire: ISO 8601 with milliseconds and the offset written `+00:00`. */
export function toIso(date: Date): string {
  return date.toISOString().replace(/Z$/, "+00:00");
}

/** The current time as a wire timestamp. */
export function nowIso(): string {
  return toIso(new Date());
}

/**
 * Whether `zone` names an IANA time zone (`Europe/Zurich`, `UTC`). `Intl` also takes UTC
 * offsets such as `+02:00`, which name no zone: a name starts with a letter.
 */
export function isTimeZone(zone: string): boolean {
  if (!/^[A-Za-z]/.test(zone) || zone.length > 64) return false;
  try {
    new Intl.DateTimeFormat(undefined, { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}
