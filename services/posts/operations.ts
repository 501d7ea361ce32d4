import { conflict, notFound } from "../../shared/http/app_error.ts";
import { newId } from "../../shared/crypto/ids.ts";
import { errorMessage, type Logger } from "../../shared/log.ts";
import type { ServiceQueue } from "../../shared/queue/queue.ts";
import { nowIso } from "../../shared/time.ts";
import type { IdeasClient } from "../ideas/client.ts";
import type { PostsJob } from "./jobs.ts";
import type { LiveDocs } from "./live_docs.ts";
import { IDEA_NOT_FOUND, type Post, POST_NOT_FOUND, type PostRecord } from "./schemas.ts";
import { type PostsStore, type PostUpdate, type StoredPost, withContent } from "./store.ts";

export interface NewPost {
  workspace_id: string;
  title?: string;
  content?: string;
  tags?: string[];
  source_idea_id?: string | null;
  author_id: string;
  author_name: string;
}

/**
 * What the REST routes and the peers' routes share: creating a post (and converting its idea),
 * changing it with its live text kept the one source of truth, reading it with that text, and
 * deleting it with everything that hangs on it.
 */
export class PostOperations {
  /**
   * Called after a new text is stored (REST, MCP, AI): the review rules send an approved post
   * whose text changed back to review, and answer it then. `actorId` made the change.
   */
  afterTextChange?: (postId: string, content: string, actorId?: string) => Promise<Post | null>;

  constructor(
    private readonly deps: {
      store: PostsStore;
      liveDocs: LiveDocs;
      ideas: IdeasClient;
      queue: ServiceQueue<PostsJob>;
      logger: Logger;
    },
  ) {}

  /**
   * Creates a post. With `source_idea_id` the idea must exist in the workspace and be `new`
   * (404 `Idea not found`, 409 the transition message); the post is stored first and the idea
   * converted after, and a failed conversion removes the post again, so the idea never points
   * to a post that does not exist. `ideaChecked`: the caller has just read the idea and found it
   * `new` (MCP generate_post), so it is not read again; the conversion still refuses one that
   * changed since.
   */
  async create(input: NewPost, options: { ideaChecked?: boolean } = {}): Promise<Post> {
    const { store, liveDocs, ideas, logger } = this.deps;
    const ideaId = input.source_idea_id?.trim() || null;
    if (ideaId && !options.ideaChecked) {
      const idea = await ideas.getIdea(ideaId, input.workspace_id);
      if (!idea) throw notFound(IDEA_NOT_FOUND);
      if (idea.status !== "new") {
        throw conflict(`Transition from '${idea.status}' to 'converted' is not allowed`);
      }
    }
    const now = nowIso();
    const content = input.content ?? "";
    const record: PostRecord = {
      post_id: newId(),
      workspace_id: input.workspace_id,
      title: input.title ?? "",
      status: "draft",
      author_id: input.author_id,
      author_name: input.author_name,
      source_idea_id: ideaId,
      tags: input.tags ?? [],
      scheduled_at: null,
      published_at: null,
      created_at: now,
      updated_at: now,
      reviewer_ids: [],
      approved_by: null,
      approved_at: null,
      linkedin_post_urn: null,
      linkedin_post_url: null,
      publish_error: null,
      media: [],
      first_comment: null,
      publish_as: "member",
      linkedin_first_comment_urn: null,
      first_comment_error: null,
    };
    await store.createPost(record, content);
    if (ideaId) {
      try {
        await ideas.convert(ideaId, record.post_id, input.workspace_id);
      } catch (err) {
        await this.delete(record.workspace_id, record.post_id).catch((cleanup) =>
          logger.error("could not remove a post whose idea conversion failed", {
            post_id: record.post_id,
            error: errorMessage(cleanup),
          })
        );
        throw err;
      }
    }
    try {
      // Collab learns the post's workspace (a socket opens only for it) with the first text.
      if (content) await liveDocs.setContent(record.post_id, record.workspace_id, content);
      else {
        await liveDocs.setWorkspaces([{
          post_id: record.post_id,
          workspace_id: record.workspace_id,
        }]);
      }
    } catch (err) {
      // The stored copy holds the text; reads fall back to it while there is no document. The
      // workspace is told again when this service next starts.
      logger.warn("could not seed the live document of a new post", {
        post_id: record.post_id,
        error: errorMessage(err),
      });
    }
    return withContent(record, content);
  }

  /** The posts with their current text: the live document's, else the stored copy. */
  async withLiveContent(records: PostRecord[]): Promise<Post[]> {
    const { store, liveDocs, logger } = this.deps;
    let live = new Map<string, string>();
    if (records.length > 0 && liveDocs.available()) {
      try {
        live = await liveDocs.getContents(records.map((r) => r.post_id));
      } catch (err) {
        logger.warn("could not read live documents; answering the stored text", {
          error: errorMessage(err),
        });
      }
    }
    return await Promise.all(
      records.map(async (record) =>
        withContent(record, live.get(record.post_id) ?? await store.storedContent(record.post_id))
      ),
    );
  }

  async read(record: PostRecord): Promise<Post> {
    return (await this.withLiveContent([record]))[0];
  }

  /**
   * Applies `update`. A new text goes to the live document first (so every connected editor
   * gets it at once, and a collab failure changes nothing), then to the stored copy. `guard`
   * checks the post inside the commit; `actorId` is who changes it (when a person does).
   */
  async update(
    workspaceId: string,
    postId: string,
    update: PostUpdate,
    { guard, actorId }: {
      guard?: (current: PostRecord, stored: StoredPost) => void;
      actorId?: string;
    } = {},
  ): Promise<Post> {
    const { store, liveDocs } = this.deps;
    if (update.content !== undefined) {
      await liveDocs.setContent(postId, workspaceId, update.content);
    }
    const result = await store.updatePost(workspaceId, postId, update, nowIso(), guard);
    if (!result) {
      // Deleted meanwhile: the document just written must not outlive it.
      if (update.content !== undefined) await liveDocs.deleteDoc(postId).catch(() => {});
      throw notFound(POST_NOT_FOUND);
    }
    if (update.content !== undefined) {
      const sentBack = await this.afterTextChange?.(postId, update.content, actorId);
      return sentBack ?? withContent(result.after, update.content);
    }
    return await this.read(result.after);
  }

  /** Removes the post; its comments, live document and media go with the `purge_post` job. */
  async delete(workspaceId: string, postId: string): Promise<PostRecord | null> {
    const { store, queue, liveDocs, logger } = this.deps;
    const deleted = await store.deletePost(workspaceId, postId, (op) => {
      queue.enqueue(op, { type: "purge_post", post_id: postId, workspace_id: workspaceId });
    });
    // No socket opens on a deleted post from now on; the queued purge removes it again if this
    // call fails.
    if (deleted) {
      await liveDocs.deleteDoc(postId).catch((err) =>
        logger.warn("could not remove the live document of a deleted post yet", {
          post_id: postId,
          error: errorMessage(err),
        })
      );
    }
    return deleted;
  }

  /** 404 `Post not found` unless the post is in that workspace. */
  async require(workspaceId: string, postId: string): Promise<PostRecord> {
    const post = await this.deps.store.getPost(workspaceId, postId);
    if (!post) throw notFound(POST_NOT_FOUND);
    return post;
  }
}
