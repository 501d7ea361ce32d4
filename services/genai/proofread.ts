/**
 * Proofreading: the model's annotations (model_annotations.ts) and the built-in checker's
 * (checker.ts), merged, then the service's own checks.
 */
import type { ChatMessage } from "../../shared/ai/backend.ts";
import type { Annotation } from "./annotation.ts";
import { readModelAnswer } from "./model_annotations.ts";

export { type Annotation, ANNOTATION_TYPES, type AnnotationType } from "./annotation.ts";

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

/** What became of the model's answer: merged, unusable (prose, not an array), or no model. */
export type ModelOutcome = "used" | "unusable" | "none";

/** Two ranges touch: they share a character, or an empty one lies within the other. */
function overlaps(a: Annotation, b: Annotation): boolean {
  const [s1, e1] = a.range;
  const [s2, e2] = b.range;
  if (s1 === e1 || s2 === e2) return s1 <= e2 && s2 <= e1;
  return s1 < e2 && s2 < e1;
}

/**
 * The model's findings and the checker's, in text order, the model's winning where ranges
 * overlap (the checker's finding is dropped).
 */
export function mergeFindings(model: Annotation[], checker: Annotation[]): Annotation[] {
  const kept = checker.filter((c) => !model.some((m) => overlaps(m, c)));
  return [...model, ...kept].sort((a, b) => a.range[0] - b.range[0] || a.range[1] - b.range[1]);
}

/**
 * A proofread's annotations: the model's answer (null without a model) read robustly and
 * merged with the built-in checker's findings, then the service's own checks.
 */
export function proofreadAnnotations(
  modelAnswer: string | null,
  checker: Annotation[],
  content: string,
): { annotations: Annotation[]; model: ModelOutcome } {
  const reading = modelAnswer === null ? null : readModelAnswer(modelAnswer, content);
  const model: ModelOutcome = !reading ? "none" : reading.usable ? "used" : "unusable";
  return {
    annotations: [...mergeFindings(reading?.annotations ?? [], checker), ...serviceChecks(content)],
    model,
  };
}
