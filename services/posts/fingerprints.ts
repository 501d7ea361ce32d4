import { createHash } from "node:crypto";
import type { Media } from "./schemas.ts";

/**
 * SHA-256 (hex) of what is published beside the text: the media (ids, order, alt texts,
 * titles) and the first comment. An approval is bound to it too. Synchronous, so it is taken
 * inside a commit on the post as read.
 */
export function extrasFingerprint(
  post: { media?: Media[]; first_comment?: string | null },
): string {
  const media = (post.media ?? []).map((m) => [m.media_id, m.alt_text, m.title ?? null]);
  return createHash("sha256").update(JSON.stringify([media, post.first_comment ?? null]))
    .digest("hex");
}

/** The extras fingerprint of a post with no media and no first comment (older approvals). */
export const NO_EXTRAS = extrasFingerprint({});

/** SHA-256 (hex) of a text, synchronously (the same as `textFingerprint`). */
export function textFingerprintSync(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

/** What an approval in `approvals` is bound to: the text's and the extras' fingerprints. */
export function approvalKey(
  textFp: string,
  post: { media?: Media[]; first_comment?: string | null },
): string {
  return `${textFp}:${extrasFingerprint(post)}`;
}
