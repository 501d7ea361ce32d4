/**
 * The only code that touches the posts service's KV.
 *
 * Keys:
 * - `["posts", workspaceId, postId]` → StoredPost (no text; ULID ids, so a reverse prefix list is
 *   newest first)
 * - `["post_workspaces", postId]` → workspaceId (peers address a post by id alone)
 * - `["post_content", postId, n]` → chunk `n` of the post's text as last written through REST
 *   or a peer (the live text is the collab service's document; this copy never loses the text
 *   when collab is absent). Chunked so a long text never exceeds one KV value.
 * - `["posts_by_published_at", publishedAt, postId]` → workspaceId, while the post is published
 * - `["posts_by_status" | "posts_by_author", ...]`: the list's indexes (store/post_lists.ts)
 * - `["post_counters", "total"]` → KvU64, the number of posts
 * - `["approved_texts", postId]` → ApprovedText, while the post is approved or scheduled with a
 *   review's fingerprint (the live texts compared against it; written with the post)
 * - `["approved_texts_indexed"]` → true once the index above covers every post
 * - `["examples", workspaceId, exampleId]` → Example
 * - `["comments", postId, commentId]` → CommentRecord (ULIDs: insertion order)
 * - `["comment_replies", postId, commentId, replyId]` → Reply
 * - `["post_reviews", postId, reviewId]` → Review (ULIDs: oldest first)
 * - `["linkedin_publications", publishedAt, postId]` → workspaceId: one per post published on
 *   LinkedIn (the admin metric `posts_published_last_30_days` counts these)
 * - `["linkedin_connections", workspaceId]` → StoredConnection (the access token AES-GCM
 *   encrypted with a key that is not in this KV, see `token_crypto.ts`)
 * - `["linkedin_states", sha256(state)]` → LinkedInState (10 minutes, single use)
 * - `["post_versions", postId, versionId]` → PostVersion (ULIDs: oldest first)
 * - `["review_links", sha256(token)]` → ReviewLinkRecord, `["post_review_links", postId, linkId]`
 *   → the token's hash, `["review_link_hits", sha256(token), minute]` → KvU64
 * - `["media_uploads", uploadId]` → MediaUploadGrant (a media upload URL's, until it expires)
 *
 * Writes that cause a message take an `also(op)` callback, so a queue message is enqueued in
 * the same atomic commit as the write that causes it.
 */
import { retryCommit } from "../../shared/kv/kv.ts";
import { indexChanges } from "../../shared/kv/kv_pages.ts";
import type { PostRecord, PostStatus, Review } from "./schemas.ts";
import {
  approvedTextKey,
  linkedinPublicationsPrefix,
  postContentKey,
  postContentPrefix,
  postCountKey,
  postIndexKeys,
  postKey,
  postReviewsPrefix,
  postWorkspaceKey,
  workspacePostsPrefix,
} from "./keys.ts";
import { CommentStore } from "./store/comments.ts";
import { ExampleStore } from "./store/examples.ts";
import { MediaUploadStore } from "./store/media_uploads.ts";
import { VersionStore } from "./store/versions.ts";
import { ReviewLinkStore } from "./store/review_links.ts";
import { PostListStore } from "./store/post_lists.ts";
import { publicRecord, upgraded } from "./store/records.ts";

export { publicRecord, withContent } from "./store/records.ts";

/** Characters per text chunk: at most 32 KiB even when V8 stores the string two bytes a char. */
export const CONTENT_CHUNK = 16_000;
const U64_WRAP = 1n << 64n;

/** A publish call to LinkedIn, recorded before it is made (so a post is published at most once). */
export interface PublishAttempt {
  attempt_id: string;
  schedule_id: string;
  started_at: string;
}

export interface StoredPost extends PostRecord {
  /** how many `["post_content", postId, n]` chunks hold the text */
  content_chunks: number;
  /** SHA-256 (hex) of the text a review approved; null when not approved by a review */
  approved_fingerprint?: string | null;
  /** the name of the reviewer whose approval stands (for the history entry that voids it) */
  approved_by_name?: string | null;
  /** who scheduled (or published) the post; gets the `post_published` DM */
  scheduled_by?: string | null;
  /** their name (the publication's version is theirs) */
  scheduled_by_name?: string | null;
  /** the live schedule: a publish job carrying another id is stale and dropped */
  schedule_id?: string | null;
  /** the LinkedIn call in flight; found on a re-run, its outcome is unknown */
  publish_attempt?: PublishAttempt | null;
  /** when the first publish try of this schedule ran (retries stop an hour later) */
  publish_first_try?: string | null;
  /** how many retries (429, 5xx) this schedule had */
  publish_retries?: number;
  /**
   * Fingerprint of the media (ids, order, alt texts, titles) and first comment an approval
   * covers (`extrasFingerprint`); absent on approvals older than media: none
   */
  approved_extras_fingerprint?: string | null;
  /** the first comment's call to LinkedIn in flight; found on a re-run, its outcome is unknown */
  first_comment_attempt?: string | null;
  /** how many retries (429, 5xx) the first comment had */
  first_comment_retries?: number;
}

/** What the live-text check needs of an approved post: where it is and what was approved. */
export interface ApprovedText {
  workspace_id: string;
  fingerprint: string;
}

export type Also = (op: Deno.AtomicOperation) => void;
export type Attempt<T> = Promise<{ ok: true; value: T } | { ok: false }>;

const APPROVED_TEXTS_PREFIX: Deno.KvKey = ["approved_texts"];
const APPROVED_TEXTS_INDEXED: Deno.KvKey = ["approved_texts_indexed"];

/** Keeps `["approved_texts", postId]` in step with the post written in the same commit. */
function indexApproval(op: Deno.AtomicOperation, postId: string, post: StoredPost | null): void {
  const approved = post && (post.status === "approved" || post.status === "scheduled") &&
    post.approved_fingerprint;
  if (approved) {
    op.set(
      approvedTextKey(postId),
      {
        workspace_id: post.workspace_id,
        fingerprint: post.approved_fingerprint!,
      } satisfies ApprovedText,
    );
  } else {
    op.delete(approvedTextKey(postId));
  }
}

function splitContent(content: string): string[] {
  const chunks: string[] = [];
  for (let i = 0; i < content.length; i += CONTENT_CHUNK) {
    chunks.push(content.slice(i, i + CONTENT_CHUNK));
  }
  return chunks;
}

/** Writes the text's chunks into `op` and deletes the ones a longer earlier text left. */
function writeContent(
  op: Deno.AtomicOperation,
  postId: string,
  content: string,
  previousChunks: number,
): number {
  const chunks = splitContent(content);
  chunks.forEach((chunk, n) => op.set(postContentKey(postId, n), chunk));
  for (let n = chunks.length; n < previousChunks; n++) op.delete(postContentKey(postId, n));
  return chunks.length;
}

export interface PostUpdate {
  title?: string;
  tags?: string[];
  scheduled_at?: string | null;
  status?: PostStatus;
  content?: string;
  first_comment?: string | null;
  publish_as?: string;
}

export class PostsStore {
  /** comment threads, in store/comments.ts */
  readonly comments: CommentStore;
  /** example posts, in store/examples.ts */
  readonly examples: ExampleStore;
  /** The single-use upload URLs of posts' media (store/media_uploads.ts). */
  readonly mediaUploads: MediaUploadStore;
  /** The snapshots of what posts would publish (store/versions.ts). */
  readonly versions: VersionStore;
  /** Review links for reviewers without an account (store/review_links.ts). */
  readonly reviewLinks: ReviewLinkStore;
  /** pages of the posts list and its indexes, in store/post_lists.ts */
  readonly lists: PostListStore;

  constructor(private readonly kv: Deno.Kv) {
    this.comments = new CommentStore(kv);
    this.examples = new ExampleStore(kv);
    this.mediaUploads = new MediaUploadStore(kv);
    this.versions = new VersionStore(kv);
    this.reviewLinks = new ReviewLinkStore(kv);
    this.lists = new PostListStore(kv);
  }

  // ------------------------------------------------------------ posts

  /** The post, if it exists in that workspace (a post addressed elsewhere is not found). */
  async getPost(workspaceId: string, postId: string): Promise<PostRecord | null> {
    const entry = await this.kv.get<StoredPost>(postKey(workspaceId, postId));
    return entry.value ? publicRecord(entry.value) : null;
  }

  /** The post with its private publishing fields, if it exists in that workspace. */
  async getStored(workspaceId: string, postId: string): Promise<StoredPost | null> {
    const entry = await this.kv.get<StoredPost>(postKey(workspaceId, postId));
    return entry.value ? upgraded(entry.value) : null;
  }

  /** The workspace a post lives in (peers address a post by id alone). */
  async workspaceOf(postId: string): Promise<string | null> {
    return (await this.kv.get<string>(postWorkspaceKey(postId))).value;
  }

  /**
   * Read-modify-write of one post through `change`, which sees the stored record (with its
   * private fields) and answers the next one, or null to leave it as it is; it may throw an
   * AppError (409 and the like) and may add to the commit through `op` (queue messages).
   * Null when there is no such post.
   */
  async modifyPost(
    workspaceId: string,
    postId: string,
    change: (current: StoredPost, op: Deno.AtomicOperation) => StoredPost | null,
  ): Promise<{ before: StoredPost; after: StoredPost; changed: boolean } | null> {
    const key = postKey(workspaceId, postId);
    return await retryCommit(
      async (): Attempt<{ before: StoredPost; after: StoredPost; changed: boolean } | null> => {
        const entry = await this.kv.get<StoredPost>(key);
        if (!entry.value) return { ok: true, value: null };
        const before = upgraded(entry.value);
        const op = this.kv.atomic().check(entry);
        const next = change(structuredClone(before), op);
        if (!next) return { ok: true, value: { before, after: before, changed: false } };
        op.set(key, next);
        indexApproval(op, postId, next);
        indexChanges(op, postIndexKeys(before), postIndexKeys(next));
        const res = await op.commit();
        return res.ok ? { ok: true, value: { before, after: next, changed: true } } : {
          ok: false,
        };
      },
    );
  }

  /** The post by id alone (peers). */
  async findPost(postId: string): Promise<PostRecord | null> {
    const ws = await this.kv.get<string>(postWorkspaceKey(postId));
    if (!ws.value) return null;
    return await this.getPost(ws.value, postId);
  }

  /** The approved or scheduled posts whose approval holds a fingerprint, a page at a time. */
  async *approvedTexts(page = 1_000): AsyncGenerator<Map<string, ApprovedText>> {
    let batch = new Map<string, ApprovedText>();
    for await (const e of this.kv.list<ApprovedText>({ prefix: APPROVED_TEXTS_PREFIX })) {
      batch.set(e.key[1] as string, e.value);
      if (batch.size >= page) {
        yield batch;
        batch = new Map();
      }
    }
    if (batch.size > 0) yield batch;
  }

  /**
   * Builds `["approved_texts", postId]` from the posts themselves: at start when it was never
   * built (posts approved before it existed), and after a restore (`force`). Each entry is
   * written checked against the post, so a concurrent change is not undone.
   */
  async indexApprovedTexts(force = false): Promise<void> {
    if (!force && (await this.kv.get(APPROVED_TEXTS_INDEXED)).value) return;
    for await (const entry of this.kv.list<StoredPost>({ prefix: ["posts"] })) {
      const op = this.kv.atomic().check(entry);
      indexApproval(op, entry.value.post_id, entry.value);
      await op.commit();
    }
    for await (const e of this.kv.list<ApprovedText>({ prefix: APPROVED_TEXTS_PREFIX })) {
      const postId = e.key[1] as string;
      const post = await this.kv.get(postKey(e.value.workspace_id, postId));
      if (!post.value) await this.kv.atomic().check(e).check(post).delete(e.key).commit();
    }
    await this.kv.set(APPROVED_TEXTS_INDEXED, true);
  }

  /** Every post's id and workspace, a page at a time (to tell collab where each post is). */
  async *postWorkspaces(page = 1_000): AsyncGenerator<{ post_id: string; workspace_id: string }[]> {
    let batch: { post_id: string; workspace_id: string }[] = [];
    for await (const e of this.kv.list<string>({ prefix: ["post_workspaces"] })) {
      batch.push({ post_id: e.key[1] as string, workspace_id: e.value });
      if (batch.length >= page) {
        yield batch;
        batch = [];
      }
    }
    if (batch.length > 0) yield batch;
  }

  /** Every scheduled post of every workspace, with its publishing fields (after a restore). */
  async listScheduled(): Promise<StoredPost[]> {
    const out: StoredPost[] = [];
    for await (const entry of this.kv.list<StoredPost>({ prefix: ["posts"] })) {
      if (entry.value.status === "scheduled") out.push(upgraded(entry.value));
    }
    return out;
  }

  /** Every post of the workspace, newest first. */
  async listPosts(workspaceId: string): Promise<PostRecord[]> {
    const out: PostRecord[] = [];
    const iter = this.kv.list<StoredPost>({ prefix: workspacePostsPrefix(workspaceId) }, {
      reverse: true,
    });
    for await (const entry of iter) out.push(publicRecord(entry.value));
    return out;
  }

  /** The stored text of a post ("" when it has none). */
  async storedContent(postId: string): Promise<string> {
    let text = "";
    for await (const entry of this.kv.list<string>({ prefix: postContentPrefix(postId) })) {
      text += entry.value;
    }
    return text;
  }

  /** Stores a new post with its text and counts it. */
  async createPost(record: PostRecord, content: string, also?: Also): Promise<PostRecord> {
    const key = postKey(record.workspace_id, record.post_id);
    const op = this.kv.atomic()
      .check({ key, versionstamp: null })
      .check({ key: postWorkspaceKey(record.post_id), versionstamp: null });
    const chunks = writeContent(op, record.post_id, content, 0);
    op.set(key, { ...record, content_chunks: chunks } satisfies StoredPost)
      .set(postWorkspaceKey(record.post_id), record.workspace_id)
      .sum(postCountKey(), 1n);
    indexChanges(op, [], postIndexKeys(record));
    also?.(op);
    const res = await op.commit();
    if (!res.ok) throw new Error(`Post ${record.post_id} already exists`);
    return record;
  }

  /**
   * Read-modify-write of one post: the changes given, `updated_at` refreshed, and moving to
   * `published` from another status stamps `published_at`. Null when the post is not in that
   * workspace.
   */
  async updatePost(
    workspaceId: string,
    postId: string,
    update: PostUpdate,
    now: string,
    /**
     * re-checked on every attempt against what was read (also given with its private fields);
     * throws (an AppError) to refuse
     */
    guard?: (current: PostRecord, stored: StoredPost) => void,
  ): Promise<{ before: PostRecord; after: PostRecord } | null> {
    const key = postKey(workspaceId, postId);
    return await retryCommit(
      async (): Attempt<{ before: PostRecord; after: PostRecord } | null> => {
        const entry = await this.kv.get<StoredPost>(key);
        if (!entry.value) return { ok: true, value: null };
        const before = entry.value;
        guard?.(publicRecord(before), before);
        const after: StoredPost = { ...before, updated_at: now };
        if (update.title !== undefined) after.title = update.title;
        if (update.tags !== undefined) after.tags = update.tags;
        if (update.scheduled_at !== undefined) after.scheduled_at = update.scheduled_at;
        if (update.first_comment !== undefined) after.first_comment = update.first_comment;
        if (update.publish_as !== undefined) after.publish_as = update.publish_as;
        if (update.status !== undefined) {
          after.status = update.status;
          if (update.status === "published" && before.status !== "published") {
            after.published_at = now;
          }
          // A label move away from `scheduled` cancels the publish job; back to draft or
          // review withdraws a review's approval.
          if (update.status !== "scheduled") after.schedule_id = null;
          if (update.status === "draft" || update.status === "in_review") {
            after.approved_by = null;
            after.approved_at = null;
            after.approved_fingerprint = null;
            after.approved_extras_fingerprint = null;
            after.approved_by_name = null;
          }
        }
        const op = this.kv.atomic().check(entry);
        if (update.content !== undefined) {
          after.content_chunks = writeContent(op, postId, update.content, before.content_chunks);
        }
        op.set(key, after);
        indexApproval(op, postId, after);
        indexChanges(op, postIndexKeys(before), postIndexKeys(after));
        const res = await op.commit();
        return res.ok
          ? { ok: true, value: { before: publicRecord(before), after: publicRecord(after) } }
          : { ok: false };
      },
    );
  }

  /**
   * Removes the post, its text and its workspace pointer, and uncounts it; its comments are left to
   * `purgePostComments` (a job enqueued by `also`), since they may be more than one commit holds.
   */
  async deletePost(workspaceId: string, postId: string, also?: Also): Promise<PostRecord | null> {
    const key = postKey(workspaceId, postId);
    return await retryCommit(async (): Attempt<PostRecord | null> => {
      const entry = await this.kv.get<StoredPost>(key);
      if (!entry.value) return { ok: true, value: null };
      const post = entry.value;
      const op = this.kv.atomic().check(entry).delete(key).delete(postWorkspaceKey(postId))
        .delete(approvedTextKey(postId))
        .sum(postCountKey(), U64_WRAP - 1n);
      for (let n = 0; n < post.content_chunks; n++) op.delete(postContentKey(postId, n));
      indexChanges(op, postIndexKeys(post), []);
      also?.(op);
      const res = await op.commit();
      return res.ok ? { ok: true, value: publicRecord(post) } : { ok: false };
    });
  }

  /**
   * The admin figures: posts in all, and posts published on LinkedIn since `sinceIso` (a
   * status label set by hand is not a publication).
   */
  async stats(sinceIso: string): Promise<{ total_posts: number; published_since: number }> {
    const total = (await this.kv.get<Deno.KvU64>(postCountKey())).value?.value ?? 0n;
    let published = 0;
    const iter = this.kv.list({
      prefix: linkedinPublicationsPrefix(),
      start: [...linkedinPublicationsPrefix(), sinceIso],
    });
    for await (const _ of iter) published++;
    // A count that wrapped below zero (it never should) reads as zero, not as 2^64 - 1.
    return { total_posts: total >= 1n << 63n ? 0 : Number(total), published_since: published };
  }

  // ------------------------------------------------------------ reviews

  /** The post's reviews, oldest first. */
  async listReviews(postId: string): Promise<Review[]> {
    const out: Review[] = [];
    for await (const entry of this.kv.list<Review>({ prefix: postReviewsPrefix(postId) })) {
      out.push(entry.value);
    }
    return out;
  }

  // ------------------------------------------------------------ raw access (publishing)

  /** The KV, for the LinkedIn connection store that shares it (`linkedin_store.ts`). */
  get kvHandle(): Deno.Kv {
    return this.kv;
  }
}
