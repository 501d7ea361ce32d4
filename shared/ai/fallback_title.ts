/**
 * The title an idea gets without a model: the text's most telling phrase. retext-keywords
 * (unified's natural-language tooling: part-of-speech tagging, then the most frequent nouns
 * and noun phrases, stemmed) scores the text's keywords; every sentence, clause and, in a clause
 * too long for a title, every run of words that fits, is a candidate; the one holding the most
 * keyword weight for its length wins, the first sentence a little favoured (ideas tend to lead
 * with their point). The winner is cut to at most 80 characters at a word boundary, without a
 * trailing stop word (of the text's language) or punctuation. A text of one short sentence keeps it whole.
 */
import { retext } from "retext";
import retextKeywords from "retext-keywords";
import retextPos from "retext-pos";
import { deu, eng as STOPWORDS_EN, fra, ita, spa } from "stopword";

/** The longest fallback title. */
export const FALLBACK_TITLE_MAX = 80;
/** Only the start of a long text is read; a title needs no more. */
const SOURCE_MAX = 4_000;
/** The first sentence's candidates count this much more. */
const FIRST_SENTENCE_BONUS = 1.2;
/** Candidates shorter than this many words are scored as if this long (no one-word titles). */
const MIN_SCORED_WORDS = 4;

/** Words a title does not end on (stopword's English list and a few more). */
const STOP_WORDS = new Set([
  ...STOPWORDS_EN,
  "vs",
  "via",
  "per",
  "will",
  "just",
  "can",
  "could",
  "would",
  "should",
  "etc",
  "also",
  "like",
  "nobody",
  "anyone",
  "everyone",
  "someone",
  "something",
  "anything",
  "everything",
  "nothing",
]);
/**
 * The stop words of the other languages of the default language list (German, Swiss German,
 * French, Italian, Spanish): a text mostly in one of them does not end its title on one of its
 * stop words either. Only the text's own language counts: an English title may end on "die".
 */
const OTHER_STOP_WORDS = [deu, fra, ita, spa].map((list: string[]) => new Set<string>(list));

/**
 * The stop words for `text`: English, or those of the other language whose stop words it uses
 * more often than English ones (with English's kept, for mixed text).
 */
function stopWordsFor(text: string): Set<string> {
  const words = text.toLowerCase().match(/\p{L}+(?:['’]\p{L}+)?/gu) ?? [];
  const hits = (set: Set<string>) => words.filter((w) => set.has(w)).length;
  let best = STOP_WORDS;
  let bestHits = hits(STOP_WORDS);
  for (const set of OTHER_STOP_WORDS) {
    const n = hits(set);
    if (n > bestHits) [best, bestHits] = [new Set([...STOP_WORDS, ...set]), n];
  }
  return best;
}

const LINKS = /\b(?:https?:\/\/|www\.)\S+|[\w.+-]{1,64}@[\w-]{1,63}(?:\.[\w-]{1,63})+/g;

/** Words a candidate does not start with: joining words left over from a split. */
const LEADING_JOINERS = new Set(["and", "but", "or", "so", "plus", "also", "then", "yet"]);

const processor = retext().use(retextPos).use(retextKeywords, { maximum: 12 });

interface Positioned {
  type: string;
  position?: { start: { offset?: number }; end: { offset?: number } };
  children?: Positioned[];
}

interface Word {
  start: number;
  end: number;
  text: string;
}

interface Candidate {
  words: Word[];
  sentence: number;
}

const offsets = (node: Positioned) => ({
  start: node.position?.start.offset ?? 0,
  end: node.position?.end.offset ?? 0,
});

const isStop = (word: Word, stops: Set<string>) =>
  stops.has(word.text.toLowerCase().replace(/[’']/g, "'"));
const lengthOf = (words: Word[]) => words.length ? words.at(-1)!.end - words[0].start : 0;

/** Clause breaks inside a sentence: stops, commas, semicolons, colons, dashes, brackets. */
const CLAUSE_BREAK = /^[.!?…,;:()[\]{}–—|•]+$|^-$/;

/** The text's sentences, each as its clauses (runs of words between clause breaks). */
function sentencesOf(tree: Positioned, text: string): Word[][][] {
  const sentences: Word[][][] = [];
  const visit = (node: Positioned) => {
    if (node.type !== "SentenceNode") {
      node.children?.forEach(visit);
      return;
    }
    const clauses: Word[][] = [[]];
    for (const child of node.children ?? []) {
      const { start, end } = offsets(child);
      const raw = text.slice(start, end);
      if (child.type === "WordNode") clauses.at(-1)!.push({ start, end, text: raw });
      else if (CLAUSE_BREAK.test(raw.trim()) && clauses.at(-1)!.length) clauses.push([]);
    }
    const kept = clauses.filter((c) => c.length > 0);
    if (kept.length) sentences.push(kept);
  };
  visit(tree);
  return sentences;
}

/** Leading joining words off, trailing stop words off (never below one word). */
function trim(words: Word[], stops: Set<string>): Word[] {
  let from = 0;
  let to = words.length;
  while (to - from > 1 && LEADING_JOINERS.has(words[from].text.toLowerCase())) from++;
  while (to - from > 1 && isStop(words[to - 1], stops)) to--;
  return words.slice(from, to);
}

/**
 * The candidates of one sentence: the sentence and its clauses when they fit in a title; in a
 * clause too long for one, every run of words that fits, starting where a phrase starts (the
 * clause's first word, or a word after an English stop word) and ending on a word that is not
 * one of `stops` (the text's language's, see stopWordsFor).
 */
function candidatesOf(clauses: Word[][], sentence: number, stops: Set<string>): Candidate[] {
  const out: Candidate[] = [];
  const whole = clauses.flat();
  if (clauses.length > 1 && lengthOf(whole) <= FALLBACK_TITLE_MAX) {
    out.push({ words: trim(whole, stops), sentence });
  }
  for (const clause of clauses) {
    if (lengthOf(clause) <= FALLBACK_TITLE_MAX) {
      out.push({ words: trim(clause, stops), sentence });
      continue;
    }
    for (let i = 0; i < clause.length; i++) {
      const [first, before] = [clause[i], clause[i - 1]];
      if (i > 0 && (isStop(first, STOP_WORDS) || !isStop(before, STOP_WORDS))) continue;
      for (
        let j = i;
        j < clause.length && clause[j].end - clause[i].start <= FALLBACK_TITLE_MAX;
        j++
      ) {
        if (!isStop(clause[j], stops)) {
          out.push({ words: trim(clause.slice(i, j + 1), stops), sentence });
        }
      }
    }
  }
  return out.filter((c) => c.words.length > 0 && lengthOf(c.words) <= FALLBACK_TITLE_MAX);
}

/** The keyword weight at each word start: keywords and the words of keyphrases. */
function keywordWeights(file: ReturnType<typeof processor.processSync>): Map<number, number> {
  const weights = new Map<number, number>();
  const add = (node: Positioned, score: number) => {
    const at = offsets(node).start;
    weights.set(at, (weights.get(at) ?? 0) + score);
  };
  const data = file.data as {
    keywords?: { score: number; matches: { node: Positioned }[] }[];
    keyphrases?: { score: number; stems: string[]; matches: { nodes: Positioned[] }[] }[];
  };
  for (const keyword of data.keywords ?? []) {
    for (const match of keyword.matches) add(match.node, keyword.score);
  }
  for (const phrase of data.keyphrases ?? []) {
    if (phrase.stems.length < 2) continue;
    for (const match of phrase.matches) {
      for (const node of match.nodes) if (node.type === "WordNode") add(node, phrase.score / 2);
    }
  }
  return weights;
}

/**
 * The candidate's weight: each distinct keyword counted once (its best occurrence), divided by
 * the square root of its length in words.
 */
function score(candidate: Candidate, weights: Map<number, number>): number {
  const seen = new Map<string, number>();
  for (const word of candidate.words) {
    const weight = weights.get(word.start);
    if (!weight) continue;
    const key = word.text.toLowerCase();
    seen.set(key, Math.max(seen.get(key) ?? 0, weight));
  }
  let total = 0;
  for (const weight of seen.values()) total += weight;
  const bonus = candidate.sentence === 0 ? FIRST_SENTENCE_BONUS : 1;
  return total * bonus / Math.sqrt(Math.max(candidate.words.length, MIN_SCORED_WORDS));
}

/** The first letter in upper case; trailing punctuation and spaces off. */
function finish(title: string): string {
  const bare = title.replace(/[\s\p{P}\p{S}]+$/u, "").replace(/^[\s"'“‘(\[]+/u, "");
  return bare.charAt(0).toUpperCase() + bare.slice(1);
}

/** The first `max` characters of `text`, cut at a word boundary when there is one. */
function cutAtWord(text: string, max = FALLBACK_TITLE_MAX): string {
  if (text.length <= max) return text;
  const cut = text.slice(0, max + 1);
  const lastSpace = cut.lastIndexOf(" ");
  return lastSpace > 0 ? cut.slice(0, lastSpace) : text.slice(0, max);
}

/**
 * The title of `text` made from the text itself (see the module's comment): never empty;
 * `Untitled idea` for a text without words.
 */
export function fallbackTitle(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  if (!flat) return "Untitled idea";
  // Links and addresses say little about the idea and make poor titles. Each line stays a
  // paragraph of its own (a page title, a list item), other runs of space become one.
  const prose = text.replace(LINKS, " ").split(/\s*\n\s*/).map((line) =>
    line.replace(/\s+/g, " ").trim()
  ).filter(Boolean).join("\n\n");
  if (!prose) return cutAtWord(flat);
  const source = cutAtWord(prose, SOURCE_MAX);
  const file = processor.processSync(source);
  const sentences = sentencesOf(processor.parse(source) as Positioned, source);
  if (sentences.length === 0) return cutAtWord(flat);
  if (sentences.length === 1 && source.length <= FALLBACK_TITLE_MAX) {
    return source.replace(/[\s\p{P}\p{S}]+$/u, "") || source;
  }
  const weights = keywordWeights(file);
  const stops = stopWordsFor(source);
  let best: Candidate | null = null;
  let bestScore = -1;
  sentences.forEach((clauses, i) => {
    for (const candidate of candidatesOf(clauses, i, stops)) {
      const s = score(candidate, weights);
      if (s > bestScore) [best, bestScore] = [candidate, s];
    }
  });
  const words = (best as Candidate | null)?.words;
  if (!words) {
    return cutAtWord(source.replace(/\s+/g, " ")).replace(/[\s\p{P}\p{S}]+$/u, "") ||
      cutAtWord(flat);
  }
  return finish(source.slice(words[0].start, words.at(-1)!.end)) || cutAtWord(flat);
}
