import { newId } from "../../shared/crypto/ids.ts";
import type { Logger } from "../../shared/log.ts";
import type { ServiceQueue } from "../../shared/queue/queue.ts";
import { nowIso } from "../../shared/time.ts";
import type { PostsJob } from "./jobs.ts";
import { type LinkedInApi, linkedInMessage } from "./linkedin.ts";
import type { LinkedInConnections } from "./linkedin_connections.ts";
import { PUBLISH_MESSAGES } from "./publish_rules.ts";
import type { ReviewOperations } from "./review.ts";
import type { PostsStore } from "./store.ts";
import type { TokenCipher } from "./token_crypto.ts";

/** 429 and 5xx answers to the first comment are retried this many times. */
const COMMENT_RETRIES = 5;

export type FirstCommentJob = Extract<PostsJob, { type: "first_comment" }>;

/**
 * The `first_comment` job: posts a published post's approved first comment once, right after
 * the post, through LinkedIn's comments API. At most once, as the post: the attempt is recorded
 * before the call, and a run that finds one recorded reports the outcome as unknown. A failure
 * keeps the post published: it sets `first_comment_error` and sends `publish_failed` naming
 * the part (`data.part: "first_comment"`).
 */
export class FirstCommentPublisher {
  constructor(
    private readonly deps: {
      store: PostsStore;
      review: ReviewOperations;
      queue: ServiceQueue<PostsJob>;
      linkedin: LinkedInApi;
      connections: LinkedInConnections;
      cipher: TokenCipher;
      logger: Logger;
    },
  ) {}

  async run(job: FirstCommentJob): Promise<void> {
    const { store, linkedin, connections, cipher, logger } = this.deps;
    const { workspace_id: workspaceId, post_id: postId } = job;
    const post = await store.getStored(workspaceId, postId);
    if (!post || post.status !== "published" || !post.linkedin_post_urn) return;
    if (post.linkedin_first_comment_urn) return;
    if (post.first_comment_attempt) {
      await this.#failed(job, post.first_comment_attempt, PUBLISH_MESSAGES.commentUnknown);
      return;
    }
    const connection = await connections.active(workspaceId);
    if (!connection) {
      await this.#failed(job, null, PUBLISH_MESSAGES.notConnected);
      return;
    }
    const attemptId = newId();
    const recorded = await store.modifyPost(workspaceId, postId, (current) => {
      if (current.first_comment_attempt || current.linkedin_first_comment_urn) return null;
      return { ...current, first_comment_attempt: attemptId };
    });
    if (!recorded?.changed) return;
    const token = await cipher.decrypt(connection.token, workspaceId);
    const outcome = await linkedin.createComment(
      token,
      post.linkedin_post_urn,
      job.actor,
      job.text,
    );
    if (outcome.kind === "created") {
      await store.modifyPost(workspaceId, postId, (current) => {
        if (current.first_comment_attempt !== attemptId) return null;
        return {
          ...current,
          first_comment_attempt: null,
          linkedin_first_comment_urn: outcome.urn,
          first_comment_error: null,
        };
      });
      logger.info("first comment posted on LinkedIn", { post_id: postId, urn: outcome.urn });
      return;
    }
    if (outcome.kind === "unknown") {
      await this.#failed(job, attemptId, PUBLISH_MESSAGES.commentUnknown);
      return;
    }
    const { status } = outcome;
    const retries = (recorded.after.first_comment_retries ?? 0) + 1;
    if ((status === 429 || status >= 500) && retries <= COMMENT_RETRIES) {
      const backoff = outcome.retryAfterSeconds !== null
        ? outcome.retryAfterSeconds * 1000
        : 5_000 * 2 ** (retries - 1);
      await store.modifyPost(workspaceId, postId, (current, op) => {
        if (current.first_comment_attempt !== attemptId) return null;
        this.deps.queue.enqueue(op, job, { delay: backoff });
        return { ...current, first_comment_attempt: null, first_comment_retries: retries };
      });
      return;
    }
    if (status === 401) await connections.markExpired(workspaceId);
    const said = outcome.body ? `: ${linkedInMessage(outcome.body)}` : "";
    await this.#failed(job, attemptId, `LinkedIn refused the first comment (${status})${said}`);
  }

  /** Ends the first comment with `error`; the post stays published; `publish_failed` DMs. */
  async #failed(job: FirstCommentJob, attemptId: string | null, error: string): Promise<void> {
    const { store, review, logger } = this.deps;
    const { workspace_id: workspaceId, post_id: postId } = job;
    const before = await store.getStored(workspaceId, postId);
    if (!before) return;
    const emails = await review.emails(
      [before.author_id, before.scheduled_by].filter((v): v is string => !!v),
    );
    await store.modifyPost(workspaceId, postId, (current, op) => {
      if ((current.first_comment_attempt ?? null) !== attemptId) return null;
      review.dm(
        op,
        [current.author_id, current.scheduled_by ?? undefined].map((id) =>
          id ? emails.get(id) : undefined
        ),
        "publish_failed",
        {
          post_title: current.title || "Untitled post",
          error,
          part: "first_comment",
          url: review.postUrl(workspaceId, postId),
        },
      );
      return {
        ...current,
        first_comment_attempt: null,
        first_comment_error: error,
        updated_at: nowIso(),
      };
    });
    logger.warn("first comment failed", { post_id: postId, error });
  }
}
