/**
 * Live counts of a post's text: characters against LinkedIn's 3,000 limit, hashtags and emoji.
 * Characters are UTF-16 code units (`String.length`), the unit LinkedIn's own composer limits,
 * so an emoji may count as 2 as it does there.
 */
export const LINKEDIN_LIMIT = 3000;
/** From this many characters on the counter turns to its warning colour. */
export const LINKEDIN_WARN_AT = 2700;

export type CharLevel = "ok" | "warning" | "over";

export interface Counts {
  characters: number;
  hashtags: number;
  emoji: number;
  level: CharLevel;
}

/** A hashtag: `#` not inside a word (or an HTML entity like `&#123;`), then letters/digits/_. */
const HASHTAG = /(^|[^\p{L}\p{N}_&#])#[\p{L}\p{N}_]*\p{L}[\p{L}\p{N}_]*/gu;
const PICTOGRAPHIC = /\p{Extended_Pictographic}|\p{Regional_Indicator}/u;

let segmenter: Intl.Segmenter | null = null;

/** The number of emoji (each grapheme with a pictograph: a family or a flag counts once). */
export function countEmoji(text: string): number {
  if (!PICTOGRAPHIC.test(text)) return 0;
  segmenter ??= new Intl.Segmenter(undefined, { granularity: "grapheme" });
  let n = 0;
  for (const { segment } of segmenter.segment(text)) {
    if (PICTOGRAPHIC.test(segment)) n++;
  }
  return n;
}

export function countHashtags(text: string): number {
  let n = 0;
  for (const _ of text.matchAll(HASHTAG)) n++;
  return n;
}

export function charLevel(characters: number): CharLevel {
  if (characters > LINKEDIN_LIMIT) return "over";
  if (characters >= LINKEDIN_WARN_AT) return "warning";
  return "ok";
}

export function countText(text: string): Counts {
  const characters = text.length;
  return {
    characters,
    hashtags: countHashtags(text),
    emoji: countEmoji(text),
    level: charLevel(characters),
  };
}
