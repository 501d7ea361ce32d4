/**
 * The 10-colour cursor palette of docs/collab.md (also `--cursor-0..9` in tokens.css). A user's
 * colour is a hash of their user id, so they keep it across tabs; others' colours come from the
 * `color` they publish in awareness, mapped back to the palette index for the CSS classes.
 */
export const PALETTE = [
  "#30bced",
  "#6eeb83",
  "#ffbc42",
  "#ecd444",
  "#ee6352",
  "#9ac2c9",
  "#8acb88",
  "#1be7ff",
  "#c97bff",
  "#ff7eb6",
] as const;

/** FNV-1a over the string, into 0..9. */
export function colorIndexForUser(userId: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < userId.length; i++) {
    h ^= userId.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0) % PALETTE.length;
}

/** The palette index of a published colour; another client's off-palette colour hashes in. */
export function colorIndexForColor(color: unknown, clientId: number): number {
  const at = typeof color === "string"
    ? PALETTE.indexOf(color.toLowerCase() as (typeof PALETTE)[number])
    : -1;
  return at >= 0 ? at : clientId % PALETTE.length;
}
