/**
 * A comment's anchor: a pair of Yjs relative positions on the post's `Y.Text`, kept in the
 * comment's `mark_id` as `rp1:<start>.<end>` (each position encoded with
 * `Y.encodeRelativePosition`, then base64url). Relative positions name the characters
 * themselves, not their offsets, so the anchor follows its words while others edit.
 *
 * The start is tied to the first selected character and the end to the last one (assoc -1),
 * so text typed right before or right after the range stays outside it.
 */
import * as Y from "yjs";

const PREFIX = "rp1:";
/** The API's limit on `mark_id` (services/posts/schemas.ts MARK_ID_MAX). */
export const MARK_ID_MAX = 200;

export interface CommentAnchor {
  start: Y.RelativePosition;
  end: Y.RelativePosition;
}

function toBase64Url(bytes: Uint8Array): string {
  let binary = "";
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function fromBase64Url(text: string): Uint8Array {
  const b64 = text.replace(/-/g, "+").replace(/_/g, "/");
  const binary = atob(b64 + "=".repeat((4 - (b64.length % 4)) % 4));
  return Uint8Array.from(binary, (c) => c.charCodeAt(0));
}

/** The `mark_id` for the range `[from, to)` of `ytext`, or null when it would not fit. */
export function encodeAnchor(ytext: Y.Text, from: number, to: number): string | null {
  const start = Y.createRelativePositionFromTypeIndex(ytext, from, 0);
  const end = Y.createRelativePositionFromTypeIndex(ytext, to, -1);
  const markId = PREFIX + toBase64Url(Y.encodeRelativePosition(start)) + "." +
    toBase64Url(Y.encodeRelativePosition(end));
  return markId.length <= MARK_ID_MAX ? markId : null;
}

/** The anchor in a `mark_id`, or null when it is not one of ours (or is damaged). */
export function decodeAnchor(markId: string | undefined | null): CommentAnchor | null {
  if (!markId || !markId.startsWith(PREFIX)) return null;
  const parts = markId.slice(PREFIX.length).split(".");
  if (parts.length !== 2) return null;
  try {
    return {
      start: Y.decodeRelativePosition(fromBase64Url(parts[0])),
      end: Y.decodeRelativePosition(fromBase64Url(parts[1])),
    };
  } catch {
    return null;
  }
}

/**
 * Where the anchor is now in `ytext`: `{from, to}` with `from < to`, or null when its text
 * was deleted or is not in this copy of the document yet.
 */
export function resolveAnchor(
  ytext: Y.Text,
  anchor: CommentAnchor,
): { from: number; to: number } | null {
  const doc = ytext.doc;
  if (!doc) return null;
  let start: Y.AbsolutePosition | null;
  let end: Y.AbsolutePosition | null;
  try {
    start = Y.createAbsolutePositionFromRelativePosition(anchor.start, doc);
    end = Y.createAbsolutePositionFromRelativePosition(anchor.end, doc);
  } catch {
    return null;
  }
  if (!start || !end || start.type !== ytext || end.type !== ytext) return null;
  const from = Math.min(start.index, ytext.length);
  const to = Math.min(end.index, ytext.length);
  return from < to ? { from, to } : null;
}
