import { z } from "zod";
import { AppError } from "../../shared/http/app_error.ts";
import { InternalClient } from "../../shared/internal_client.ts";
import { ideaSchema } from "./schemas.ts";
import type { ServiceDirectory } from "../../shared/service_directory.ts";

/** An idea as peers see it: the schema the ideas routes answer with. */
export const ideaRecordSchema = ideaSchema;
export type IdeaRecord = z.infer<typeof ideaRecordSchema>;

const errorBody = z.object({ error: z.string() });
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
    return await this.#expect(
      await this.#client.request("POST", "/internal/ideas", { body: input }),
    );
  }

  /**
   * Marks the idea converted into `postId` (posts, on create with `source_idea_id`).
   * Idempotent for the same post. Throws AppError 404 for an unknown idea and 409 with the
   * spec's message when it is already converted into another post.
   */
  async convert(ideaId: string, postId: string, workspaceId?: string): Promise<IdeaRecord> {
    return await this.#expect(
      await this.#client.request("POST", `/internal/ideas/${enc(ideaId)}/convert`, {
        body: { post_id: postId, ...(workspaceId ? { workspace_id: workspaceId } : {}) },
      }),
    );
  }

  /** MCP update_idea: status (`new`|`converted`) and tags; AppError 400/404 as answered. */
  async mcpUpdate(
    ideaId: string,
    input: { workspace_id: string; status?: string; tags?: string[] | null },
  ): Promise<IdeaRecord> {
    return await this.#expect(
      await this.#client.request("PUT", `/internal/ideas/${enc(ideaId)}/mcp`, { body: input }),
    );
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

  /** An idea from a 2xx answer; the ideas service's 400/404/409 passed on as they are. */
  async #expect(res: Response): Promise<IdeaRecord> {
    const body = await res.json().catch(() => null);
    if (res.ok) {
      const parsed = ideaRecordSchema.safeParse(body);
      if (parsed.success) return parsed.data;
      throw new AppError(502, "The ideas service gave an unexpected answer");
    }
    const error = errorBody.safeParse(body);
    if ([400, 404, 409].includes(res.status) && error.success) {
      throw new AppError(res.status as 400 | 404 | 409, error.data.error);
    }
    throw new AppError(502, `The ideas service answered ${res.status}`);
  }
}
