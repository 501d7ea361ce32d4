/**
 * The placeholders generation fills in a prompt's `user_template`. The prompts service refuses a
 * template naming any other (create and update), and genai refuses to generate from one, so a
 * `{bogus}` is never sent to the model as written. Both read this one list.
 */

/** Each filled placeholder and what it is filled with. */
export const TEMPLATE_PLACEHOLDERS = {
  idea_title: "the idea's title",
  idea_description: "the idea's description (its original text)",
  examples: "up to 5 of the workspace's example posts, most tags shared with the idea first",
  audience: "the audience (per call, else the prompt's default)",
  tone: "the tone (per call, else the prompt's)",
  language: "the language (per call, else the prompt's default)",
  length: "the target size of the length preset",
} as const;

export type TemplatePlaceholder = keyof typeof TEMPLATE_PLACEHOLDERS;

export const PLACEHOLDER_NAMES = Object.keys(TEMPLATE_PLACEHOLDERS) as TemplatePlaceholder[];

/**
 * A placeholder as written in a template: a name of letters, digits and underscores between
 * braces (`{idea_title}`). Braces around anything else (`{"a": 1}`, `{ }`) are plain text.
 */
export const PLACEHOLDER_PATTERN = /\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

/** `{idea_title}, {idea_description}, ... or {length}`: the filled ones, for messages. */
export const FILLED_PLACEHOLDERS_TEXT = PLACEHOLDER_NAMES.map((n) => `{${n}}`).join(", ");

/** The placeholders of `template` that generation does not fill, each once, in order. */
export function unfilledPlaceholders(template: string): string[] {
  const found = new Set<string>();
  for (const match of template.matchAll(PLACEHOLDER_PATTERN)) {
    if (!Object.hasOwn(TEMPLATE_PLACEHOLDERS, match[1])) found.add(match[1]);
  }
  return [...found];
}

/**
 * Why `template` cannot be used, naming its unfilled placeholders, or null when every
 * placeholder is filled. `subject` starts the sentence (`user_template`).
 */
export function placeholderProblem(template: string, subject = "user_template"): string | null {
  const unknown = unfilledPlaceholders(template).map((n) => `{${n}}`);
  if (unknown.length === 0) return null;
  const named = unknown.length === 1
    ? `${unknown[0]}, a placeholder`
    : `${unknown.slice(0, -1).join(", ")} and ${unknown.at(-1)}, placeholders`;
  return `${subject} uses ${named} that generation does not fill; the filled placeholders are ` +
    FILLED_PLACEHOLDERS_TEXT;
}
