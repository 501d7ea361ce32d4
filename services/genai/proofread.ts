/**
 * Proofreading: the model's annotations, parsed defensively, and the
 * service's own checks. Offsets are JavaScript string indices (UTF-16 code units) into the
 * content, `range` is `[start, end)` with `0 <= start <= end <= content.length`.
 */
import type { ChatMessage } from "../../shared/ai/backend.ts";

export const ANNOTATION_TYPES = ["grammar", "tone", "suggestion"] as const;
export type AnnotationType = typeof ANNOTATION_TYPES[number];

export interface Annotation {
  range: [number, number];
  type: AnnotationType;
  message: string;
  suggestion: string;
}

/** The professional network's post length cap (spec, limits). */
export const POST_MAX_CHARS = 3_000;
/** More hashtags than this is flagged. */
export const MAX_HASHTAGS = 5;
/** More emoji than this is flagged. */
export const MAX_EMOJI = 10;

export const PROOFREADER_PERSONA =
  "You are a meticulous proofreader of posts for a professional social network. Find " +
  "grammar and spelling mistakes, tone problems and clear improvements in the post you are " +
  "given. Answer with a JSON array only, no prose: one object per finding, " +
  '{"range": [start, end], "type": "grammar" | "tone" | "suggestion", "message": "what is ' +
  'wrong", "suggestion": "the replacement text for that range"}, where start and end are ' +
  "character offsets into the post (end exclusive). Answer [] when there is nothing to fix.";

export function buildProofreadMessages(content: string): ChatMessage[] {
  return [
    { role: "system", content: PROOFREADER_PERSONA },
    { role: "user", content: `Proofread this post:\n\n${content}` },
  ];
}

/** The JSON inside a Markdown code fence, or the text itself. */
function unfence(raw: string): string {
  const fenced = /```[a-zA-Z0-9_-]*[ \t]*\r?\n?([\s\S]*?)```/.exec(raw);
  return (fenced ? fenced[1] : raw).trim();
}

const isInt = (v: unknown): v is number => typeof v === "number" && Number.isInteger(v);

/**
 * The model's annotations: a JSON array (possibly in a code fence); anything else is `[]`.
 * Entries without a message or a usable range are dropped; ranges are clamped into the
 * content; a type other than the three documented ones becomes `suggestion`.
 */
export function parseModelAnnotations(raw: string, content: string): Annotation[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(unfence(raw));
  } catch {
    return [];
  }
  if (!Array.isArray(parsed)) return [];
  const out: Annotation[] = [];
  for (const item of parsed) {
    if (!item || typeof item !== "object" || Array.isArray(item)) continue;
    const entry = item as Record<string, unknown>;
    const range = entry.range;
    if (!Array.isArray(range) || range.length !== 2 || !isInt(range[0]) || !isInt(range[1])) {
      continue;
    }
    const message = typeof entry.message === "string" ? entry.message.trim() : "";
    if (!message) continue;
    const clamp = (n: number) => Math.min(Math.max(n, 0), content.length);
    const start = clamp(Math.min(range[0], range[1]));
    const end = clamp(Math.max(range[0], range[1]));
    const type = (ANNOTATION_TYPES as readonly unknown[]).includes(entry.type)
      ? entry.type as AnnotationType
      : "suggestion";
    const suggestion = typeof entry.suggestion === "string" ? entry.suggestion : "";
    out.push({ range: [start, end], type, message, suggestion });
  }
  return out;
}

/** A hashtag: `#` not inside a word or URL, then letters, digits or underscores. */
const HASHTAG = /(?<![\p{L}\p{N}_/&#])#[\p{L}\p{N}_]+/gu;
/** One emoji: a pictograph with its modifiers, variation selectors and ZWJ-joined parts. */
const EMOJI =
  /\p{Extended_Pictographic}(?:\uFE0F|[\u{1F3FB}-\u{1F3FF}])*(?:\u200D\p{Extended_Pictographic}(?:\uFE0F|[\u{1F3FB}-\u{1F3FF}])*)*/gu;

/** The span from the first match beyond `max` to the last match, with those matches removed. */
function excess(content: string, pattern: RegExp, max: number) {
  const matches = [...content.matchAll(pattern)];
  if (matches.length <= max) return null;
  const first = matches[max];
  const last = matches[matches.length - 1];
  const start = first.index;
  const end = last.index + last[0].length;
  const span = content.slice(start, end);
  const suggestion = span.replace(pattern, "").replace(/[ \t]{2,}/g, " ").trim();
  return { count: matches.length, range: [start, end] as [number, number], suggestion };
}

/** The service's own checks: length over 3000, more than 5 hashtags, more than 10 emoji. */
export function serviceChecks(content: string): Annotation[] {
  const out: Annotation[] = [];
  if (content.length > POST_MAX_CHARS) {
    out.push({
      range: [POST_MAX_CHARS, content.length],
      type: "suggestion",
      message: `The post is ${content.length} characters long; posts are cut off after ` +
        `${POST_MAX_CHARS} characters`,
      suggestion: "",
    });
  }
  const hashtags = excess(content, HASHTAG, MAX_HASHTAGS);
  if (hashtags) {
    out.push({
      range: hashtags.range,
      type: "suggestion",
      message: `The post has ${hashtags.count} hashtags; use at most ${MAX_HASHTAGS}`,
      suggestion: hashtags.suggestion,
    });
  }
  const emoji = excess(content, EMOJI, MAX_EMOJI);
  if (emoji) {
    out.push({
      range: emoji.range,
      type: "suggestion",
      message: `The post has ${emoji.count} emoji; use at most ${MAX_EMOJI}`,
      suggestion: emoji.suggestion,
    });
  }
  return out;
}

/** The model's annotations followed by the service's own. */
export function proofreadAnnotations(raw: string, content: string): Annotation[] {
  return [...parseModelAnnotations(raw, content), ...serviceChecks(content)];
}
