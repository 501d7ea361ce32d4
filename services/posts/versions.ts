import type { AssetStore } from "../../shared/assets/store.ts";
import { forbidden, notFound } from "../../shared/http/app_error.ts";
import type { Caller } from "../../shared/http/identity.ts";
import { nowIso } from "../../shared/time.ts";
import type { WorkspacesClient } from "../workspaces/client.ts";
import { mediaKey } from "./media.ts";
import { versionOf } from "./version_snapshot.ts";
import type { PostOperations } from "./operations.ts";
import { canPublish, PUBLISH_MESSAGES } from "./publish_rules.ts";
import type { ReviewOperations } from "./review.ts";
import { type Media, POST_NOT_FOUND, type PostVersion, VERSION_NOT_FOUND } from "./schemas.ts";
import type { PostsStore } from "./store.ts";

/** A version as listed: who made it, when and why (the reason, and a saved version's label). */
function summary(v: PostVersion) {
  return {
    version_id: v.version_id,
    reason: v.reason,
    created_at: v.created_at,
    created_by: v.created_by,
    created_by_name: v.created_by_name,
    label: v.label,
  };
}

/**
 * A post's versions: listed, read, saved on demand, and restored (owners and editors, since a
 * restore changes what would be published): the live text every open editor sees at once, the
 * media, first comment and author the version holds; like any change it voids an approval.
 */
export class VersionOperations {
  constructor(
    private readonly deps: {
      store: PostsStore;
      posts: PostOperations;
      review: ReviewOperations;
      workspaces: WorkspacesClient;
      assets: AssetStore | null;
    },
  ) {}

  async list(workspaceId: string, postId: string) {
    await this.deps.posts.require(workspaceId, postId);
    const items = (await this.deps.store.versions.list(postId)).map(summary);
    return { items, count: items.length };
  }

  async get(workspaceId: string, postId: string, versionId: string): Promise<PostVersion> {
    await this.deps.posts.require(workspaceId, postId);
    const version = await this.deps.store.versions.get(postId, versionId);
    if (!version) throw notFound(VERSION_NOT_FOUND);
    return version;
  }

  /** `POST /api/posts/{id}/versions`: a `saved` version of what the post holds now. */
  async save(caller: Caller, workspaceId: string, postId: string, label: string | null) {
    const { store, posts } = this.deps;
    const record = await posts.require(workspaceId, postId);
    const text = (await posts.read(record)).content;
    let saved: PostVersion | null = null;
    const result = await store.modifyPost(workspaceId, postId, (current, op) => {
      saved = versionOf(current, text, "saved", by(caller), label?.trim() || null);
      store.versions.add(op, saved);
      return { ...current };
    });
    if (!result || !saved) throw notFound(POST_NOT_FOUND);
    return summary(saved);
  }

  /** `POST .../versions/{version_id}/restore`: the post becomes the version (owner or editor). */
  async restore(caller: Caller, workspaceId: string, postId: string, versionId: string) {
    const { store, posts, review, workspaces, assets } = this.deps;
    const membership = await workspaces.requireMember(workspaceId, caller.user_id);
    if (!canPublish(membership.role)) throw forbidden(PUBLISH_MESSAGES.editorRole);
    await posts.require(workspaceId, postId);
    const version = await store.versions.get(postId, versionId);
    if (!version) throw notFound(VERSION_NOT_FOUND);
    // Media whose bytes were removed since cannot come back: the rest do, in the version's order.
    const media: Media[] = [];
    for (const m of version.media) {
      if (!assets || await assets.exists(mediaKey(workspaceId, postId, m))) media.push(m);
    }
    await posts.update(workspaceId, postId, {
      content: version.text,
      first_comment: version.first_comment,
      publish_as: version.publish_as,
    }, { actorId: caller.user_id });
    const result = await store.modifyPost(workspaceId, postId, (current, op) => {
      const next = { ...current, media, updated_at: nowIso() };
      store.versions.add(op, versionOf(next, version.text, "restored", by(caller)));
      return next;
    });
    if (!result) throw notFound(POST_NOT_FOUND);
    const sentBack = await review.contentChanged(
      workspaceId,
      postId,
      version.text,
      caller.user_id,
    );
    return sentBack ?? await posts.read(result.after);
  }
}

function by(caller: Caller): { id: string; name: string } {
  return { id: caller.user_id, name: caller.name || caller.email };
}
