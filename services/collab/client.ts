import { InternalClient } from "../../shared/service/internal_client.ts";
import type { ServiceDirectory } from "../../shared/service/service_directory.ts";
import {
  type CommentEvent,
  contentSchema,
  contentsSchema,
  type DocStats,
  docStatsSchema,
  fingerprintsSchema,
} from "./schemas.ts";

export type { CommentEvent, DocStats };

const enc = encodeURIComponent;

/**
 * The typed client the posts service (and genai, mcp through posts) uses to reach collab's
 * `/internal/docs` routes: collab's live document is the one source of truth for a post's text
 * once it has one.
 */
export class CollabClient {
  readonly #client: InternalClient;

  constructor(directory: ServiceDirectory, secret: string) {
    this.#client = new InternalClient("collab", directory.handler("collab"), secret);
  }

  /**
   * Replaces the post's text as one Yjs update (creating the document when absent); resolves
   * once it is stored and sent to every connected editor.
   */
  async setContent(postId: string, workspaceId: string, content: string): Promise<void> {
    await this.#client.send("PUT", `/internal/docs/${enc(postId)}/content`, {
      body: { workspace_id: workspaceId, content },
      passOn: [400],
    });
  }

  /** The post's live text, or null when it has no document. */
  async getContent(postId: string): Promise<string | null> {
    const found = await this.#client.json(
      contentSchema,
      "GET",
      `/internal/docs/${enc(postId)}/content`,
    );
    return found?.content ?? null;
  }

  /** The live texts of the posts that have a document (ids without one are absent). */
  async getContents(postIds: string[]): Promise<Record<string, string>> {
    if (postIds.length === 0) return {};
    const out: Record<string, string> = {};
    for (let i = 0; i < postIds.length; i += 10_000) {
      const found = await this.#client.json(contentsSchema, "POST", "/internal/docs/contents", {
        body: { post_ids: postIds.slice(i, i + 10_000) },
      });
      Object.assign(out, found?.contents ?? {});
    }
    return out;
  }

  /**
   * The SHA-256 (hex) of the live texts of the posts that have a document, in one call (ids
   * without one are absent).
   */
  async fingerprints(postIds: string[]): Promise<Record<string, string>> {
    if (postIds.length === 0) return {};
    const out: Record<string, string> = {};
    for (let i = 0; i < postIds.length; i += 10_000) {
      const found = await this.#client.json(
        fingerprintsSchema,
        "POST",
        "/internal/docs/fingerprints",
        { body: { post_ids: postIds.slice(i, i + 10_000) } },
      );
      Object.assign(out, found?.fingerprints ?? {});
    }
    return out;
  }

  /** Tells collab the workspace of each post: a socket opens only for a post's workspace. */
  async setWorkspaces(docs: { post_id: string; workspace_id: string }[]): Promise<void> {
    for (let i = 0; i < docs.length; i += 10_000) {
      await this.#client.send("POST", "/internal/docs/workspaces", {
        body: { docs: docs.slice(i, i + 10_000) },
      });
    }
  }

  /** Closes the post's sockets and removes its document (no error when it had none). */
  async deleteDoc(postId: string): Promise<void> {
    await this.#client.send("DELETE", `/internal/docs/${enc(postId)}`, { passOn: [400] });
  }

  /**
   * Sends `message` as a JSON text frame to every socket open on the post (the comment
   * events). Best effort: sockets that are gone are skipped.
   */
  async broadcast(postId: string, message: CommentEvent | Record<string, unknown>): Promise<void> {
    await this.#client.send("POST", `/internal/docs/${enc(postId)}/broadcast`, {
      body: { message },
      passOn: [400],
    });
  }

  /** How the document is stored (sequence, snapshot, compactions) and its open sockets. */
  stats(postId: string): Promise<DocStats | null> {
    return this.#client.json(docStatsSchema, "GET", `/internal/docs/${enc(postId)}/stats`);
  }
}
