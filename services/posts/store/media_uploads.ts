import { retryCommit } from "../../../shared/kv/kv.ts";
import { mediaUploadKey, postKey } from "../keys.ts";
import type { Attempt, StoredPost } from "../store.ts";

/** The grant of one single-use upload URL of a post's media (`["media_uploads", uploadId]`). */
export interface MediaUploadGrant {
  workspace_id: string;
  post_id: string;
  media_id: string;
  /** the asset key the URL writes */
  key: string;
  uploaded_by: string;
  /** the size the request declared: the upload may not be larger */
  max_bytes: number;
  expires_at: number;
  claimed: boolean;
}

export type MediaClaimOutcome =
  | { kind: "claimed"; grant: MediaUploadGrant }
  | { kind: "claimed_already" }
  | { kind: "entry_gone" }
  | { kind: "unknown" };

/** The grants of post media upload URLs: each accepts one body, while its media exists. */
export class MediaUploadStore {
  constructor(private readonly kv: Deno.Kv) {}

  /** Adds the grant of a new upload URL to `op` (the commit that records its media). */
  addGrant(op: Deno.AtomicOperation, uploadId: string, grant: MediaUploadGrant): void {
    op.set(mediaUploadKey(uploadId), grant, {
      expireIn: Math.max(1, grant.expires_at - Date.now()),
    });
  }

  async getGrant(uploadId: string): Promise<MediaUploadGrant | null> {
    return (await this.kv.get<MediaUploadGrant>(mediaUploadKey(uploadId))).value;
  }

  /**
   * Marks the grant used, once, while its media is still on the post; the commit is checked
   * against both, so a claim and a delete of the media cannot both win.
   */
  async claim(uploadId: string, key: string): Promise<MediaClaimOutcome> {
    const grantKey = mediaUploadKey(uploadId);
    return await retryCommit(async (): Attempt<MediaClaimOutcome> => {
      const grant = await this.kv.get<MediaUploadGrant>(grantKey);
      if (!grant.value || grant.value.key !== key || grant.value.expires_at < Date.now()) {
        return { ok: true, value: { kind: "unknown" } };
      }
      if (grant.value.claimed) return { ok: true, value: { kind: "claimed_already" } };
      const { workspace_id, post_id, media_id } = grant.value;
      const post = await this.kv.get<StoredPost>(postKey(workspace_id, post_id));
      if (!post.value?.media?.some((m) => m.media_id === media_id)) {
        return { ok: true, value: { kind: "entry_gone" } };
      }
      const claimed = { ...grant.value, claimed: true };
      const res = await this.kv.atomic().check(grant).check(post)
        .set(grantKey, claimed, { expireIn: Math.max(1, claimed.expires_at - Date.now()) })
        .commit();
      return res.ok ? { ok: true, value: { kind: "claimed", grant: claimed } } : { ok: false };
    });
  }
}
