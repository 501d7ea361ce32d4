import { z } from "zod";
import { InternalClient } from "../../shared/internal_client.ts";
import type { ServiceDirectory } from "../../shared/service_directory.ts";

export const promptRecordSchema = z.object({
  prompt_id: z.string(),
  workspace_id: z.string(),
  name: z.string(),
  system_instruction: z.string(),
  user_template: z.string(),
  tone: z.string(),
  default_audience: z.string().nullable(),
  default_language: z.string().nullable(),
  is_default: z.boolean(),
  created_by: z.string(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type PromptRecord = z.infer<typeof promptRecordSchema>;

const enc = encodeURIComponent;

/** The typed client other services (genai, mcp) use to read prompts. */
export class PromptsClient {
  readonly #client: InternalClient;

  constructor(directory: ServiceDirectory, secret: string) {
    this.#client = new InternalClient("prompts", directory.handler("prompts"), secret);
  }

  /** The prompt, or null when the workspace has no prompt with that id. */
  getPrompt(workspaceId: string, promptId: string): Promise<PromptRecord | null> {
    return this.#client.json(
      promptRecordSchema,
      "GET",
      `/internal/workspaces/${enc(workspaceId)}/prompts/${enc(promptId)}`,
    );
  }

  /** The user's default prompt in the workspace, or null when they set none. */
  getDefaultPrompt(workspaceId: string, userId: string): Promise<PromptRecord | null> {
    return this.#client.json(
      promptRecordSchema,
      "GET",
      `/internal/workspaces/${enc(workspaceId)}/users/${enc(userId)}/default-prompt`,
    );
  }
}
