/** Time zones for the settings forms: the browser's own, and the IANA zones to offer. */

/** The browser's IANA time zone (UTC when it does not say). */
export function browserTimeZone(): string {
  try {
    return Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC";
  } catch {
    return "UTC";
  }
}

/** Every IANA zone the browser knows, with `current` (and UTC) always among them. */
export function timeZoneOptions(current: string): string[] {
  let zones: string[];
  try {
    zones = (Intl as unknown as { supportedValuesOf(k: string): string[] }).supportedValuesOf(
      "timeZone",
    );
  } catch {
    zones = [];
  }
  const extra = [current, "UTC"].filter((z) => z && !zones.includes(z));
  return [...extra, ...zones];
}
