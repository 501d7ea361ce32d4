import { conflict, forbidden, notFound, tooManyRequests } from "../../shared/http/app_error.ts";
import type { Caller } from "../../shared/http/identity.ts";
import { newId, randomToken, sha256Hex } from "../../shared/crypto/ids.ts";
import { nowIso, toIso } from "../../shared/time.ts";
import type { Workspace, WorkspacesClient } from "../workspaces/client.ts";
import { approvalKey, textFingerprintSync } from "./fingerprints.ts";
import type { MediaOperations } from "./media.ts";
import type { PostOperations } from "./operations.ts";
import { canPublish, PUBLISH_MESSAGES } from "./publish_rules.ts";
import type { ReviewOperations } from "./review.ts";
import { type Post, type PostRecord, type ReviewDecision } from "./schemas.ts";
import type { PostsStore } from "./store.ts";
import { isLive, type ReviewLinkRecord } from "./store/review_links.ts";

export const REVIEW_LINK_GONE = "Review link not found or expired";
/** Requests one review link answers per minute. */
export const REVIEW_LINK_RATE = 30;
/** A review link's token: 32 random bytes, base64url. */
const TOKEN = /^[A-Za-z0-9_-]{43}$/;

/**
 * Review links: an owner or editor makes one for a named reviewer without an account; the
 * reviewer opens it, sees the post as the preview shows it and decides once. A link dies on
 * expiry, on revoke and when what the post holds changes after it was made; only the token's
 * hash is kept; each link answers at most REVIEW_LINK_RATE requests a minute.
 */
export class ReviewLinkOperations {
  constructor(
    private readonly deps: {
      store: PostsStore;
      posts: PostOperations;
      review: ReviewOperations;
      workspaces: WorkspacesClient;
      media: MediaOperations;
      publicUrl: string;
    },
  ) {}

  async create(
    caller: Caller,
    workspaceId: string,
    postId: string,
    input: { reviewer_name: string; expires_in_hours: number },
  ) {
    const { store, posts, workspaces, publicUrl } = this.deps;
    const membership = await workspaces.requireMember(workspaceId, caller.user_id);
    if (!canPublish(membership.role)) throw forbidden(PUBLISH_MESSAGES.editorRole);
    const post = await posts.require(workspaceId, postId);
    if (post.status === "published") throw conflict("Post is already published");
    const text = (await posts.read(post)).content;
    const token = randomToken(32);
    const now = Date.now();
    const link: ReviewLinkRecord = {
      link_id: newId(),
      post_id: postId,
      workspace_id: workspaceId,
      reviewer_name: input.reviewer_name.trim(),
      expires_at: toIso(new Date(now + input.expires_in_hours * 3_600_000)),
      created_at: toIso(new Date(now)),
      created_by: caller.user_id,
      content: approvalKey(textFingerprintSync(text), post),
      decided_at: null,
      decision: null,
      note: null,
    };
    await store.reviewLinks.create(await sha256Hex(token), link);
    return {
      link_id: link.link_id,
      url: `${publicUrl}/review/${token}`,
      expires_at: link.expires_at,
    };
  }

  async list(workspaceId: string, postId: string) {
    await this.deps.posts.require(workspaceId, postId);
    const items = (await this.deps.store.reviewLinks.list(postId)).map((l) => ({
      link_id: l.link_id,
      reviewer_name: l.reviewer_name,
      expires_at: l.expires_at,
      decided_at: l.decided_at,
      decision: l.decision,
    }));
    return { items, count: items.length };
  }

  async revoke(caller: Caller, workspaceId: string, postId: string, linkId: string) {
    const membership = await this.deps.workspaces.requireMember(workspaceId, caller.user_id);
    if (!canPublish(membership.role)) throw forbidden(PUBLISH_MESSAGES.editorRole);
    await this.deps.posts.require(workspaceId, postId);
    if (!await this.deps.store.reviewLinks.revoke(postId, linkId)) {
      throw notFound("Review link not found");
    }
  }

  /** What the reviewer sees: the post as it would be published, and the workspace's name. */
  async view(token: string) {
    const { link, post, content, ws } = await this.#open(token);
    const withUrls = await this.deps.media.withDownloadUrls({ ...content });
    return {
      workspace_name: ws.name,
      reviewer_name: link.value.reviewer_name,
      expires_at: link.value.expires_at,
      decision: link.value.decision,
      post: {
        title: post.title,
        content: content.content,
        media: withUrls.media,
        first_comment: post.first_comment ?? null,
      },
    };
  }

  /** The reviewer's decision, once: it counts as an approval, or sends the post to draft. */
  async decide(token: string, decision: ReviewDecision, note: string | null) {
    const { link, post } = await this.#open(token);
    if (link.value.decided_at) throw conflict("This review link already has a decision");
    const decided = { decided_at: nowIso(), decision, note };
    let outdated = false;
    await this.deps.review.applyDecision(
      post,
      {
        reviewer_id: `review-link:${link.value.link_id}`,
        reviewer_name: link.value.reviewer_name,
        external: true,
      },
      decision,
      note,
      (op, holds) => {
        // The decision covers what the link showed: a change that landed since it was opened
        // (a live edit, a media change) kills the link rather than being approved unseen.
        if (holds !== link.value.content) {
          outdated = true;
          throw notFound(REVIEW_LINK_GONE);
        }
        this.deps.store.reviewLinks.decide(op, link, decided);
      },
    ).catch(async (err) => {
      if (outdated) await this.deps.store.reviewLinks.outdate(link);
      throw err;
    });
    return { decision };
  }

  /**
   * What the post holds may have changed: each live link made for other content dies for good.
   * `textFingerprint`: the text's, when the caller has it. Answers how many links died.
   */
  async outdate(postId: string, textFingerprint?: string): Promise<number> {
    const { store, posts } = this.deps;
    const links = (await store.reviewLinks.entries(postId)).filter((e) => isLive(e.value));
    if (links.length === 0) return 0;
    const post = await store.findPost(postId);
    if (!post) return 0;
    const holds = approvalKey(
      textFingerprint ?? textFingerprintSync((await posts.read(post)).content),
      post,
    );
    let died = 0;
    for (const link of links) {
      if (link.value.content !== holds && await store.reviewLinks.outdate(link)) died++;
    }
    return died;
  }

  /**
   * Live edits happen in the collab service: the live texts of the posts with live links are
   * compared with what each link was made for (`fingerprints` answers the SHA-256 of the live
   * texts), and a link whose text changed dies for good. Answers how many links died.
   */
  async outdateEdited(
    fingerprints: (postIds: string[]) => Promise<Map<string, string>>,
  ): Promise<number> {
    let died = 0;
    for await (const byPost of this.deps.store.reviewLinks.livePages()) {
      const live = await fingerprints([...byPost.keys()]);
      for (const [postId, links] of byPost) {
        const now = live.get(postId);
        if (now === undefined) continue;
        if (links.some((l) => !l.content.startsWith(`${now}:`))) {
          died += await this.outdate(postId, now);
        }
      }
    }
    return died;
  }

  /**
   * The live link of `token`, its post and workspace, or 404 (unknown, revoked, expired,
   * outdated, or its workspace deleted: a link opens no more than the workspace's own routes).
   */
  async #open(token: string): Promise<{
    link: Deno.KvEntry<ReviewLinkRecord>;
    post: PostRecord;
    content: Post;
    ws: Workspace;
  }> {
    const { store, posts } = this.deps;
    if (!TOKEN.test(token)) throw notFound(REVIEW_LINK_GONE);
    const hash = await sha256Hex(token);
    const hits = await store.reviewLinks.hit(hash);
    if (hits.count > REVIEW_LINK_RATE) {
      throw tooManyRequests(
        "Too many requests for this review link; try again in a minute",
        hits.windowEndsInMs,
      );
    }
    const link = await store.reviewLinks.get(hash);
    if (
      !link.value || link.value.outdated_at || Date.parse(link.value.expires_at) <= Date.now()
    ) {
      throw notFound(REVIEW_LINK_GONE);
    }
    const ws = await this.deps.review.settings(link.value.workspace_id);
    if (ws?.status !== "active") throw notFound(REVIEW_LINK_GONE);
    const post = await store.getPost(link.value.workspace_id, link.value.post_id);
    if (!post) throw notFound(REVIEW_LINK_GONE);
    const content = await posts.read(post);
    if (approvalKey(textFingerprintSync(content.content), post) !== link.value.content) {
      await store.reviewLinks.outdate(link as Deno.KvEntry<ReviewLinkRecord>);
      throw notFound(REVIEW_LINK_GONE);
    }
    return { link: link as Deno.KvEntry<ReviewLinkRecord>, post, content, ws };
  }
}
