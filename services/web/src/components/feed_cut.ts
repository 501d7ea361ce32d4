/** Where LinkedIn's feed cuts a long post behind "…see more". */

/** Where the feed cuts a long text: after three lines, or about 210 characters. */
const FEED_LINES = 3;
const FEED_CHARS = 210;

export function feedCut(text: string): { shown: string; cut: boolean } {
  const trimmed = text.trimEnd();
  const lines = trimmed.split("\n");
  let shown = lines.slice(0, FEED_LINES).join("\n");
  if (shown.length > FEED_CHARS) {
    const head = shown.slice(0, FEED_CHARS);
    const space = head.lastIndexOf(" ");
    shown = space > FEED_CHARS / 2 ? head.slice(0, space) : head;
  }
  return { shown: shown.trimEnd(), cut: shown.length < trimmed.length };
}
