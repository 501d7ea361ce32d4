/**
 * The placeholders generation fills in a prompt's user template, as the server fills them
 * (`shared/ai/placeholders.ts`; `tests/web_placeholders_test.ts` keeps the two lists the same).
 * The server refuses a template naming any other; the editor says so as it is typed.
 */
export const FILLED_PLACEHOLDERS = [
  ["idea_title", "the idea's title"],
  ["idea_description", "the idea's text"],
  ["examples", "up to 5 of the workspace's example posts"],
  ["audience", "the audience"],
  ["tone", "the tone"],
  ["language", "the language"],
  ["length", "the target length"],
] as const;

const FILLED: ReadonlySet<string> = new Set(FILLED_PLACEHOLDERS.map(([name]) => name));

/** `{name}` in a template: letters, digits and underscores between braces. */
const PLACEHOLDER = /\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

/** The placeholders of `template` that generation does not fill, each once, in order. */
export function unfilledPlaceholders(template: string): string[] {
  const found = new Set<string>();
  for (const match of template.matchAll(PLACEHOLDER)) {
    if (!FILLED.has(match[1])) found.add(match[1]);
  }
  return [...found];
}
