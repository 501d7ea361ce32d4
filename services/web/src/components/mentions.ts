/**
 * Mentions in a comment or reply, as plain text: `@Name` where Name is a member's display name.
 * What is being typed after an `@` (the picker's query), the members it matches, the text with
 * a pick put in, and the ids of the members a text mentions (what the API is sent).
 */

export interface Mentionable {
  user_id: string;
  name: string;
  email: string;
}

/** The picker shows at most this many members. */
export const MAX_SUGGESTIONS = 8;
/** Past this many characters after the `@`, it is not a mention being typed. */
const MAX_QUERY = 40;

/** The name a mention writes: the member's name, else their email. */
export function displayName(m: Mentionable): string {
  return m.name.trim() || m.email;
}

/**
 * The mention being typed at `caret`: the `@` (at the start or after a space or an opening
 * bracket) and what follows it up to the caret, on one line. Null when there is none.
 */
export function mentionAt(text: string, caret: number): { at: number; query: string } | null {
  const before = text.slice(0, caret);
  const at = before.lastIndexOf("@");
  if (at < 0) return null;
  const prev = at === 0 ? "" : before[at - 1];
  if (prev && !/[\s([{"'“‘]/.test(prev)) return null;
  const query = before.slice(at + 1);
  if (query.length > MAX_QUERY || /[\n@]/.test(query) || /\s\s/.test(query)) return null;
  return { at, query };
}

/**
 * The members whose name or email fits `query` (case-insensitive): the name's start or one of
 * its words' starts first, then anywhere in name or email. A query with a space must be the
 * start of the name ("Bob E" fits "Bob Editor").
 */
export function suggest(members: Mentionable[], query: string): Mentionable[] {
  const q = query.toLowerCase();
  const scored: { m: Mentionable; score: number }[] = [];
  for (const m of members) {
    const name = displayName(m).toLowerCase();
    const email = m.email.toLowerCase();
    let score = -1;
    if (name.startsWith(q)) score = 0;
    else if (!q.includes(" ") && name.split(/\s+/).some((w) => w.startsWith(q))) score = 1;
    else if (!q.includes(" ") && (name.includes(q) || email.startsWith(q))) score = 2;
    if (score >= 0) scored.push({ m, score });
  }
  return scored.sort((a, b) =>
    a.score - b.score || displayName(a.m).localeCompare(displayName(b.m))
  ).slice(0, MAX_SUGGESTIONS).map((s) => s.m);
}

/** The text with `@query` at `at` replaced by `@Name ` and where the caret goes after it. */
export function insertMention(
  text: string,
  mention: { at: number; query: string },
  member: Mentionable,
): { text: string; caret: number } {
  const inserted = `@${displayName(member)} `;
  const end = mention.at + 1 + mention.query.length;
  const rest = text.slice(end).replace(/^ /, "");
  return { text: text.slice(0, mention.at) + inserted + rest, caret: mention.at + inserted.length };
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/**
 * The ids of the members `text` mentions (`@Name` followed by a non-word character or the end).
 * Longer names are matched first, so "@Ann Lee" mentions Ann Lee and not also Ann.
 */
export function mentionedIds(text: string, members: Mentionable[]): string[] {
  const ids: string[] = [];
  let rest = text;
  const longestFirst = [...members].sort((a, b) => displayName(b).length - displayName(a).length);
  for (const m of longestFirst) {
    const re = new RegExp(
      `(^|[^\\p{L}\\p{N}_])@${escapeRegExp(displayName(m))}(?![\\p{L}\\p{N}_])`,
      "gu",
    );
    let found = false;
    rest = rest.replace(re, (match, lead: string) => {
      found = true;
      return lead + " ".repeat(match.length - lead.length);
    });
    if (found && !ids.includes(m.user_id)) ids.push(m.user_id);
  }
  return ids;
}

/** `text` split at its mentions of `members`: plain strings, and `{ mention }` for `@Name`. */
export function splitMentions(
  text: string,
  members: Mentionable[],
): (string | { mention: string })[] {
  const names = [...new Set(members.map(displayName))].sort((a, b) => b.length - a.length);
  if (names.length === 0) return [text];
  const re = new RegExp(
    `(^|[^\\p{L}\\p{N}_])(@(?:${names.map(escapeRegExp).join("|")}))(?![\\p{L}\\p{N}_])`,
    "gu",
  );
  const out: (string | { mention: string })[] = [];
  let last = 0;
  for (const m of text.matchAll(re)) {
    const start = m.index! + m[1].length;
    if (start > last) out.push(text.slice(last, start));
    out.push({ mention: m[2] });
    last = start + m[2].length;
  }
  if (last < text.length) out.push(text.slice(last));
  return out;
}
