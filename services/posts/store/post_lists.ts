import {
  buildIndexes,
  getValues,
  type KvPage,
  readRangePage,
} from "../../../shared/kv/kv_pages.ts";
import type { PostRecord, PostStatus } from "../schemas.ts";
import {
  POST_INDEXES_BUILT,
  postIndexKeys,
  postKey,
  postsByAuthor,
  postsByStatus,
  workspacePostsPrefix,
} from "../keys.ts";
import type { StoredPost } from "../store.ts";
import { publicRecord } from "./records.ts";

/**
 * The posts list a page at a time, from the indexes `PostsStore` writes with each post
 * (`postIndexKeys`): one range read and the page's posts, whatever the workspace holds.
 *
 * Keys: `["posts_by_status", workspaceId, status, postId]` and `["posts_by_author", workspaceId,
 * authorId, postId]` → true, written in the post's own commits (derived: built at start-up and
 * after a restore, then `["index_builds", "post_lists"]` is set).
 */
export class PostListStore {
  constructor(private readonly kv: Deno.Kv) {}

  /**
   * One page of the workspace's posts, newest first, after the post `after`: from the author's
   * index when `authorId` is given (the status checked on each post), else the status' index,
   * else the posts themselves.
   */
  async page(
    workspaceId: string,
    filters: { status?: PostStatus; authorId?: string },
    page: { limit: number; after?: string },
  ): Promise<KvPage<PostRecord>> {
    const prefix = filters.authorId !== undefined
      ? postsByAuthor(workspaceId, filters.authorId)
      : filters.status !== undefined
      ? postsByStatus(workspaceId, filters.status)
      : null;
    const result = await readRangePage<StoredPost>(this.kv, {
      prefix: prefix ?? workspacePostsPrefix(workspaceId),
      reverse: true,
      limit: page.limit,
      after: page.after,
      load: prefix
        ? (ids) => getValues(this.kv, ids.map((id) => postKey(workspaceId, id)))
        : undefined,
      keep: (p) =>
        (filters.status === undefined || p.status === filters.status) &&
        (filters.authorId === undefined || p.author_id === filters.authorId),
    });
    return { items: result.items.map(publicRecord), next: result.next };
  }

  /**
   * Puts every post into the paged list's indexes unless that was done: posts stored before the
   * indexes existed (at start-up), or restored from a backup (the indexes are not in it).
   */
  build(): Promise<number> {
    return buildIndexes<StoredPost>(this.kv, POST_INDEXES_BUILT, [
      { records: ["posts"], indexKeys: postIndexKeys },
    ]);
  }
}
