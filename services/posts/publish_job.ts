import { newId } from "../../shared/crypto/ids.ts";
import type { Logger } from "../../shared/log.ts";
import type { ServiceQueue } from "../../shared/queue/queue.ts";
import { nowIso } from "../../shared/time.ts";
import type { LinkedInConfig } from "./config.ts";
import type { PostsJob } from "./jobs.ts";
import { linkedinPublicationKey } from "./keys.ts";
import type { LinkedInApi } from "./linkedin.ts";
import type { LinkedInConnections } from "./linkedin_connections.ts";
import type { PostOperations } from "./operations.ts";
import { PUBLISH_MESSAGES } from "./publish_rules.ts";
import {
  approvedExtrasMatch,
  extrasFingerprint,
  type ReviewOperations,
  textFingerprint,
} from "./review.ts";
import { linkedInMessage, type LinkedInRefusal } from "./linkedin.ts";
import type { MediaPublisher } from "./publish_media.ts";
import { versionOf } from "./version_snapshot.ts";
import type { PostsStore, StoredPost } from "./store.ts";
import type { TokenCipher } from "./token_crypto.ts";

/** Retries of 429 and 5xx stop this long after the first try of a schedule. */
const RETRY_WINDOW_MS = 60 * 60 * 1000;

export interface PublishJobDeps {
  store: PostsStore;
  posts: PostOperations;
  review: ReviewOperations;
  queue: ServiceQueue<PostsJob>;
  linkedin: LinkedInApi;
  connections: LinkedInConnections;
  cipher: TokenCipher;
  config: LinkedInConfig;
  logger: Logger;
  mediaPublisher: MediaPublisher;
}

/**
 * The `publish` job: publishes a scheduled post on LinkedIn at most once, and only what was
 * approved. Kept in the posts service: the publish attempt must be recorded in the same atomic
 * commit as the post it publishes, and the post's status, schedule and approval live here.
 */
export class PublishJob {
  constructor(private readonly deps: PublishJobDeps) {}

  /**
   * The `publish` job. The media go up first (uploads may be retried: nothing is posted yet);
   * then at most once: the attempt is recorded before the post is created, and a run that
   * finds an attempt recorded (its process died mid-call, or the handler was retried) never
   * calls again and reports the outcome as unknown.
   */
  async run(job: { post_id: string; workspace_id: string; schedule_id: string }) {
    const { store, posts, linkedin, cipher, logger, connections } = this.deps;
    const { post_id: postId, workspace_id: workspaceId } = job;
    const stored = await store.getStored(workspaceId, postId);
    if (!stored || stored.status !== "scheduled" || stored.schedule_id !== job.schedule_id) return;
    if (stored.publish_attempt) {
      await this.#fail(workspaceId, postId, job.schedule_id, PUBLISH_MESSAGES.unknownOutcome);
      return;
    }
    const connection = await connections.active(workspaceId);
    if (!connection) {
      await this.#fail(workspaceId, postId, job.schedule_id, PUBLISH_MESSAGES.notConnected);
      return;
    }
    const author = connections.authorUrn(connection, stored.publish_as ?? "member");
    if (!author) {
      await this.#fail(workspaceId, postId, job.schedule_id, PUBLISH_MESSAGES.notAnAdmin);
      return;
    }
    const token = await cipher.decrypt(connection.token, workspaceId);
    const uploaded = await this.deps.mediaPublisher.upload(token, author, stored);
    if ("failure" in uploaded) {
      const { failure } = uploaded;
      if (failure.kind === "problem") {
        await this.#fail(workspaceId, postId, job.schedule_id, failure.message);
      } else if (failure.kind === "unknown") {
        // An upload that got no answer posted nothing: try again later.
        await this.#retryLater(job, null, { status: 503, retryAfterSeconds: null }, failure.error);
      } else {
        await this.#refused(job, null, failure.refusal, `the upload of ${failure.filename}`);
      }
      return;
    }
    const mediaSent = extrasFingerprint(stored);
    const attemptId = newId();
    let mediaChanged = false;
    const recorded = await store.modifyPost(workspaceId, postId, (current, op) => {
      if (current.schedule_id !== job.schedule_id || current.status !== "scheduled") return null;
      if (current.publish_attempt) return null;
      if (extrasFingerprint(current) !== mediaSent) {
        // The media changed while they went up: upload what the post holds now.
        mediaChanged = true;
        this.deps.queue.enqueue(op, { type: "publish", ...job });
        return { ...current };
      }
      return {
        ...current,
        publish_attempt: {
          attempt_id: attemptId,
          schedule_id: job.schedule_id,
          started_at: nowIso(),
        },
        publish_first_try: current.publish_first_try ?? nowIso(),
      };
    });
    if (!recorded?.changed || mediaChanged) return;
    // What is sent is fingerprinted after the attempt is recorded: from here on the text read
    // is exactly what LinkedIn receives, and it (with the media and first comment) must be
    // what was approved.
    const text = (await posts.read(recorded.after)).content;
    const refusal = await this.#unapproved(recorded.after, text);
    if (refusal) {
      await this.#refuseUnapproved(workspaceId, postId, attemptId, refusal);
      return;
    }
    const outcome = await linkedin.createPost(token, author, text, uploaded.content);
    if (outcome.kind === "created") {
      await this.#published(
        workspaceId,
        postId,
        attemptId,
        outcome.urn,
        text,
        { text: recorded.after.first_comment ?? "", actor: author },
        // What went out, as the published version records it: a change made during the call
        // is on the post but was not published.
        { ...recorded.after, publish_as: stored.publish_as },
      );
      return;
    }
    if (outcome.kind === "unknown") {
      logger.warn("LinkedIn publish outcome unknown", { post_id: postId, error: outcome.error });
      await this.#fail(workspaceId, postId, job.schedule_id, PUBLISH_MESSAGES.unknownOutcome);
      return;
    }
    await this.#refused(job, attemptId, outcome, "the post");
  }

  /**
   * LinkedIn refused `what` (the post, or a media upload before it): 429 and 5xx are retried
   * with backoff for an hour, 401 marks the connection expired, 426 names LINKEDIN_VERSION,
   * anything else ends the schedule with LinkedIn's message.
   */
  async #refused(
    job: { post_id: string; workspace_id: string; schedule_id: string },
    attemptId: string | null,
    outcome: LinkedInRefusal,
    what: string,
  ): Promise<void> {
    const { logger, config } = this.deps;
    const { status } = outcome;
    if (status === 429 || status >= 500) {
      await this.#retryLater(job, attemptId, outcome, `LinkedIn answered ${status}`);
      return;
    }
    let message: string;
    if (status === 401) {
      await this.deps.connections.markExpired(job.workspace_id);
      message = "LinkedIn refused the connection (401); connect LinkedIn again in the workspace " +
        "settings";
    } else if (status === 426) {
      message = `LinkedIn no longer accepts LinkedIn-Version ${config.version} (426); ` +
        "set LINKEDIN_VERSION to a current version (YYYYMM)";
      logger.error("LinkedIn refused the configured LINKEDIN_VERSION", {
        version: config.version,
        post_id: job.post_id,
      });
    } else {
      const said = outcome.body ? `: ${linkedInMessage(outcome.body)}` : "";
      message = what === "the post"
        ? `LinkedIn refused the post (${status})${said}`
        : `LinkedIn refused ${what} (${status})${said}`;
    }
    await this.#fail(job.workspace_id, job.post_id, job.schedule_id, message);
  }

  /** Known not posted: clears the attempt (if any) and runs the job again after a backoff. */
  async #retryLater(
    job: { post_id: string; workspace_id: string; schedule_id: string },
    attemptId: string | null,
    outcome: { status: number; retryAfterSeconds: number | null },
    reason: string,
  ): Promise<void> {
    const { store, logger } = this.deps;
    const { workspace_id: workspaceId, post_id: postId } = job;
    const current = await store.getStored(workspaceId, postId);
    if (!current) return;
    const first = Date.parse(current.publish_first_try ?? nowIso());
    const retries = (current.publish_retries ?? 0) + 1;
    const backoff = outcome.retryAfterSeconds !== null
      ? outcome.retryAfterSeconds * 1000
      : Math.min(5_000 * 2 ** (retries - 1), 10 * 60_000);
    if (Date.now() + backoff - first > RETRY_WINDOW_MS) {
      await this.#fail(
        workspaceId,
        postId,
        job.schedule_id,
        `LinkedIn kept answering ${outcome.status} for an hour; try again later`,
      );
      return;
    }
    await store.modifyPost(workspaceId, postId, (now, op) => {
      if (now.schedule_id !== job.schedule_id || now.status !== "scheduled") return null;
      if ((now.publish_attempt?.attempt_id ?? null) !== attemptId) return null;
      this.deps.queue.enqueue(op, { type: "publish", ...job }, { delay: backoff });
      return {
        ...now,
        publish_attempt: null,
        publish_retries: retries,
        publish_first_try: now.publish_first_try ?? nowIso(),
      };
    });
    await this.#recheckApproval(workspaceId, postId);
    logger.info("LinkedIn asked to retry the publication later", {
      post_id: postId,
      reason,
      retry_in_ms: backoff,
    });
  }

  /**
   * Why `text` must not go out for `post`, or null: it is not the text the approval covers, or
   * the workspace requires approval and nothing approved it.
   */
  async #unapproved(post: StoredPost, text: string): Promise<string | null> {
    if (post.approved_fingerprint) {
      const same = await textFingerprint(text) === post.approved_fingerprint &&
        approvedExtrasMatch(post);
      return same ? null : PUBLISH_MESSAGES.changedSinceApproval;
    }
    const required = (await this.deps.review.settings(post.workspace_id))?.approval_required;
    return required ? PUBLISH_MESSAGES.notApproved : null;
  }

  /**
   * Ends the attempt `attemptId` without calling LinkedIn: what would go out is not what was
   * approved. The post goes back to review (the voiding recorded, reviewers asked again), with
   * `error`; the author and the scheduler get `publish_failed`.
   */
  async #refuseUnapproved(workspaceId: string, postId: string, attemptId: string, error: string) {
    const { store, review } = this.deps;
    const before = await store.getStored(workspaceId, postId);
    if (!before) return;
    const { emails, approverName } = await review.sendBackInputs(before);
    const notified = await review.emails(
      [before.author_id, before.scheduled_by].filter((v): v is string => !!v),
    );
    const now = nowIso();
    await store.modifyPost(workspaceId, postId, (current, op) => {
      if (current.publish_attempt?.attempt_id !== attemptId) return null;
      const next: StoredPost = current.approved_fingerprint
        ? review.sendBackToReview(op, current, emails, approverName, now)
        : { ...current, status: "in_review", updated_at: now };
      this.#tellPublishFailed(op, current, notified, error);
      return {
        ...next,
        scheduled_at: null,
        schedule_id: null,
        publish_attempt: null,
        publish_error: error,
      };
    });
    this.deps.logger.warn("publishing refused: not the approved text", { post_id: postId, error });
  }

  /**
   * Records the publication; a first comment (the approved one) is posted by the
   * `first_comment` job enqueued in the same commit.
   */
  async #published(
    workspaceId: string,
    postId: string,
    attemptId: string,
    urn: string,
    text: string,
    firstComment: { text: string; actor: string },
    sent: StoredPost,
  ) {
    const { store, review } = this.deps;
    const before = await store.getStored(workspaceId, postId);
    const emails = await review.emails(
      [before?.author_id, before?.scheduled_by].filter((v): v is string => !!v),
    );
    const now = nowIso();
    const linkedinUrl = `https://www.linkedin.com/feed/update/${urn}/`;
    await store.modifyPost(workspaceId, postId, (current, op) => {
      if (current.publish_attempt?.attempt_id !== attemptId) return null;
      op.set(linkedinPublicationKey(now, postId), workspaceId);
      store.versions.add(
        op,
        versionOf(sent, text, "published", {
          id: current.scheduled_by ?? current.author_id,
          name: current.scheduled_by_name ?? current.author_name,
        }),
      );
      if (firstComment.text.trim()) {
        this.deps.queue.enqueue(op, {
          type: "first_comment",
          post_id: postId,
          workspace_id: workspaceId,
          ...firstComment,
        });
      }
      review.dm(
        op,
        [current.author_id, current.scheduled_by ?? undefined].map((id) =>
          id ? emails.get(id) : undefined
        ),
        "post_published",
        {
          post_title: current.title || "Untitled post",
          linkedin_post_url: linkedinUrl,
          url: review.postUrl(workspaceId, postId),
        },
      );
      return {
        ...current,
        status: "published",
        published_at: now,
        linkedin_post_urn: urn,
        linkedin_post_url: linkedinUrl,
        publish_error: null,
        first_comment_error: null,
        linkedin_first_comment_urn: null,
        publish_attempt: null,
        schedule_id: null,
        updated_at: now,
      };
    });
    this.deps.logger.info("post published on LinkedIn", { post_id: postId, urn });
  }

  /** Adds `publish_failed` DMs to the post's author and scheduler to the commit `op`. */
  #tellPublishFailed(
    op: Deno.AtomicOperation,
    post: StoredPost,
    emails: Map<string, string>,
    error: string,
  ): void {
    const { review } = this.deps;
    review.dm(
      op,
      [post.author_id, post.scheduled_by ?? undefined].map((id) => id ? emails.get(id) : undefined),
      "publish_failed",
      {
        post_title: post.title || "Untitled post",
        error,
        url: review.postUrl(post.workspace_id, post.post_id),
      },
    );
  }

  /** Ends a schedule with `error`: back to approved (or draft), `publish_failed` DMs. */
  async #fail(workspaceId: string, postId: string, scheduleId: string, error: string) {
    const { store, review } = this.deps;
    const approvalRequired = (await review.settings(workspaceId))?.approval_required ?? false;
    const before = await store.getStored(workspaceId, postId);
    const emails = await review.emails(
      [before?.author_id, before?.scheduled_by].filter((v): v is string => !!v),
    );
    await store.modifyPost(workspaceId, postId, (current, op) => {
      if (current.schedule_id !== scheduleId) return null;
      this.#tellPublishFailed(op, current, emails, error);
      return {
        ...current,
        status: approvalRequired || current.approved_by ? "approved" : "draft",
        scheduled_at: null,
        schedule_id: null,
        publish_attempt: null,
        publish_error: error,
        updated_at: nowIso(),
      };
    });
    await this.#recheckApproval(workspaceId, postId);
    this.deps.logger.warn("publishing failed", { post_id: postId, error });
  }

  /**
   * A change made while a call to LinkedIn was in flight left the approval alone (the approved
   * post was what LinkedIn was receiving); once the attempt is over without a publication, it
   * voids the approval like any change.
   */
  async #recheckApproval(workspaceId: string, postId: string): Promise<void> {
    const { store, posts, review } = this.deps;
    const record = await store.getPost(workspaceId, postId);
    if (!record) return;
    await review.contentChanged(workspaceId, postId, (await posts.read(record)).content);
  }
}
