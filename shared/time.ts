/** Timestamps on the wire: ISO 8601 with milliseconds and the offset written `+00:00`. */
export function toIso(date: Date): string {
  return date.toISOString().replace(/Z$/, "+00:00");
}

/** The current time as a wire timestamp. */
export function nowIso(): string {
  return toIso(new Date());
}
