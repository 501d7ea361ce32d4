/**
 * Prompt assembly for generate and iterate: pure functions from what the
 * route gathered (idea, saved prompt, overrides, per-call options, example posts) to the Chat
 * Completions messages. No I/O here, so every layer combination is unit-tested exactly.
 */
import type { ChatMessage } from "../../shared/ai/backend.ts";
import { PLACEHOLDER_PATTERN, type TemplatePlaceholder } from "../../shared/ai/placeholders.ts";

/** The built-in persona of generate: the lowest prompt layer. */
export const DEFAULT_PERSONA =
  "You are an experienced ghostwriter of posts for a professional social network. You turn " +
  "an idea into one clear, specific and engaging post in the author's voice: a strong first " +
  "line, short paragraphs, concrete details, at most a few relevant hashtags. Answer with the " +
  "post text only, ready to publish, without a title or any comment about it.";

/** The built-in persona of iterate when no saved prompt resolves. */
export const EDITOR_PERSONA =
  "You are a careful editor of posts for a professional social network. You rewrite the post " +
  "you are given as the instruction says, keeping its facts, meaning and voice unless told " +
  "otherwise. Answer with the rewritten post only, without any comment about it.";

/** The user message of generate when the caller has no saved prompt. */
export const DEFAULT_USER_TEMPLATE =
  "Write a post about this idea.\n\nIdea: {idea_title}\n\n{idea_description}";

/** At most this many example posts go into a generation prompt (spec, limits). */
export const MAX_EXAMPLES = 5;
/** Each example's text is cut to this many characters (a post's own cap). */
export const EXAMPLE_CONTENT_MAX = 3_000;

/** The six length presets and the target size each asks the model for. */
export const LENGTH_PRESETS = {
  very_short: "at most 300 characters (one or two sentences)",
  short: "300 to 600 characters",
  medium: "600 to 1,200 characters",
  long: "1,200 to 1,800 characters",
  very_long: "1,800 to 2,400 characters",
  extra_long: "2,400 to 3,000 characters (never more than 3,000)",
} as const;
export type LengthPreset = keyof typeof LENGTH_PRESETS;

/** The preset named `value`, or undefined for anything else (an unknown length is ignored). */
export function lengthPreset(value: string | null | undefined): LengthPreset | undefined {
  return value && Object.hasOwn(LENGTH_PRESETS, value) ? value as LengthPreset : undefined;
}

/** What a placeholder says when no layer gave it a value. */
export const PLACEHOLDER_FALLBACKS = {
  audience: "a general professional audience",
  tone: "the tone that suits the idea",
  language: "the language the idea is written in",
  length: "the length that suits the idea",
} as const;

export interface IdeaInput {
  title: string;
  description: string;
  tags: string[];
}

export interface SavedPromptInput {
  system_instruction: string;
  user_template: string;
  tone: string | null;
  default_audience: string | null;
  default_language: string | null;
}

export interface ExampleInput {
  title: string;
  content: string;
  tags: string[];
}

/** The per-call options, already truncated to the spec's lengths. */
export interface CallOptions {
  audience?: string;
  tone?: string;
  language?: string;
  length?: string;
}

export interface GenerateInput {
  idea: IdeaInput;
  /** The resolved saved prompt (`prompt_id`, else the caller's default), or null. */
  prompt: SavedPromptInput | null;
  overrides?: { system_instruction?: string | null } | null;
  options?: CallOptions;
  /** The examples to use, already ranked and limited (see rankExamples). */
  examples: ExampleInput[];
}

const normalTag = (tag: string) => tag.trim().toLowerCase();

/**
 * Up to `limit` examples, most shared tags with the idea first (tags compared trimmed and
 * case-insensitively); ties keep the given order (newest first from the posts service).
 */
export function rankExamples<T extends { tags: string[] }>(
  examples: T[],
  ideaTags: string[],
  limit = MAX_EXAMPLES,
): T[] {
  const wanted = new Set(ideaTags.map(normalTag).filter(Boolean));
  const shared = (tags: string[]) => new Set(tags.map(normalTag).filter((t) => wanted.has(t))).size;
  return examples
    .map((example, index) => ({ example, index, score: shared(example.tags) }))
    .sort((a, b) => b.score - a.score || a.index - b.index)
    .slice(0, limit)
    .map((ranked) => ranked.example);
}

/** The examples as one block of text: `Example 1: <title>` then its text, blank-line separated. */
export function formatExamples(examples: ExampleInput[]): string {
  return examples.map((example, i) => {
    const title = example.title.trim();
    const head = title ? `Example ${i + 1}: ${title}` : `Example ${i + 1}`;
    return `${head}\n${example.content.slice(0, EXAMPLE_CONTENT_MAX).trim()}`;
  }).join("\n\n");
}

/** The heading examples get when they are appended after a template without `{examples}`. */
export const EXAMPLES_HEADING =
  "Example posts in this workspace's voice (match their style, not their topics):";

/**
 * Fills `{name}` placeholders in one pass: known names get their value, unknown ones stay as
 * written (generation refuses a template with any beforehand), and text inside a value is never
 * expanded again.
 */
export function fillTemplate(template: string, values: Record<string, string>): string {
  return template.replace(
    PLACEHOLDER_PATTERN,
    (match, name: string) => Object.hasOwn(values, name) ? values[name] : match,
  );
}

const present = (value: string | null | undefined): string | undefined => {
  const trimmed = value?.trim();
  return trimmed ? trimmed : undefined;
};

/** The settings that win after layering: per-call options over the saved prompt's defaults. */
export interface EffectiveSettings {
  audience?: string;
  tone?: string;
  language?: string;
  length?: LengthPreset;
}

export function effectiveSettings(
  prompt: SavedPromptInput | null,
  options: CallOptions = {},
): EffectiveSettings {
  return {
    audience: present(options.audience) ?? present(prompt?.default_audience),
    tone: present(options.tone) ?? present(prompt?.tone),
    language: present(options.language) ?? present(prompt?.default_language),
    length: lengthPreset(present(options.length)),
  };
}

/** The brief of the per-call settings: one line per setting that has a value. */
export function formatBrief(settings: EffectiveSettings): string {
  const lines = [
    settings.audience && `- Audience: ${settings.audience}`,
    settings.tone && `- Tone: ${settings.tone}`,
    settings.language && `- Language: write the post in ${settings.language}`,
    settings.length && `- Length: ${LENGTH_PRESETS[settings.length]}`,
  ].filter(Boolean);
  return lines.length ? `For this post:\n${lines.join("\n")}` : "";
}

/**
 * The messages of a generation: the system message is the persona alone
 * (the override's, else the saved prompt's, else the built-in one); the last user message is
 * the saved template (or the built-in one) with its placeholders filled, and nothing else.
 * Between them, when there is any, one user message carries the brief of audience, tone,
 * language and length and the examples a template without `{examples}` did not place.
 */
export function buildGenerateMessages(input: GenerateInput): ChatMessage[] {
  const { idea, prompt } = input;
  const persona = present(input.overrides?.system_instruction) ??
    present(prompt?.system_instruction) ?? DEFAULT_PERSONA;
  const settings = effectiveSettings(prompt, input.options);
  const template = present(prompt?.user_template) ?? DEFAULT_USER_TEMPLATE;
  const examples = formatExamples(input.examples);
  // Typed by the shared list: a placeholder added there must be filled here.
  const values: Record<TemplatePlaceholder, string> = {
    idea_title: idea.title,
    idea_description: idea.description,
    examples,
    audience: settings.audience ?? PLACEHOLDER_FALLBACKS.audience,
    tone: settings.tone ?? PLACEHOLDER_FALLBACKS.tone,
    language: settings.language ?? PLACEHOLDER_FALLBACKS.language,
    length: settings.length ? LENGTH_PRESETS[settings.length] : PLACEHOLDER_FALLBACKS.length,
  };
  const user = fillTemplate(template, values).trim();
  const context = [
    formatBrief(settings),
    examples && !template.includes("{examples}") ? `${EXAMPLES_HEADING}\n\n${examples}` : "",
  ].filter(Boolean).join("\n\n");
  return [
    { role: "system", content: persona },
    ...(context ? [{ role: "user" as const, content: context }] : []),
    { role: "user", content: user },
  ];
}

/**
 * The messages of an iteration: the saved prompt's `system_instruction` as persona when one
 * resolved, else the built-in editor; then the instruction and the current text.
 */
export function buildIterateMessages(input: {
  instruction: string;
  currentContent: string;
  persona: string | null;
}): ChatMessage[] {
  const persona = present(input.persona) ?? EDITOR_PERSONA;
  const user = "Rewrite the post below as this instruction says, and answer with the " +
    `rewritten post only.\n\nInstruction:\n${input.instruction}\n\nPost:\n${input.currentContent}`;
  return [{ role: "system", content: persona }, { role: "user", content: user }];
}
