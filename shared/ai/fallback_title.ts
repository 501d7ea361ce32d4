/** The longest fallback title. */
export const FALLBACK_TITLE_MAX = 80;

/**
 * The title an idea gets when the AI backend cannot make one: the text's
 * first sentence, cut at a word boundary to at most 80 characters. Whitespace runs collapse to
 * one space; a text with no usable words gives `Untitled idea`.
 */
export function fallbackTitle(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  if (!flat) return "Untitled idea";
  const end = /[.!?](\s|$)/.exec(flat);
  const sentence = (end ? flat.slice(0, end.index + 1) : flat).trim();
  if (sentence.length <= FALLBACK_TITLE_MAX) return sentence;
  const cut = sentence.slice(0, FALLBACK_TITLE_MAX + 1);
  const lastSpace = cut.lastIndexOf(" ");
  const title = lastSpace > 0 ? cut.slice(0, lastSpace) : sentence.slice(0, FALLBACK_TITLE_MAX);
  return title.replace(/[\s,;:–—-]+$/, "") || title;
}
