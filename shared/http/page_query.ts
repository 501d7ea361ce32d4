/**
 * Paged lists: the `limit` and `cursor` query parameters every paged list route takes, the
 * `next_cursor` it answers, and the cursor's encoding.
 *
 * A cursor is where the previous page ended (the sort key of its last item) and the list it
 * belongs to, as base64url JSON followed by a 32-bit checksum seeded with the list's name. It
 * is opaque to clients: one that was cut, edited, or made by another list fails the checksum or
 * the shape and is a 400, never a 500. It grants nothing: a page is still read only inside the
 * caller's own workspace (or post), whatever position a cursor names.
 */
import { z } from "@hono/zod-openapi";
import { AppError } from "./app_error.ts";

/** The most items one page holds. */
export const PAGE_LIMIT_MAX = 200;

const LIMIT_MESSAGE = `limit must be an integer from 1 to ${PAGE_LIMIT_MAX}`;
export const CURSOR_MESSAGE = "cursor is malformed: pass the next_cursor of the previous page";

/** A position part (an id) is at most this long, so a cursor never makes an oversized key. */
const POSITION_PART_MAX = 200;
const CURSOR_MAX = 1_000;

/** FNV-1a over `bytes`, started from the hash of `seed`: a cheap, deterministic checksum. */
function fnv1a(seed: string, bytes: Uint8Array): number {
  let h = 0x811c9dc5;
  const step = (b: number) => {
    h ^= b;
    h = Math.imul(h, 0x01000193) >>> 0;
  };
  for (const b of new TextEncoder().encode(seed)) step(b);
  step(0);
  for (const b of bytes) step(b);
  return h >>> 0;
}

/** The cursor of `list` that starts the next page after `position` (the last item's key). */
export function encodeCursor(list: string, position: readonly string[]): string {
  const payload = new TextEncoder().encode(JSON.stringify(position));
  const out = new Uint8Array(payload.length + 4);
  out.set(payload);
  new DataView(out.buffer).setUint32(payload.length, fnv1a(list, payload));
  return out.toBase64({ alphabet: "base64url", omitPadding: true });
}

/** The position a cursor of `list` names, or null when it is not one (malformed, tampered). */
export function decodeCursor(list: string, cursor: string): string[] | null {
  if (cursor.length === 0 || cursor.length > CURSOR_MAX) return null;
  let bytes: Uint8Array;
  try {
    bytes = Uint8Array.fromBase64(cursor, { alphabet: "base64url" });
  } catch {
    return null;
  }
  if (bytes.length < 5) return null;
  const payload = bytes.subarray(0, bytes.length - 4);
  const sum = new DataView(bytes.buffer, bytes.byteOffset + payload.length, 4).getUint32(0);
  if (sum !== fnv1a(list, payload)) return null;
  let position: unknown;
  try {
    position = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(payload));
  } catch {
    return null;
  }
  const ok = Array.isArray(position) && position.length >= 1 && position.length <= 4 &&
    position.every((p) => typeof p === "string" && p.length <= POSITION_PART_MAX);
  return ok ? position as string[] : null;
}

/** What a paged route asks its store for: at most `limit` items after `after` (or the start). */
export interface PageRequest {
  limit: number;
  /** the position the previous page ended on; absent for the first page */
  after?: string[];
}

/**
 * The `limit` and `cursor` query parameters of the paged list `list`, for a route's query
 * schema. Both are checked here (400 naming the parameter), before any other check.
 */
export function pageQueryFields(list: string) {
  return {
    limit: z.coerce.number({ error: LIMIT_MESSAGE }).int(LIMIT_MESSAGE).min(1, LIMIT_MESSAGE)
      .max(PAGE_LIMIT_MAX, LIMIT_MESSAGE).optional().openapi({
        description: `1 to ${PAGE_LIMIT_MAX}: answer one page of at most this many items, ` +
          "in the list's order, with `next_cursor`. Without it the whole list comes back",
        example: 50,
      }),
    cursor: z.string().max(CURSOR_MAX, CURSOR_MESSAGE).regex(/^[A-Za-z0-9_-]+$/, CURSOR_MESSAGE)
      .refine((v) => decodeCursor(list, v) !== null, CURSOR_MESSAGE).optional().openapi({
        description: "the `next_cursor` of the previous page (with `limit`)",
      }),
  };
}

/**
 * The page a validated query asks for, or null for the whole list (no `limit`). A cursor
 * without a limit is refused (400) rather than silently answering the whole list. Call it
 * before any other check, as the query's own validation runs.
 */
export function pageRequest(
  list: string,
  query: { limit?: number; cursor?: string },
): PageRequest | null {
  if (query.limit === undefined) {
    if (query.cursor !== undefined) throw new AppError(400, "cursor needs limit");
    return null;
  }
  const after = query.cursor === undefined ? undefined : decodeCursor(list, query.cursor)!;
  return { limit: query.limit, ...(after ? { after } : {}) };
}

/** The `next_cursor` field of a paged answer's schema. */
export const nextCursorField = z.string().nullable().optional().openapi({
  description: "with `limit`: the cursor of the next page, null on the last page; " +
    "absent when the whole list was asked for",
});
