import { AppError } from "../../shared/http/app_error.ts";
import type { Caller } from "../../shared/http/identity.ts";
import type { Logger } from "../../shared/log.ts";
import { countMetric, recordMetric } from "../../shared/service/metrics.ts";
import type { IdeasClient } from "../ideas/client.ts";
import type { PostsClient } from "../posts/client.ts";
import type { Prompt, PromptsClient } from "../prompts/client.ts";
import type { WorkspacesClient } from "../workspaces/client.ts";
import { type AiBackend, AiBackendError, type ChatMessage } from "../../shared/ai/backend.ts";
import { buildGenerateMessages, buildIterateMessages, rankExamples } from "./prompt_builder.ts";
import { buildProofreadMessages, proofreadAnnotations } from "./proofread.ts";
import type {
  GenerateBody,
  GeneratedIdea,
  GenerateResponse,
  IterateBody,
  IterateResponse,
  ProofreadBody,
  ProofreadResponse,
} from "./schemas.ts";
import type { GenaiStore } from "./store.ts";
import { MESSAGES } from "../../shared/http/messages.ts";

export const NOT_CONFIGURED = "AI backend not configured";
export const IDEA_NOT_FOUND = "Idea not found";
export const PROMPT_NOT_FOUND = "Prompt not found";
export const POST_NOT_FOUND = MESSAGES.postNotFound;
export const BACKEND_FAILED = "The AI backend failed to answer";

export type GenType = "generate" | "iterate" | "proofread";

export interface GenaiDeps {
  backend: AiBackend | null;
  store: GenaiStore;
  workspaces: WorkspacesClient;
  ideas: IdeasClient;
  prompts: PromptsClient;
  posts: PostsClient;
  /** AI calls per user and minute; 0 turns the limit off */
  aiCallsPerMinute: number;
  logger: Logger;
}

/**
 * Generate, iterate and proofread, shared by the REST routes and the internal routes MCP
 * uses. Checks run in this order: membership (403), no backend (503), the idea or the post
 * (which must belong to the given workspace) and `prompt_id` (404), the caller's AI call
 * budget (429); then the model is asked. A backend
 * failure that persists (throttling after 3 retries, any other error) is a 500.
 */
export class GenaiOperations {
  constructor(private readonly deps: GenaiDeps) {}

  /**
   * `known`: the idea as a peer that has just read it passes it (MCP generate_post), so it is
   * not read again; REST names only `idea_id`, and the idea is read from the ideas service.
   */
  async generate(
    caller: Caller,
    input: GenerateBody,
    known?: GeneratedIdea,
  ): Promise<GenerateResponse> {
    const { workspaces, ideas, prompts, posts } = this.deps;
    await workspaces.requireMember(input.workspace_id, caller.user_id);
    const backend = this.#backend();
    const idea = known ?? await ideas.getIdea(input.idea_id, input.workspace_id);
    if (!idea) throw new AppError(404, IDEA_NOT_FOUND);
    let prompt: Prompt | null;
    if (input.prompt_id) {
      prompt = await prompts.getPrompt(input.workspace_id, input.prompt_id);
      if (!prompt) throw new AppError(404, PROMPT_NOT_FOUND);
    } else {
      prompt = await prompts.getDefaultPrompt(input.workspace_id, caller.user_id);
    }
    const examples = rankExamples(await posts.listExamples(input.workspace_id), idea.tags);
    const messages = buildGenerateMessages({
      idea,
      prompt,
      overrides: input.overrides,
      options: {
        audience: input.audience,
        tone: input.tone,
        language: input.language,
        length: input.length ?? undefined,
      },
      examples,
    });
    await this.#takeCall(caller);
    const content = await this.#ask(backend, "generate", messages);
    return { content, idea_id: idea.idea_id };
  }

  async iterate(caller: Caller, input: IterateBody): Promise<IterateResponse> {
    await this.deps.workspaces.requireMember(input.workspace_id, caller.user_id);
    const backend = this.#backend();
    await this.#requirePost(input.workspace_id, input.post_id);
    const prompt = input.prompt_id
      ? await this.deps.prompts.getPrompt(input.workspace_id, input.prompt_id)
      : null;
    const messages = buildIterateMessages({
      instruction: input.instruction,
      currentContent: input.current_content ?? "",
      persona: prompt?.system_instruction ?? null,
    });
    await this.#takeCall(caller);
    const suggestion = await this.#ask(backend, "iterate", messages);
    return { suggestion, post_id: input.post_id };
  }

  async proofread(caller: Caller, input: ProofreadBody): Promise<ProofreadResponse> {
    await this.deps.workspaces.requireMember(input.workspace_id, caller.user_id);
    const backend = this.#backend();
    await this.#requirePost(input.workspace_id, input.post_id);
    const content = input.content ?? "";
    await this.#takeCall(caller);
    const raw = await this.#ask(backend, "proofread", buildProofreadMessages(content));
    return { annotations: proofreadAnnotations(raw, content), post_id: input.post_id };
  }

  /**
   * A post named through a workspace must be one of that workspace's: membership of one
   * workspace gives no reach into another's posts, whose ids are answered back. A post of
   * another workspace is not found, as an unknown one is. Only the post's workspace is read,
   * not its live text.
   */
  async #requirePost(workspaceId: string, postId: string): Promise<void> {
    const post = await this.deps.posts.getPostInfo(postId);
    if (!post || post.workspace_id !== workspaceId) throw new AppError(404, POST_NOT_FOUND);
  }

  #backend(): AiBackend {
    if (!this.deps.backend) throw new AppError(503, NOT_CONFIGURED);
    return this.deps.backend;
  }

  async #takeCall(caller: Caller): Promise<void> {
    const decision = await this.deps.store.takeAiCall(caller.user_id, this.deps.aiCallsPerMinute);
    if (!decision.allowed) {
      throw new AppError(
        429,
        `Too many AI calls: at most ${this.deps.aiCallsPerMinute} a minute; try again in ` +
          `${decision.retryAfterSeconds} s`,
      );
    }
  }

  async #ask(backend: AiBackend, genType: GenType, messages: ChatMessage[]): Promise<string> {
    const started = performance.now();
    try {
      const text = await backend.chat(messages);
      countMetric("GenAIGeneration", 1, { gen_type: genType });
      return text;
    } catch (err) {
      this.deps.logger.error("AI backend call failed", {
        gen_type: genType,
        status: err instanceof AiBackendError ? err.status : null,
        error: err instanceof Error ? err.message : String(err),
      });
      throw new AppError(500, BACKEND_FAILED);
    } finally {
      recordMetric("GenAILatencyMs", performance.now() - started, { gen_type: genType });
    }
  }
}
