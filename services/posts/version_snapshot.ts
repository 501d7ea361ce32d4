import { newId } from "../../shared/crypto/ids.ts";
import { nowIso } from "../../shared/time.ts";
import type { PostRecord, PostVersion, VersionReason } from "./schemas.ts";

/** A snapshot of what `post` would publish with `text`, made by `by` for `reason`. */
export function versionOf(
  post: Pick<PostRecord, "post_id" | "media" | "first_comment" | "publish_as">,
  text: string,
  reason: VersionReason,
  by: { id: string; name: string },
  label: string | null = null,
): PostVersion {
  return {
    version_id: newId(),
    post_id: post.post_id,
    reason,
    created_at: nowIso(),
    created_by: by.id,
    created_by_name: by.name,
    label,
    text,
    media: post.media ?? [],
    first_comment: post.first_comment ?? null,
    publish_as: post.publish_as ?? "member",
  };
}
