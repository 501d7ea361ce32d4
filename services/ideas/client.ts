import { z } from "zod";
import { InternalClient, type PassedOnStatus } from "../../shared/service/internal_client.ts";
import { ideaSchema } from "./schemas.ts";
import type { ServiceDirectory } from "../../shared/service/service_directory.ts";

/** An idea as peers see it: the schema the ideas routes answer with. */
export const ideaRecordSchema = ideaSchema;
export type IdeaRecord = z.infer<typeof ideaRecordSchema>;

/** The ideas service's refusals (bad input, unknown idea, a transition it does not allow). */
const PASSED_ON: readonly PassedOnStatus[] = [400, 404, 409];
const enc = encodeURIComponent;

/** The typed client other services (posts, genai, mcp, admin) use to reach ideas' internals. */
export class IdeasClient {
  readonly #client: InternalClient;

  constructor(directory: ServiceDirectory, secret: string) {
    this.#client = new InternalClient("ideas", directory.handler("ideas"), secret);
  }

  /** The idea, or null when unknown (or, with `workspaceId`, not in that workspace). */
  getIdea(ideaId: string, workspaceId?: string): Promise<IdeaRecord | null> {
    const query = workspaceId ? `?workspaceId=${enc(workspaceId)}` : "";
    return this.#client.json(ideaRecordSchema, "GET", `/internal/ideas/${enc(ideaId)}${query}`);
  }

  /** A workspace's ideas, newest first, optionally of one status (MCP list_ideas). */
  async listIdeas(workspaceId: string, status?: string): Promise<IdeaRecord[]> {
    const query = status ? `?status=${enc(status)}` : "";
    const found = await this.#client.json(
      z.object({ items: z.array(ideaRecordSchema) }),
      "GET",
      `/internal/workspaces/${enc(workspaceId)}/ideas${query}`,
    );
    return found?.items ?? [];
  }

  /** MCP create_idea: stores `title` literally (no AI title). */
  async createIdea(input: {
    workspace_id: string;
    title: string;
    description?: string;
    tags?: string[] | null;
    created_by: string;
  }): Promise<IdeaRecord> {
    return await this.#idea("POST", "/internal/ideas", input);
  }

  /**
   * Marks the idea converted into `postId` (posts, on create with `source_idea_id`).
   * Idempotent for the same post. Throws AppError 404 for an unknown idea and 409 with the
   * spec's message when it is already converted into another post.
   */
  async convert(ideaId: string, postId: string, workspaceId?: string): Promise<IdeaRecord> {
    return await this.#idea("POST", `/internal/ideas/${enc(ideaId)}/convert`, {
      post_id: postId,
      ...(workspaceId ? { workspace_id: workspaceId } : {}),
    });
  }

  /** MCP update_idea: status (`new`|`converted`) and tags; AppError 400/404 as answered. */
  async mcpUpdate(
    ideaId: string,
    input: { workspace_id: string; status?: string; tags?: string[] | null },
  ): Promise<IdeaRecord> {
    return await this.#idea("PUT", `/internal/ideas/${enc(ideaId)}/mcp`, input);
  }

  /** The number of ideas that exist now (admin metrics). */
  async totalIdeas(): Promise<number> {
    const found = await this.#client.json(
      z.object({ total_ideas: z.number().int() }),
      "GET",
      "/internal/stats",
    );
    return found?.total_ideas ?? 0;
  }

  /** An idea from a 2xx answer; the ideas service's refusals passed on as answered. */
  #idea(method: string, path: string, body: unknown): Promise<IdeaRecord> {
    return this.#client.call(ideaRecordSchema, method, path, { body, passOn: PASSED_ON });
  }
}
