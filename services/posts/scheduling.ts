import { AppError, conflict, forbidden, notFound } from "../../shared/http/app_error.ts";
import type { Caller } from "../../shared/http/identity.ts";
import { newId } from "../../shared/crypto/ids.ts";
import type { Logger } from "../../shared/log.ts";
import type { ServiceQueue } from "../../shared/queue/queue.ts";
import { nowIso, toIso } from "../../shared/time.ts";
import type { WorkspacesClient } from "../workspaces/client.ts";
import type { PostsJob } from "./jobs.ts";
import type { LinkedInConnections } from "./linkedin_connections.ts";
import type { PostOperations } from "./operations.ts";
import { canPublish, PUBLISH_MESSAGES } from "./publish_rules.ts";
import type { ReviewOperations } from "./review.ts";
import { type Post, POST_NOT_FOUND } from "./schemas.ts";
import { nextFreeSlot } from "./slots.ts";
import type { PostsStore, StoredPost } from "./store.ts";

export interface SchedulingDeps {
  store: PostsStore;
  posts: PostOperations;
  review: ReviewOperations;
  workspaces: WorkspacesClient;
  queue: ServiceQueue<PostsJob>;
  connections: LinkedInConnections;
  logger: Logger;
}

/**
 * Scheduling on the workspace's publishing slots: each schedule enqueues one publish job in the
 * same commit that records it (publish_job.ts runs it), and a restored keyspace never publishes
 * twice.
 */
export class Scheduling {
  constructor(private readonly deps: SchedulingDeps) {}

  /**
   * Schedules the post at `at`, or (null) in the next publishing slot no other scheduled post
   * of the workspace holds; `now` publishes at once (`POST .../publish`).
   */
  async schedule(
    caller: Caller,
    workspaceId: string,
    postId: string,
    at: string | null | undefined,
    now = false,
  ): Promise<Post> {
    const { posts, store, review, queue } = this.deps;
    await this.#requirePublisher(caller, workspaceId);
    const post = await posts.require(workspaceId, postId);
    const ws = await review.settings(workspaceId);
    const approvalRequired = ws?.approval_required ?? false;
    if (post.status === "published") throw conflict(PUBLISH_MESSAGES.alreadyPublished);
    if (approvalRequired && post.status !== "approved" && post.status !== "scheduled") {
      throw conflict(PUBLISH_MESSAGES.notApproved);
    }
    if (!await this.deps.connections.active(workspaceId)) {
      throw conflict(PUBLISH_MESSAGES.notConnected);
    }
    let when: number;
    if (now) {
      when = Date.now();
    } else if (at) {
      when = Date.parse(at);
      if (!(when > Date.now())) throw new AppError(400, PUBLISH_MESSAGES.notFuture);
    } else {
      const taken = new Set(
        (await store.listPosts(workspaceId))
          .filter((p) => p.status === "scheduled" && p.post_id !== postId && p.scheduled_at)
          .map((p) => Date.parse(p.scheduled_at!)),
      );
      const slot = nextFreeSlot(
        ws?.publishing_slots ?? [],
        ws?.timezone ?? "UTC",
        Date.now(),
        taken,
      );
      if (slot === null) throw new AppError(400, PUBLISH_MESSAGES.noSlots);
      when = slot;
    }
    const scheduleId = newId();
    const result = await store.modifyPost(workspaceId, postId, (current, op) => {
      if (current.publish_attempt) throw conflict(PUBLISH_MESSAGES.publishing);
      if (current.status === "published") throw conflict(PUBLISH_MESSAGES.alreadyPublished);
      if (approvalRequired && current.status !== "approved" && current.status !== "scheduled") {
        throw conflict(PUBLISH_MESSAGES.notApproved);
      }
      const next: StoredPost = {
        ...current,
        status: "scheduled",
        scheduled_at: toIso(new Date(when)),
        schedule_id: scheduleId,
        scheduled_by: caller.user_id,
        scheduled_by_name: caller.name || caller.email,
        publish_error: null,
        publish_attempt: null,
        publish_first_try: null,
        publish_retries: 0,
        updated_at: nowIso(),
      };
      queue.enqueue(op, {
        type: "publish",
        post_id: postId,
        workspace_id: workspaceId,
        schedule_id: scheduleId,
      }, { delay: Math.max(0, when - Date.now()) });
      return next;
    });
    if (!result) throw notFound(POST_NOT_FOUND);
    return await posts.read(result.after);
  }

  async unschedule(caller: Caller, workspaceId: string, postId: string): Promise<Post> {
    const { posts, store, review } = this.deps;
    await this.#requirePublisher(caller, workspaceId);
    await posts.require(workspaceId, postId);
    const approvalRequired = (await review.settings(workspaceId))?.approval_required ?? false;
    const result = await store.modifyPost(workspaceId, postId, (current) => {
      if (current.status !== "scheduled") throw conflict(PUBLISH_MESSAGES.notScheduled);
      if (current.publish_attempt) throw conflict(PUBLISH_MESSAGES.publishing);
      return {
        ...current,
        status: approvalRequired ? "approved" : "draft",
        scheduled_at: null,
        schedule_id: null,
        updated_at: nowIso(),
      };
    });
    if (!result) throw notFound(POST_NOT_FOUND);
    return await posts.read(result.after);
  }

  /** 403 unless the caller is the workspace's owner or an editor (membership first). */
  async #requirePublisher(caller: Caller, workspaceId: string): Promise<void> {
    const m = await this.deps.workspaces.requireMember(workspaceId, caller.user_id);
    if (!canPublish(m.role)) throw forbidden(PUBLISH_MESSAGES.editorRole);
  }

  /**
   * A restored keyspace never publishes twice: a post restored `scheduled` at a time before the
   * restore (`restoredAt`) may have gone out since the backup was taken, so it comes back
   * unscheduled (approved, or draft) with a `publish_error` that says to check LinkedIn. A post
   * scheduled later gets a fresh publish job (the queue is this deployment's, not the archive's);
   * any job of its old schedule is dropped as stale. Answers how many posts were unscheduled.
   */
  async afterRestore(restoredAt: number): Promise<number> {
    const { store, review, queue } = this.deps;
    const approvalRequired = new Map<string, boolean>();
    let unscheduled = 0;
    for (const post of await store.listScheduled()) {
      const workspaceId = post.workspace_id;
      const at = Date.parse(post.scheduled_at ?? "");
      if (Number.isNaN(at)) continue;
      if (at >= restoredAt && !post.publish_attempt) {
        const scheduleId = newId();
        await store.modifyPost(workspaceId, post.post_id, (current, op) => {
          if (current.status !== "scheduled" || current.scheduled_at !== post.scheduled_at) {
            return null;
          }
          queue.enqueue(op, {
            type: "publish",
            post_id: post.post_id,
            workspace_id: workspaceId,
            schedule_id: scheduleId,
          }, { delay: Math.max(0, at - Date.now()) });
          return { ...current, schedule_id: scheduleId, publish_retries: 0 };
        });
        continue;
      }
      if (!approvalRequired.has(workspaceId)) {
        const ws = await review.settings(workspaceId).catch(() => null);
        approvalRequired.set(workspaceId, ws?.approval_required ?? false);
      }
      const result = await store.modifyPost(workspaceId, post.post_id, (current) => {
        if (current.status !== "scheduled") return null;
        return {
          ...current,
          status: approvalRequired.get(workspaceId) || current.approved_by ? "approved" : "draft",
          scheduled_at: null,
          schedule_id: null,
          publish_attempt: null,
          publish_error: PUBLISH_MESSAGES.restored,
          updated_at: nowIso(),
        };
      });
      if (result?.changed) unscheduled++;
    }
    if (unscheduled > 0) {
      this.deps.logger.warn("restored posts whose schedule had passed were unscheduled", {
        posts: unscheduled,
      });
    }
    return unscheduled;
  }
}
