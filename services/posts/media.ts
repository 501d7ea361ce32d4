import type { AssetStore } from "../../shared/assets/store.ts";
import type { UploadUrls } from "../../shared/assets/upload_urls.ts";
import { AppError, badRequest, conflict, notFound } from "../../shared/http/app_error.ts";
import { newId } from "../../shared/crypto/ids.ts";
import { errorMessage, type Logger } from "../../shared/log.ts";
import type { ServiceQueue } from "../../shared/queue/queue.ts";
import { nowIso } from "../../shared/time.ts";
import type { PostsJob } from "./jobs.ts";
import type { PostOperations } from "./operations.ts";
import type { ReviewOperations } from "./review.ts";
import {
  DOCUMENT_MAX_BYTES,
  DOCUMENT_TYPE,
  IMAGE_MAX_BYTES,
  IMAGES_MAX,
  type Media,
  MEDIA_NOT_FOUND,
  type MediaType,
  type Post,
  POST_NOT_FOUND,
  type PostRecord,
} from "./schemas.ts";
import type { PostsStore, StoredPost } from "./store.ts";

/** Lifetime of a media download URL on Get (1 hour, as attachments'). */
const DOWNLOAD_URL_TTL = 3600;

const EXTENSION: Record<MediaType, string> = {
  "image/jpeg": "jpg",
  "image/png": "png",
  "image/gif": "gif",
  "application/pdf": "pdf",
};

/** Where a post's media bytes live in the asset store. */
export function postMediaPrefix(workspaceId: string, postId: string): string {
  return `workspaces/${workspaceId}/posts/${postId}/media/`;
}

/** The asset key of one media's bytes. */
export function mediaKey(workspaceId: string, postId: string, media: Media): string {
  return `${postMediaPrefix(workspaceId, postId)}${media.media_id}.${
    EXTENSION[media.content_type]
  }`;
}

export interface MediaRequest {
  filename: string;
  contentType: MediaType;
  size: number;
}

export interface MediaDeps {
  store: PostsStore;
  posts: PostOperations;
  review: ReviewOperations;
  queue: ServiceQueue<PostsJob>;
  /** null when ASSETS_URL is empty: the media routes answer 500 */
  assets: AssetStore | null;
  uploads: UploadUrls | null;
  /** seconds an upload URL lives, and how long after that an absent upload is dropped */
  uploadUrlTtl: number;
  cleanupMargin: number;
  logger: Logger;
}

/**
 * A post's media: images (1 to 20) or one PDF document, in publishing order, with alt texts and
 * a document title. The entries live on the post (so a change to them is a change of the post,
 * which voids an approval like a text change), the bytes in the shared asset store. An entry
 * is recorded when its single-use upload URL is handed out; a delayed job drops it if the bytes
 * never arrive.
 */
export class MediaOperations {
  constructor(private readonly deps: MediaDeps) {}

  /**
   * Records the entry and answers the URL to PUT its bytes to. The rules that the request alone
   * breaks (type, size) are 400 before the membership is checked (by the route) and the post
   * read; the ones that depend on the post's media (how many, a document beside images) after.
   */
  async requestUpload(
    caller: { user_id: string },
    workspaceId: string,
    postId: string,
    input: MediaRequest,
  ): Promise<{ media_id: string; uploadUrl: string; expiresIn: number }> {
    const kind = input.contentType === DOCUMENT_TYPE ? "document" : "image";
    const max = kind === "document" ? DOCUMENT_MAX_BYTES : IMAGE_MAX_BYTES;
    if (input.size > max) {
      throw badRequest(
        kind === "document"
          ? "A document can be at most 100 MiB"
          : "An image can be at most 10 MiB",
      );
    }
    await this.deps.posts.require(workspaceId, postId);
    const uploads = this.#uploads();
    const { store, queue, uploadUrlTtl, cleanupMargin } = this.deps;
    const media: Media = {
      media_id: newId(),
      kind,
      filename: input.filename.split(/[\\/]/).pop()!.trim() || "file",
      content_type: input.contentType,
      size: input.size,
      alt_text: "",
      title: kind === "document" ? "" : null,
      uploaded_at: nowIso(),
    };
    const key = mediaKey(workspaceId, postId, media);
    const uploadId = uploads.newUploadId();
    const uploadUrl = await uploads.sign(key, input.contentType, uploadUrlTtl, uploadId);
    const result = await store.modifyPost(workspaceId, postId, (current, op) => {
      const existing = current.media ?? [];
      if (kind === "document" && existing.length > 0) {
        throw badRequest("A post can have one document, never beside images or another document");
      }
      if (kind === "image" && existing.some((m) => m.kind === "document")) {
        throw badRequest("A post with a document cannot have images");
      }
      if (kind === "image" && existing.length >= IMAGES_MAX) {
        throw badRequest(`A post can have at most ${IMAGES_MAX} images`);
      }
      store.mediaUploads.addGrant(op, uploadId, {
        workspace_id: workspaceId,
        post_id: postId,
        media_id: media.media_id,
        key,
        uploaded_by: caller.user_id,
        max_bytes: input.size,
        expires_at: Date.now() + uploadUrlTtl * 1000,
        claimed: false,
      });
      queue.enqueue(op, {
        type: "media_cleanup",
        workspace_id: workspaceId,
        post_id: postId,
        media_id: media.media_id,
      }, { delay: (uploadUrlTtl + cleanupMargin) * 1000 });
      return { ...current, media: [...existing, media], updated_at: media.uploaded_at };
    });
    if (!result) throw notFound(POST_NOT_FOUND);
    await this.deps.review.extrasChanged(workspaceId, postId, caller.user_id);
    return { media_id: media.media_id, uploadUrl, expiresIn: uploadUrlTtl };
  }

  /** Sets a media's alt text and (documents) title. */
  async update(
    workspaceId: string,
    postId: string,
    mediaId: string,
    patch: { alt_text?: string; title?: string },
    actorId?: string,
  ): Promise<Post> {
    const post = await this.deps.posts.require(workspaceId, postId);
    const found = post.media.find((m) => m.media_id === mediaId);
    if (!found) throw notFound(MEDIA_NOT_FOUND);
    if (patch.title !== undefined && found.kind !== "document") {
      throw badRequest("title is for a document; an image has alt_text");
    }
    return await this.#change(workspaceId, postId, (media) => {
      const at = media.findIndex((m) => m.media_id === mediaId);
      if (at < 0) throw notFound(MEDIA_NOT_FOUND);
      const next = { ...media[at] };
      if (patch.alt_text !== undefined) next.alt_text = patch.alt_text;
      if (patch.title !== undefined) next.title = patch.title;
      return media.with(at, next);
    }, actorId);
  }

  /** Puts the post's media in the order of `mediaIds` (each of them once, no other). */
  async reorder(
    workspaceId: string,
    postId: string,
    mediaIds: string[],
    actorId?: string,
  ): Promise<Post> {
    const refusal = "media_ids must name each of the post's media exactly once";
    return await this.#change(workspaceId, postId, (media) => {
      const byId = new Map(media.map((m) => [m.media_id, m]));
      if (mediaIds.length !== media.length || new Set(mediaIds).size !== mediaIds.length) {
        throw badRequest(refusal);
      }
      return mediaIds.map((id) => {
        const m = byId.get(id);
        if (!m) throw badRequest(refusal);
        return m;
      });
    }, actorId);
  }

  /**
   * Removes a media entry, and its bytes unless a version of the post still holds it (restoring
   * that version brings the media back).
   */
  async delete(
    workspaceId: string,
    postId: string,
    mediaId: string,
    actorId?: string,
  ): Promise<void> {
    let removed: Media | undefined;
    await this.#change(workspaceId, postId, (media) => {
      removed = media.find((m) => m.media_id === mediaId);
      if (!removed) throw notFound(MEDIA_NOT_FOUND);
      return media.filter((m) => m.media_id !== mediaId);
    }, actorId);
    if (removed && this.deps.assets && !await this.#heldByVersion(postId, removed.media_id)) {
      await this.deps.assets.delete(mediaKey(workspaceId, postId, removed)).catch((err) =>
        this.deps.logger.warn("could not remove a deleted media's bytes", {
          post_id: postId,
          error: errorMessage(err),
        })
      );
    }
  }

  /**
   * Lets the gateway take the bytes of upload URL `uploadId` for `key`, once, while its media
   * is on the post and its uploader a member; answers the most bytes the upload may have.
   */
  async claimUpload(key: string, uploadId: string): Promise<{ max_bytes: number }> {
    const { store, posts } = this.deps;
    const grant = await store.mediaUploads.getGrant(uploadId);
    if (grant && !grant.claimed && grant.key === key) {
      await this.deps.review.requireMember(grant.workspace_id, grant.uploaded_by);
      await posts.require(grant.workspace_id, grant.post_id);
    }
    const outcome = await store.mediaUploads.claim(uploadId, key);
    switch (outcome.kind) {
      case "claimed":
        return { max_bytes: outcome.grant.max_bytes };
      case "claimed_already":
        throw conflict("This upload URL has been used already: request a new one");
      case "entry_gone":
        throw notFound(MEDIA_NOT_FOUND);
      case "unknown":
        throw notFound("No upload is waiting for this URL: request a new one");
    }
  }

  /** The post with a signed download URL on each media (Get). */
  async withDownloadUrls(post: Post): Promise<Post> {
    const { assets } = this.deps;
    if (!assets || post.media.length === 0) return post;
    return {
      ...post,
      media: await Promise.all(post.media.map(async (m) => ({
        ...m,
        downloadUrl: await assets.presignGet(
          mediaKey(post.workspace_id, post.post_id, m),
          DOWNLOAD_URL_TTL,
        ),
      }))),
    };
  }

  /** The ids of `post`'s media whose bytes have arrived (null without an asset store). */
  async uploadedIds(post: PostRecord): Promise<Set<string> | null> {
    const { assets } = this.deps;
    if (!assets) return null;
    const there = await Promise.all(
      post.media.map((m) => assets.exists(mediaKey(post.workspace_id, post.post_id, m))),
    );
    return new Set(post.media.filter((_, i) => there[i]).map((m) => m.media_id));
  }

  /** The stored bytes of `media`, or null when they never arrived. */
  async bytes(post: PostRecord, media: Media): Promise<ReadableStream<Uint8Array> | null> {
    const found = await this.#assets().get(mediaKey(post.workspace_id, post.post_id, media));
    return found?.body ?? null;
  }

  /**
   * The `media_cleanup` job, once an upload URL has expired: drops the entry if its bytes never
   * arrived, and removes the post's stored bytes that no entry names.
   */
  async cleanUp(job: { workspace_id: string; post_id: string; media_id: string }): Promise<void> {
    const { store, assets } = this.deps;
    if (!assets) return;
    const post = await store.getPost(job.workspace_id, job.post_id);
    const media = post?.media.find((m) => m.media_id === job.media_id);
    if (post && media && !await assets.exists(mediaKey(post.workspace_id, post.post_id, media))) {
      await this.#change(job.workspace_id, job.post_id, (list) => {
        if (!list.some((m) => m.media_id === job.media_id)) return null;
        return list.filter((m) => m.media_id !== job.media_id);
      }).catch(() => {});
    }
    await this.removeOrphans(job.workspace_id, job.post_id);
  }

  /**
   * Deletes the post's stored media bytes that neither an entry nor a version names (all once
   * the post is gone).
   */
  async removeOrphans(workspaceId: string, postId: string): Promise<string[]> {
    const { store, assets } = this.deps;
    if (!assets) return [];
    const objects = await assets.list(postMediaPrefix(workspaceId, postId));
    if (objects.length === 0) return [];
    const post = await store.getPost(workspaceId, postId);
    const held = post ? (await store.versions.list(postId)).flatMap((v) => v.media) : [];
    const named = new Set(
      [...(post?.media ?? []), ...held].map((m) => mediaKey(workspaceId, postId, m)),
    );
    const orphans = objects.map((o) => o.key).filter((key) => !named.has(key));
    for (const key of orphans) await assets.delete(key);
    return orphans;
  }

  /** Whether a version of the post holds media `mediaId`. */
  async #heldByVersion(postId: string, mediaId: string): Promise<boolean> {
    const versions = await this.deps.store.versions.list(postId);
    return versions.some((v) => v.media.some((m) => m.media_id === mediaId));
  }

  /**
   * Replaces the post's media with what `change` makes of them (null: nothing to write), in
   * one commit on the post; an approval that covered other media is withdrawn after (its
   * reviewers told, but `actorId`, who made the change).
   */
  async #change(
    workspaceId: string,
    postId: string,
    change: (media: Media[]) => Media[] | null,
    actorId?: string,
  ): Promise<Post> {
    const { store, posts, review } = this.deps;
    await posts.require(workspaceId, postId);
    const result = await store.modifyPost(workspaceId, postId, (current) => {
      const next = change(current.media ?? []);
      if (!next) return null;
      return { ...current, media: next, updated_at: nowIso() } satisfies StoredPost;
    });
    if (!result) throw notFound(POST_NOT_FOUND);
    return await review.extrasChanged(workspaceId, postId, actorId) ??
      await posts.read(result.after);
  }

  #assets(): AssetStore {
    if (!this.deps.assets) throw new AppError(500, "Asset storage not configured");
    return this.deps.assets;
  }

  #uploads(): UploadUrls {
    this.#assets();
    return this.deps.uploads!;
  }
}
