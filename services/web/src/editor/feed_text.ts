/**
 * A post's text as LinkedIn's feed lays it out: cut after three lines or 210 characters
 * (whichever comes first) behind "…see more", and each line split into plain text, hashtags,
 * mentions and links (styled as the feed styles them).
 */

export const FEED_CUT_CHARS = 210;
export const FEED_CUT_LINES = 3;

export interface FeedCut {
  /** What the feed shows before "…see more" (the whole text when nothing is cut). */
  shown: string;
  cut: boolean;
}

const isHighSurrogate = (code: number) => code >= 0xd800 && code <= 0xdbff;

/** The part of `text` the feed shows folded. */
export function feedCut(text: string): FeedCut {
  const whole = text.trimEnd();
  let end = Math.min(whole.length, FEED_CUT_CHARS);
  let newline = -1;
  for (let i = 0; i < FEED_CUT_LINES; i++) {
    newline = whole.indexOf("\n", newline + 1);
    if (newline < 0 || newline >= end) break;
    if (i === FEED_CUT_LINES - 1) end = newline;
  }
  if (end >= whole.length) return { shown: whole, cut: false };
  // never leave half of an emoji (a surrogate pair) before the cut; end on a whole word when
  // one ends in the last few characters
  if (end > 0 && isHighSurrogate(whole.charCodeAt(end - 1))) end--;
  if (/\S/.test(whole[end] ?? "")) {
    const space = whole.slice(0, end).search(/\s\S*$/);
    if (space > 0 && end - space <= 30) end = space;
  }
  return { shown: whole.slice(0, end).trimEnd(), cut: true };
}

export interface FeedToken {
  kind: "text" | "hashtag" | "mention" | "link";
  text: string;
}

const SPECIAL = /(#[\p{L}\p{N}_]+)|(@[\p{L}\p{N}_][\p{L}\p{N}_.-]*)|(https?:\/\/[^\s]+)/gu;

/** One line's plain text, hashtags (`#launch`), mentions (`@Ada`) and links, in order. */
export function feedTokens(line: string): FeedToken[] {
  const out: FeedToken[] = [];
  let last = 0;
  for (const m of line.matchAll(SPECIAL)) {
    const at = m.index!;
    // a # or @ inside a word (an email, "C#") is text
    if (!m[3] && at > 0 && /[\p{L}\p{N}_]/u.test(line[at - 1])) continue;
    if (at > last) out.push({ kind: "text", text: line.slice(last, at) });
    out.push({ kind: m[1] ? "hashtag" : m[2] ? "mention" : "link", text: m[0] });
    last = at + m[0].length;
  }
  if (last < line.length) out.push({ kind: "text", text: line.slice(last) });
  return out;
}
