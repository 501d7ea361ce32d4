import { buildMessage, type TemplateName } from "../../shared/delivery/mod.ts";
import { AppError, conflict, forbidden, notFound } from "../../shared/http/app_error.ts";
import type { Caller } from "../../shared/http/identity.ts";
import { newId, sha256Hex } from "../../shared/crypto/ids.ts";
import { errorMessage, type Logger } from "../../shared/log.ts";
import type { ServiceQueue } from "../../shared/queue/queue.ts";
import { nowIso } from "../../shared/time.ts";
import type { AuthClient } from "../auth/client.ts";
import type { Workspace, WorkspacesClient } from "../workspaces/client.ts";
import type { PostsJob } from "./jobs.ts";
import type { PostOperations } from "./operations.ts";
import {
  type Post,
  POST_NOT_FOUND,
  type PostRecord,
  type PostStatus,
  type Review,
  type ReviewDecision,
} from "./schemas.ts";
import { reviewKey } from "./keys.ts";
import { versionOf } from "./version_snapshot.ts";
import { approvalKey, extrasFingerprint, NO_EXTRAS } from "./fingerprints.ts";

export { approvalKey, extrasFingerprint };
import type { PostsStore, StoredPost } from "./store.ts";

export const REVIEW_MESSAGES = {
  ownReview: "Authors cannot review their own post",
  reviewRole: "Only the owner or an editor can review posts",
  notInReview: "Post is not in review",
  onlyReviewApproves: "Only a review can approve a post when approval is required",
  notApproved: "Post must be approved first: this workspace requires approval",
  published: "Post is already published",
  badReviewers: "reviewer_ids must name 1 to 10 workspace owners or editors other than the author",
  mediaNotUploaded: "has not been uploaded yet: approve once its upload is complete",
} as const;

/** The note of the history entry that records a voided approval. */
export const APPROVAL_VOIDED_NOTE = "text changed after approval";

/** The note of the history entry that records an approval voided by its media or first comment. */
export const EXTRAS_VOIDED_NOTE = "media or first comment changed after approval";

/** SHA-256 (hex) of a post's text: what an approval is bound to. */
export const textFingerprint: (text: string) => Promise<string> = sha256Hex;

export interface ReviewDeps {
  store: PostsStore;
  posts: PostOperations;
  workspaces: WorkspacesClient;
  auth: AuthClient;
  queue: ServiceQueue<PostsJob>;
  logger: Logger;
  publicUrl: string;
}

/**
 * Review and the approval rules: review requests, decisions (never by the
 * author), the status guard when a workspace requires approval, and the approval's binding to
 * the exact text approved (a changed text sends the post back to review).
 */
export class ReviewOperations {
  /**
   * The ids of `post`'s media whose bytes are stored (null: no asset store, so no media). An
   * approval covers only media a reviewer could see: an entry still waiting for its upload
   * would publish whatever bytes arrive after the approval.
   */
  uploadedMedia?: (post: PostRecord) => Promise<Set<string> | null>;

  /**
   * What the post holds may have changed (its text now has `textFingerprint`, when given): the
   * review links made for other content die for good.
   */
  outdateLinks?: (postId: string, textFingerprint?: string) => Promise<number>;

  constructor(private readonly deps: ReviewDeps) {}

  postUrl(workspaceId: string, postId: string): string {
    return `${this.deps.publicUrl}/workspaces/${workspaceId}/posts/${postId}`;
  }

  /** 403 `Not a workspace member` / 404 deleted workspace, as every route checks first. */
  requireMember(workspaceId: string, userId: string) {
    return this.deps.workspaces.requireMember(workspaceId, userId);
  }

  /** The workspace's publishing settings (defaults when the record cannot be read). */
  async settings(workspaceId: string): Promise<Workspace | null> {
    return await this.deps.workspaces.getWorkspace(workspaceId);
  }

  /** The emails of `userIds` (a failed lookup costs the DMs, never the request). */
  async emails(userIds: string[]): Promise<Map<string, string>> {
    const out = new Map<string, string>();
    if (userIds.length === 0) return out;
    try {
      for (const [id, user] of await this.deps.auth.getUsers(userIds)) out.set(id, user.email);
    } catch (err) {
      this.deps.logger.warn("could not look up DM recipients; no DM sent", {
        error: errorMessage(err),
      });
    }
    return out;
  }

  /** Adds one `deliver` job per recipient to the commit `op`. */
  dm(
    op: Deno.AtomicOperation,
    to: (string | undefined)[],
    template: TemplateName,
    data: Record<string, unknown>,
  ): void {
    for (const email of new Set(to.filter((e): e is string => !!e))) {
      this.deps.queue.enqueue(op, {
        type: "deliver",
        message: buildMessage("dm", email, template, data),
      });
    }
  }

  /** `POST /api/posts/{id}/review-requests`: the post goes to `in_review` with its reviewers. */
  async requestReview(
    caller: Caller,
    workspaceId: string,
    postId: string,
    reviewerIds: string[],
    note: string | null | undefined,
  ): Promise<Post> {
    const { store, workspaces, posts } = this.deps;
    const post = await posts.require(workspaceId, postId);
    if (post.status === "published") throw conflict(REVIEW_MESSAGES.published);
    const ids = [...new Set(reviewerIds)];
    const memberships = await Promise.all(ids.map((id) => workspaces.membership(workspaceId, id)));
    const bad = ids.filter((id, i) =>
      id === post.author_id ||
      !(memberships[i].role === "owner" || memberships[i].role === "editor")
    );
    if (bad.length > 0) {
      throw new AppError(400, `${REVIEW_MESSAGES.badReviewers}: ${bad.join(", ")}`);
    }
    const emails = await this.emails(ids);
    const data = {
      post_title: post.title || "Untitled post",
      actor_name: caller.name || caller.email,
      note: note ?? undefined,
      url: this.postUrl(workspaceId, postId),
    };
    const result = await store.modifyPost(workspaceId, postId, (current, op) => {
      if (current.status === "published") throw conflict(REVIEW_MESSAGES.published);
      if (current.publish_attempt) throw conflict("Post is being published; wait for the outcome");
      const next: StoredPost = withdrawn(current, nowIso());
      next.status = "in_review";
      next.reviewer_ids = ids;
      // Nobody is told of their own request.
      this.dm(
        op,
        ids.filter((id) => id !== caller.user_id).map((id) => emails.get(id)),
        "review_requested",
        data,
      );
      return next;
    });
    if (!result) throw notFound(POST_NOT_FOUND);
    return await posts.read(result.after);
  }

  /** `POST /api/posts/{id}/reviews`: approve (bound to the current text) or request changes. */
  async decide(
    caller: Caller,
    role: string,
    workspaceId: string,
    postId: string,
    decision: ReviewDecision,
    note: string | null | undefined,
  ): Promise<Post> {
    const { posts } = this.deps;
    const post = await posts.require(workspaceId, postId);
    if (role !== "owner" && role !== "editor") throw forbidden(REVIEW_MESSAGES.reviewRole);
    if (post.author_id === caller.user_id) throw forbidden(REVIEW_MESSAGES.ownReview);
    if (post.status !== "in_review") throw conflict(REVIEW_MESSAGES.notInReview);
    return await this.applyDecision(
      post,
      {
        reviewer_id: caller.user_id,
        reviewer_name: caller.name || caller.email,
        external: false,
      },
      decision,
      note ?? null,
    );
  }

  /**
   * Records `decision` by `reviewer` on `post` (in review): an approval counts once per
   * reviewer for what the post holds now; the post is `approved` once the workspace's
   * `approvals_required` distinct reviewers approved it (one when approval is not required),
   * and `request_changes` sends it to `draft`. The decision is in the review history, a version
   * is kept at the approval, and the author gets `review_decided`.
   */
  async applyDecision(
    post: PostRecord,
    reviewer: { reviewer_id: string; reviewer_name: string; external: boolean },
    decision: ReviewDecision,
    note: string | null,
    /**
     * checked inside the commit with what the decision covers (`approvalKey` of the text read
     * and the media and first comment as committed): throws to refuse (a review link's single
     * decision, on the content the link showed)
     */
    alsoInCommit?: (op: Deno.AtomicOperation, holds: string) => void,
  ): Promise<Post> {
    const { store, posts } = this.deps;
    const { workspace_id: workspaceId, post_id: postId } = post;
    const text = (await posts.read(post)).content;
    const fingerprint = await textFingerprint(text);
    const ws = await this.settings(workspaceId);
    const needed = ws?.approval_required ? Math.max(1, ws.approvals_required ?? 1) : 1;
    const author = (await this.emails([post.author_id])).get(post.author_id);
    const uploaded = decision === "approve" ? await this.uploadedMedia?.(post) : null;
    const now = nowIso();
    const review: Review = {
      review_id: newId(),
      reviewer_id: reviewer.reviewer_id,
      reviewer_name: reviewer.reviewer_name,
      decision,
      note,
      created_at: now,
    };
    const result = await store.modifyPost(workspaceId, postId, (current, op) => {
      // A review link's reviewer may decide on a draft as well: the link was made for them.
      const open = current.status === "in_review" ||
        (reviewer.external && current.status === "draft");
      if (!open) throw conflict(REVIEW_MESSAGES.notInReview);
      const waiting = uploaded && (current.media ?? []).find((m) => !uploaded.has(m.media_id));
      if (waiting) throw conflict(`${waiting.filename} ${REVIEW_MESSAGES.mediaNotUploaded}`);
      const holds = approvalKey(fingerprint, current);
      alsoInCommit?.(op, holds);
      const next: StoredPost = { ...current, updated_at: now };
      if (decision === "approve") {
        const approvals = (current.approvals ?? []).filter((a) =>
          a.content === holds && a.reviewer_id !== reviewer.reviewer_id
        );
        approvals.push({ ...reviewer, at: now, content: holds });
        next.approvals = approvals;
        next.status = "in_review";
        if (approvals.length >= needed) {
          next.status = "approved";
          next.approved_by = reviewer.reviewer_id;
          next.approved_at = now;
          next.approved_fingerprint = fingerprint;
          next.approved_extras_fingerprint = extrasFingerprint(current);
          next.approved_by_name = review.reviewer_name;
          store.versions.add(
            op,
            versionOf(current, text, "approved", {
              id: reviewer.reviewer_id,
              name: review.reviewer_name,
            }),
          );
        }
      } else {
        next.status = "draft";
        next.approvals = [];
        next.approved_by = null;
        next.approved_at = null;
        next.approved_fingerprint = null;
        next.approved_extras_fingerprint = null;
        next.approved_by_name = null;
      }
      op.set(reviewKey(postId, review.review_id), review);
      this.dm(op, [author], "review_decided", {
        post_title: current.title || "Untitled post",
        actor_name: review.reviewer_name,
        decision,
        note: note ?? undefined,
        url: this.postUrl(workspaceId, postId),
      });
      return next;
    });
    if (!result) throw notFound(POST_NOT_FOUND);
    // The text may have changed between the read and the commit: check it once more.
    const after = await this.textChanged(
      postId,
      await textFingerprint(
        (await posts.read(result.after)).content,
      ),
    );
    return after ?? await posts.read(result.after);
  }

  /**
   * The guard of `PUT /api/posts/{id}/status` when the workspace requires approval: only a
   * review approves (409), and `scheduled`/`published` are reached only from `approved`.
   * Answers a check to run on the post as read inside the update's commit loop.
   */
  async statusGuard(
    workspaceId: string,
    target: PostStatus,
  ): Promise<((current: { status: PostStatus }) => void) | undefined> {
    const ws = await this.settings(workspaceId);
    if (!ws?.approval_required) return undefined;
    return (current) => {
      if (current.status === target) return;
      if (target === "approved") throw conflict(REVIEW_MESSAGES.onlyReviewApproves);
      if ((target === "scheduled" || target === "published") && current.status !== "approved") {
        throw conflict(REVIEW_MESSAGES.notApproved);
      }
    };
  }

  /**
   * The post's text now has `fingerprint`. An approved or scheduled post whose approval covers
   * another text goes back to `in_review`: approval cleared, schedule cancelled, reviewers
   * DMed (not `actorId`, whose change it was), the voiding kept in the review history. Answers
   * the post when it was sent back, else null. Idempotent.
   */
  async textChanged(postId: string, fingerprint: string, actorId?: string): Promise<Post | null> {
    const { store, posts } = this.deps;
    await this.#outdateLinks(postId, fingerprint);
    const workspaceId = await store.workspaceOf(postId);
    if (!workspaceId) return null;
    const stored = await store.getStored(workspaceId, postId);
    if (!stored || !invalidates(stored, fingerprint)) return null;
    const emails = await this.emails(othersThan(stored.reviewer_ids, actorId));
    const approver = await this.#approverName(stored);
    const result = await store.modifyPost(workspaceId, postId, (current, op) => {
      if (!invalidates(current, fingerprint)) return null;
      return this.sendBackToReview(op, current, emails, approver, nowIso());
    });
    if (!result?.changed) return null;
    this.deps.logger.info("approval withdrawn: the text changed after it was approved", {
      post_id: postId,
    });
    return await posts.read(result.after);
  }

  /**
   * The post's text (now `text`) and its media or first comment may all have changed: an
   * approval that covers other ones is voided, as `textChanged` and `extrasChanged` do. Answers
   * the post when it was sent back, else null.
   */
  async contentChanged(
    workspaceId: string,
    postId: string,
    text: string,
    actorId?: string,
  ): Promise<Post | null> {
    // textChanged ended the links made for other content (text and extras alike).
    return await this.textChanged(postId, await textFingerprint(text), actorId) ??
      await this.#voidChangedExtras(workspaceId, postId, actorId);
  }

  /**
   * The post's media or first comment changed: an approved or scheduled post whose approval
   * covers other ones goes back to `in_review`, as with `textChanged`. Answers the post when it
   * was sent back, else null. Idempotent.
   */
  async extrasChanged(
    workspaceId: string,
    postId: string,
    actorId?: string,
  ): Promise<Post | null> {
    await this.#outdateLinks(postId);
    return await this.#voidChangedExtras(workspaceId, postId, actorId);
  }

  /** `extrasChanged` once the review links are seen to: the approval's part. */
  async #voidChangedExtras(
    workspaceId: string,
    postId: string,
    actorId?: string,
  ): Promise<Post | null> {
    const { store, posts } = this.deps;
    const stored = await store.getStored(workspaceId, postId);
    if (!stored || !extrasInvalidate(stored)) return null;
    const emails = await this.emails(othersThan(stored.reviewer_ids, actorId));
    const approver = await this.#approverName(stored);
    const result = await store.modifyPost(workspaceId, postId, (current, op) => {
      if (!extrasInvalidate(current)) return null;
      return this.sendBackToReview(op, current, emails, approver, nowIso(), EXTRAS_VOIDED_NOTE);
    });
    if (!result?.changed) return null;
    this.deps.logger.info("approval withdrawn: media or first comment changed after approval", {
      post_id: postId,
    });
    return await posts.read(result.after);
  }

  /**
   * Inside a commit on `current`: its approval is void because what it covered changed. The
   * post goes back to `in_review` with approval and schedule withdrawn, the history records the
   * voiding under the approver's name, and the reviewers get `review_requested`. Answers the
   * post to store.
   */
  sendBackToReview(
    op: Deno.AtomicOperation,
    current: StoredPost,
    emails: Map<string, string>,
    approverName: string,
    now: string,
    note: string = APPROVAL_VOIDED_NOTE,
  ): StoredPost {
    const { workspace_id: workspaceId, post_id: postId } = current;
    const entry: Review = {
      review_id: newId(),
      reviewer_id: current.approved_by ?? "",
      reviewer_name: approverName,
      decision: "voided",
      note,
      created_at: now,
    };
    op.set(reviewKey(postId, entry.review_id), entry);
    this.dm(op, current.reviewer_ids.map((id) => emails.get(id)), "review_requested", {
      post_title: current.title || "Untitled post",
      reason: "approved_text_changed",
      url: this.postUrl(workspaceId, postId),
    });
    const next = withdrawn(current, now);
    next.status = "in_review";
    return next;
  }

  /** Ends the links made for other content; a failure is logged (opening a link checks again). */
  async #outdateLinks(postId: string, textFingerprint?: string): Promise<void> {
    try {
      await this.outdateLinks?.(postId, textFingerprint);
    } catch (err) {
      this.deps.logger.warn("could not end the review links of a changed post", {
        post_id: postId,
        error: errorMessage(err),
      });
    }
  }

  /** The name of the reviewer whose approval `post` holds (older records: from the history). */
  async #approverName(post: StoredPost): Promise<string> {
    if (post.approved_by_name) return post.approved_by_name;
    const reviews = await this.deps.store.listReviews(post.post_id);
    const last = reviews.findLast((r) =>
      r.decision === "approve" && r.reviewer_id === post.approved_by
    );
    return last?.reviewer_name ?? "";
  }

  /** What `sendBackToReview` needs that is read outside the commit: DM emails, the approver. */
  async sendBackInputs(post: StoredPost) {
    return {
      emails: await this.emails(post.reviewer_ids),
      approverName: await this.#approverName(post),
    };
  }
}

/** The reviewers to tell of a change: all but `actorId`, who made it. */
function othersThan(reviewerIds: string[], actorId: string | undefined): string[] {
  return reviewerIds.filter((id) => id !== actorId);
}

/** Whether `fingerprint` withdraws the approval (not while a publish call is in flight: the
 * approved text is what LinkedIn is receiving, and the call's outcome decides the status). */
function invalidates(post: StoredPost, fingerprint: string): boolean {
  return (post.status === "approved" || post.status === "scheduled") && !post.publish_attempt &&
    !!post.approved_fingerprint && post.approved_fingerprint !== fingerprint;
}

/** Whether the post's media and first comment are the ones its approval covers. */
export function approvedExtrasMatch(post: StoredPost): boolean {
  return (post.approved_extras_fingerprint ?? NO_EXTRAS) === extrasFingerprint(post);
}

/** Whether the post's media or first comment are not the ones its approval covers. */
export function extrasInvalidate(post: StoredPost): boolean {
  return (post.status === "approved" || post.status === "scheduled") && !post.publish_attempt &&
    !!post.approved_fingerprint &&
    (post.approved_extras_fingerprint ?? NO_EXTRAS) !== extrasFingerprint(post);
}

/** The post with its approval and schedule withdrawn (status left to the caller). */
function withdrawn(current: StoredPost, now: string): StoredPost {
  return {
    ...current,
    approved_by: null,
    approved_at: null,
    approved_fingerprint: null,
    approved_extras_fingerprint: null,
    approved_by_name: null,
    approvals: [],
    scheduled_at: null,
    schedule_id: null,
    scheduled_by: null,
    updated_at: now,
  };
}
