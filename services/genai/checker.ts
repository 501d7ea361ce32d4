/**
 * The built-in grammar and spelling checker of proofread: Harper (harper.js) in a module
 * worker (checker_worker.ts), no network and no model. The service loads it on the first
 * proofread (a few seconds off the main thread), or at start-up in the background with
 * `PROOFREAD_CHECKER_PRELOAD=true` (`warm()`). Loaded, it holds about 300 MiB, so the worker
 * ends once no check has come for `PROOFREAD_CHECKER_IDLE_SECONDS` (the next check loads it
 * again). Its lints become
 * annotations of the spec's shape: `grammar` for grammar and spelling, `suggestion` for style,
 * the first replacement in `suggestion`.
 */
import type { Logger } from "../../shared/log.ts";
import type { CheckerMessage, CheckJob, RawLint } from "./checker_worker.ts";
import type { Annotation, AnnotationType } from "./annotation.ts";

/** Harper's categories that are about style rather than correctness. */
const STYLE_KINDS = new Set([
  "Enhancement",
  "Formatting",
  "Readability",
  "Redundancy",
  "Regionalism",
  "Style",
]);

/** Hashtags, mentions, URLs and email addresses: never checked as words. */
const NOT_PROSE =
  /(?<![\p{L}\p{N}_])[#@][\p{L}\p{N}_]+|\b(?:https?:\/\/|www\.)\S+|[\w.+-]{1,64}@[\w-]{1,63}(?:\.[\w-]{1,63})+/gu;

/** Harper's suggestion kinds (SuggestionKind). */
const SUGGESTION_REMOVE = 1;
const SUGGESTION_INSERT_AFTER = 2;

const typeOf = (kind: string): AnnotationType => STYLE_KINDS.has(kind) ? "suggestion" : "grammar";

/** Harper writes code spans (`have`); the panel shows plain quotes. */
const plainQuotes = (message: string) => message.replace(/`([^`]*)`/g, "“$1”");

/** The word at `start` begins a sentence or a line (only spaces and opening quotes between). */
function startsSentence(text: string, start: number): boolean {
  const window = text.slice(Math.max(0, start - 200), start);
  const gap = /[\s"'“‘(\[]*$/u.exec(window)![0];
  const before = window.slice(0, window.length - gap.length);
  if (before === "") return start <= 200;
  return gap.includes("\n") || /[.!?…:]$/u.test(before);
}

/** A word: letters, with inner apostrophes and hyphens. */
const WORD = /\p{L}[\p{L}\p{M}'’-]*/gu;

/**
 * Capitalised words that stand mid-sentence somewhere in the text: names (`Kowalczyk`,
 * `Zalando`), left unchecked for spelling wherever they stand, sentence starts included.
 */
function namesIn(text: string): Set<string> {
  const names = new Set<string>();
  for (const m of text.matchAll(WORD)) {
    if (/^\p{Lu}/u.test(m[0]) && !startsSentence(text, m.index)) names.add(m[0]);
  }
  return names;
}

/**
 * A spelling lint on a name, an acronym or a product (`GraphQL`, `v2`, a capitalised word
 * mid-sentence) is left out: the dictionary does not know them, and they are seldom misspelt.
 */
function looksLikeName(text: string, lint: RawLint, names: Set<string>): boolean {
  if (lint.kind !== "Spelling") return false;
  const word = text.slice(lint.start, lint.end);
  if (/\p{N}/u.test(word) || /.\p{Lu}/u.test(word) || names.has(word)) return true;
  return /^\p{Lu}/u.test(word) && !startsSentence(text, lint.start);
}

/** A sentence or line whose words are mostly flagged is in another language... */
const FOREIGN_SENTENCE_SHARE = 0.6;
const FOREIGN_SENTENCE_MIN = 2;
/** ...and so is a text with this share of words unknown to the dictionary... */
const FOREIGN_TEXT_SHARE = 0.4;
const FOREIGN_TEXT_MIN = 3;
/**
 * ...unless at least one word in eight is an English function word: then it is English with
 * many misspellings ("Thsi is a smple post wiht typos"), and every one of them is found.
 * Words that are also common German, Spanish, French or Italian words (`an`, `in`, `was`,
 * `will`, `die`, `a`, `me`, `he`, `on`, `as`, `so`, lower-case `i`) do not count.
 */
const ENGLISH_SHARE = 1 / 8;
const ENGLISH_FUNCTION_WORDS = new Set(
  ("the is are were be been being to of and for with it its it's this that these those you " +
    "your we our they their them she her his him my have has had not but or at by from can " +
    "could would should do does did if there what which who when how just very about into " +
    "than then because also only more most some any all")
    .split(" "),
);

/** At least one word in eight of `span` is an English function word (`I` counted). */
function readsAsEnglish(span: string): boolean {
  const words = span.match(WORD) ?? [];
  const english =
    words.filter((w) => w === "I" || ENGLISH_FUNCTION_WORDS.has(w.toLowerCase().replace("’", "'")))
      .length;
  return english > 0 && english >= words.length * ENGLISH_SHARE;
}

/**
 * The spans the English checker cannot judge: the whole text when at least 40 % of its words
 * are unknown to its dictionary (a post in Spanish), else each sentence or line with at least
 * 60 % of its words flagged, and at least two (a German quote in an English post); a span that
 * reads as English is never one. Every lint inside one is left out.
 */
function foreignSpans(text: string, lints: RawLint[]): [number, number][] {
  // `lints` holds no names: a post full of names is still English.
  const words = (span: string) => span.match(WORD)?.length ?? 0;
  const unknown = lints.filter((l) => l.kind === "Spelling").length;
  if (
    unknown >= FOREIGN_TEXT_MIN && unknown >= words(text) * FOREIGN_TEXT_SHARE &&
    !readsAsEnglish(text)
  ) {
    return [[0, text.length]];
  }
  const spans: [number, number][] = [];
  for (const sentence of text.matchAll(/[^.!?\n]+[.!?]*/g)) {
    const from = sentence.index;
    const to = from + sentence[0].length;
    const flagged = lints.filter((l) => l.start >= from && l.end <= to).length;
    if (flagged < FOREIGN_SENTENCE_MIN || readsAsEnglish(sentence[0])) continue;
    if (flagged >= words(sentence[0]) * FOREIGN_SENTENCE_SHARE) spans.push([from, to]);
  }
  return spans;
}

/**
 * The checker's annotations for `text` from Harper's lints: those on hashtags, mentions, URLs,
 * email addresses, names and sentences in another language left out, ranges kept inside the
 * text, one annotation per lint.
 */
export function checkerAnnotations(text: string, lints: RawLint[]): Annotation[] {
  const names = namesIn(text);
  const kept = lints.filter((lint) => !looksLikeName(text, lint, names));
  const skipped = [
    ...[...text.matchAll(NOT_PROSE)].map((m) => [m.index, m.index + m[0].length]),
    ...foreignSpans(text, kept),
  ];
  const out: Annotation[] = [];
  for (const lint of kept) {
    const start = Math.max(0, Math.min(lint.start, text.length));
    const end = Math.max(start, Math.min(lint.end, text.length));
    if (skipped.some(([s, e]) => start < e && s < end)) continue;
    const first = lint.suggestions[0];
    const problem = text.slice(start, end);
    const suggestion = !first
      ? ""
      : first.kind === SUGGESTION_REMOVE
      ? ""
      : first.kind === SUGGESTION_INSERT_AFTER
      ? problem + first.text
      : first.text;
    out.push({
      range: [start, end],
      type: typeOf(lint.kind),
      message: plainQuotes(lint.message.trim()) || "Check this",
      suggestion,
    });
  }
  return out;
}

/** No word is this long: a longer run without spaces (a pasted hash, a data URL) is no prose. */
const LONG_TOKEN = /\S{65,}/g;

/**
 * `text` with each run of 65 or more non-space characters cut down to one space, and the map
 * of the cut text's offsets back to `text`'s. Harper panics on a word tens of thousands of
 * characters long (and is slow on as many spaces), and none of them is prose.
 */
export function withoutLongTokens(
  text: string,
): {
  text: string;
  toOriginal(i: number): number;
  touchesCut(start: number, end: number): boolean;
} {
  const cuts: { at: number; removed: number }[] = [];
  let removed = 0;
  const cut = text.replace(LONG_TOKEN, (token, index: number) => {
    cuts.push({ at: index - removed, removed: token.length - 1 });
    removed += token.length - 1;
    return " ";
  });
  const toOriginal = (i: number) => {
    let shift = 0;
    for (const c of cuts) if (c.at < i) shift += c.removed;
    return i + shift;
  };
  /** A lint that reaches into a cut (its stand-in space) is about the cut, not the prose. */
  const touchesCut = (start: number, end: number) =>
    cuts.some((c) => start <= c.at + 1 && c.at <= end);
  return { text: cut, toOriginal, touchesCut };
}

/** How long loading may take, and then one check, before the check is abandoned. */
export const CHECKER_LOAD_TIMEOUT_MS = 60_000;
export const CHECKER_CALL_TIMEOUT_MS = 10_000;
/** How long a loaded checker stays without a check before its worker ends (by default). */
export const CHECKER_IDLE_MS = 300_000;

interface Pending {
  resolve(lints: RawLint[]): void;
  reject(err: Error): void;
  timer: ReturnType<typeof setTimeout>;
}

/**
 * The checker's worker: started on the first check (or `warm()`), jobs answered in order.
 * A worker that fails, crashes or does not answer in time is ended; the next check starts a
 * new one. One left without a check for `idleMs` (0: never) is ended too, which gives back
 * the memory Harper holds.
 */
export class GrammarChecker {
  #worker: Worker | null = null;
  #ready: Promise<void> | null = null;
  #pending = new Map<number, Pending>();
  /** Ends the load in progress with an error (the worker was stopped before it was ready). */
  #abortLoad: ((err: Error) => void) | null = null;
  #nextId = 1;
  #closed = false;
  #idleTimer: ReturnType<typeof setTimeout> | null = null;

  constructor(
    private readonly options: { logger?: Logger; callTimeoutMs?: number; idleMs?: number } = {},
  ) {}

  /** The annotations of the built-in checker for `text` (empty text: none). */
  async check(text: string): Promise<Annotation[]> {
    if (!text.trim()) return [];
    const cut = withoutLongTokens(text);
    const lints = await this.lint(cut.text);
    const mapped = cut.text === text ? lints : lints
      .filter((lint) => !cut.touchesCut(lint.start, lint.end))
      .map((lint) => ({
        ...lint,
        start: cut.toOriginal(lint.start),
        end: cut.toOriginal(lint.end),
      }));
    return checkerAnnotations(text, mapped);
  }

  /** Harper's lints for `text`, as the worker answered them (a failed check ends the worker). */
  async lint(text: string): Promise<RawLint[]> {
    if (this.#closed) throw new Error("The grammar checker is closed");
    this.#clearIdle();
    try {
      await this.warm();
      const worker = this.#worker!;
      const id = this.#nextId++;
      return await new Promise<RawLint[]>((resolve, reject) => {
        const timer = setTimeout(() => {
          this.#pending.delete(id);
          reject(new Error(`The grammar checker did not answer within ${this.#timeout()} ms`));
          this.#stop();
        }, this.#timeout());
        this.#pending.set(id, { resolve, reject, timer });
        worker.postMessage({ id, text } satisfies CheckJob);
      });
    } finally {
      this.#armIdle();
    }
  }

  /** Starts the worker and resolves once Harper is loaded (at once when it already is). */
  warm(): Promise<void> {
    if (this.#closed) return Promise.reject(new Error("The grammar checker is closed"));
    if (!this.#ready) {
      this.#ready = this.#start();
      // A checker loaded ahead of use (at start-up) ends as well if no check comes.
      this.#ready.then(() => this.#armIdle(), () => {});
    }
    return this.#ready;
  }

  /** Whether the worker is running (loaded or loading). */
  get loaded(): boolean {
    return this.#worker !== null;
  }

  /** Ends the worker; checks still waiting fail. */
  close(): void {
    this.#closed = true;
    this.#stop();
  }

  /** Ends the worker once `idleMs` pass with no check waiting (re-armed after every check). */
  #armIdle(): void {
    const idleMs = this.options.idleMs ?? CHECKER_IDLE_MS;
    if (idleMs <= 0 || this.#closed || this.#worker === null) return;
    this.#clearIdle();
    this.#idleTimer = setTimeout(() => {
      this.#idleTimer = null;
      if (this.#pending.size > 0) return; // a check is running: it re-arms the timer
      this.options.logger?.info("the grammar checker ended after an idle period", {
        idle_ms: idleMs,
      });
      this.#stop();
    }, idleMs);
    // The idle end alone never keeps the process alive.
    Deno.unrefTimer(this.#idleTimer);
  }

  #clearIdle(): void {
    if (this.#idleTimer !== null) clearTimeout(this.#idleTimer);
    this.#idleTimer = null;
  }

  #timeout(): number {
    return this.options.callTimeoutMs ?? CHECKER_CALL_TIMEOUT_MS;
  }

  #start(): Promise<void> {
    const worker = new Worker(new URL("./checker_worker.ts", import.meta.url).href, {
      type: "module",
    });
    this.#worker = worker;
    return new Promise<void>((resolve, reject) => {
      const settle = (err?: Error) => {
        clearTimeout(loadTimer);
        this.#abortLoad = null;
        if (err) reject(err);
        else resolve();
      };
      const loadTimer = setTimeout(() => {
        settle(new Error(`The grammar checker did not load within ${CHECKER_LOAD_TIMEOUT_MS} ms`));
        this.#stop();
      }, CHECKER_LOAD_TIMEOUT_MS);
      this.#abortLoad = settle;
      worker.onmessage = (event: MessageEvent<CheckerMessage>) => {
        const message = event.data;
        if ("ready" in message) {
          settle();
        } else if ("failed" in message) {
          settle(new Error(`The grammar checker failed to load: ${message.failed}`));
          this.#stop();
        } else {
          const pending = this.#pending.get(message.id);
          if (!pending) return;
          this.#pending.delete(message.id);
          clearTimeout(pending.timer);
          if ("error" in message) {
            // Harper's WASM is unusable after a panic: the next check gets a fresh worker.
            pending.reject(new Error(`The grammar checker failed: ${message.error}`));
            this.#stop();
          } else {
            pending.resolve(message.lints);
          }
        }
      };
      worker.onerror = (event: ErrorEvent) => {
        // A crashed worker is replaced on the next check; what waited on it fails.
        event.preventDefault();
        this.#abortLoad?.(new Error(`The grammar checker failed: ${event.message}`));
        this.options.logger?.error("grammar checker worker failed", { error: event.message });
        this.#stop();
      };
    });
  }

  #stop(): void {
    this.#clearIdle();
    this.#worker?.terminate();
    this.#worker = null;
    this.#ready = null;
    this.#abortLoad?.(new Error("The grammar checker stopped"));
    for (const [id, pending] of this.#pending) {
      clearTimeout(pending.timer);
      pending.reject(new Error("The grammar checker stopped"));
      this.#pending.delete(id);
    }
  }
}
