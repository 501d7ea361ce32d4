import { InternalClient } from "../../shared/service/internal_client.ts";
import type { ServiceDirectory } from "../../shared/service/service_directory.ts";
import { type Prompt, promptSchema } from "./schemas.ts";

export type { Prompt };

const enc = encodeURIComponent;

/** The typed client other services (genai, mcp) use to read prompts. */
export class PromptsClient {
  readonly #client: InternalClient;

  constructor(directory: ServiceDirectory, secret: string) {
    this.#client = new InternalClient("prompts", directory.handler("prompts"), secret);
  }

  /** The prompt, or null when the workspace has no prompt with that id. */
  getPrompt(workspaceId: string, promptId: string): Promise<Prompt | null> {
    return this.#client.json(
      promptSchema,
      "GET",
      `/internal/workspaces/${enc(workspaceId)}/prompts/${enc(promptId)}`,
    );
  }

  /** The user's default prompt in the workspace, or null when they set none. */
  getDefaultPrompt(workspaceId: string, userId: string): Promise<Prompt | null> {
    return this.#client.json(
      promptSchema,
      "GET",
      `/internal/workspaces/${enc(workspaceId)}/users/${enc(userId)}/default-prompt`,
    );
  }
}
