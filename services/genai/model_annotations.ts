/**
 * Reading a model's proofread answer, as models actually write it: a JSON array, bare or in a
 * Markdown code fence, possibly with prose around it; items with a `range`, or quoting the words
 * instead (placed where those words occur), under the field names models tend to use. Anything
 * that is not an array of annotations is unusable: it adds nothing, and the caller says so.
 */
import { type Annotation, ANNOTATION_TYPES, type AnnotationType } from "./annotation.ts";

export interface ModelReading {
  annotations: Annotation[];
  /** false when the answer held no JSON array of annotations (prose, an object, broken JSON) */
  usable: boolean;
}

const MESSAGE_FIELDS = ["message", "explanation", "reason", "description", "comment", "note"];
const SUGGESTION_FIELDS = [
  "suggestion",
  "replacement",
  "correction",
  "corrected",
  "fix",
  "suggested",
  "replace_with",
];
const QUOTE_FIELDS = [
  "text",
  "quote",
  "original",
  "original_text",
  "excerpt",
  "phrase",
  "word",
  "span",
  "match",
  "target",
  "incorrect",
  "wrong",
  "error",
];
const TYPE_FIELDS = ["type", "category", "kind"];
/** Types models give that are grammar in the spec's terms (spelling included). */
const GRAMMAR_TYPES = new Set([
  "grammar",
  "spelling",
  "typo",
  "punctuation",
  "capitalization",
  "capitalisation",
  "agreement",
  "usage",
]);

const isInt = (v: unknown): v is number => typeof v === "number" && Number.isInteger(v);

function firstString(entry: Record<string, unknown>, fields: string[]): string | undefined {
  for (const field of fields) {
    const value = entry[field];
    if (typeof value === "string") return value;
  }
  return undefined;
}

/** The JSON inside a Markdown code fence, or the text itself. */
function unfence(raw: string): string {
  const fenced = /```[a-zA-Z0-9_-]*[ \t]*\r?\n?([\s\S]*?)```/.exec(raw);
  return (fenced ? fenced[1] : raw).trim();
}

/** The answer's JSON value: the whole (unfenced) text, else its outermost `[...]`. */
function parseAnswer(raw: string): unknown {
  const text = unfence(raw);
  try {
    return JSON.parse(text);
  } catch {
    const open = text.indexOf("[");
    const close = text.lastIndexOf("]");
    if (open < 0 || close <= open) return undefined;
    try {
      return JSON.parse(text.slice(open, close + 1));
    } catch {
      return undefined;
    }
  }
}

function typeOf(value: string | undefined): AnnotationType {
  const type = value?.trim().toLowerCase() ?? "";
  if ((ANNOTATION_TYPES as readonly string[]).includes(type)) return type as AnnotationType;
  return GRAMMAR_TYPES.has(type) ? "grammar" : "suggestion";
}

/** The range an entry gives: `range: [start, end]`, or `start` and `end`. */
function givenRange(entry: Record<string, unknown>): [number, number] | null {
  const range = entry.range;
  if (Array.isArray(range) && range.length === 2 && isInt(range[0]) && isInt(range[1])) {
    return [Math.min(range[0], range[1]), Math.max(range[0], range[1])];
  }
  if (isInt(entry.start) && isInt(entry.end)) {
    return [Math.min(entry.start, entry.end), Math.max(entry.start, entry.end)];
  }
  return null;
}

/** Every index where `quote` occurs in `content` (case-insensitively when never exactly). */
function occurrences(content: string, quote: string): number[] {
  const find = (haystack: string, needle: string) => {
    const found: number[] = [];
    for (let at = haystack.indexOf(needle); at >= 0; at = haystack.indexOf(needle, at + 1)) {
      found.push(at);
    }
    return found;
  };
  const exact = find(content, quote);
  return exact.length > 0 ? exact : find(content.toLowerCase(), quote.toLowerCase());
}

/**
 * Reads the model's proofread answer against `content`. Ranges are clamped into the content;
 * an item that quotes text is placed where the quote occurs (nearest its range when it gave one
 * that does not match, else the next occurrence not yet taken by the same quote); an item with
 * neither a usable range nor a quote found in the text, or with neither a message nor a
 * suggestion, is dropped. A type other than the three documented ones becomes `suggestion`
 * (spelling, punctuation and the like: `grammar`).
 */
export function readModelAnswer(raw: string, content: string): ModelReading {
  const parsed = parseAnswer(raw);
  if (!Array.isArray(parsed)) return { annotations: [], usable: false };
  const clamp = (n: number) => Math.min(Math.max(n, 0), content.length);
  const nextFrom = new Map<string, number>();
  const annotations: Annotation[] = [];
  for (const item of parsed) {
    if (!item || typeof item !== "object" || Array.isArray(item)) continue;
    const entry = item as Record<string, unknown>;
    const suggestion = firstString(entry, SUGGESTION_FIELDS) ?? "";
    const quote = firstString(entry, QUOTE_FIELDS);
    let message = firstString(entry, MESSAGE_FIELDS)?.trim() ?? "";
    if (!message && suggestion && quote) message = `Replace “${quote}” with “${suggestion}”`;
    if (!message) continue;
    let range = givenRange(entry);
    if (range) range = [clamp(range[0]), clamp(range[1])];
    if (quote && (!range || content.slice(range[0], range[1]) !== quote)) {
      const found = occurrences(content, quote);
      if (found.length > 0) {
        let at: number;
        if (range) {
          const near = range[0];
          at = found.reduce((best, i) => Math.abs(i - near) < Math.abs(best - near) ? i : best);
        } else {
          const from = nextFrom.get(quote) ?? 0;
          at = found.find((i) => i >= from) ?? found[0];
          nextFrom.set(quote, at + Math.max(1, quote.length));
        }
        range = [at, at + quote.length];
      }
    }
    if (!range) continue;
    annotations.push({ range, type: typeOf(firstString(entry, TYPE_FIELDS)), message, suggestion });
  }
  const usable = parsed.length === 0 || annotations.length > 0;
  return { annotations, usable };
}
