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
import { type Annotation, buildProofreadMessages, proofreadAnnotations } from "./proofread.ts";
import { placeholderProblem } from "../../shared/ai/placeholders.ts";
import type {
  GenerateBody,
  GeneratedIdea,
  GenerateResponse,
  IterateBody,
  IterateResponse,
  ProofreadBody,
  ProofreadResponse,
  StatusResponse,
} from "./schemas.ts";
import type { GenaiStore } from "./store.ts";
import { MESSAGES } from "../../shared/http/messages.ts";

export const NOT_CONFIGURED = "AI backend not configured";
export const IDEA_NOT_FOUND = "Idea not found";
export const PROMPT_NOT_FOUND = "Prompt not found";
export const POST_NOT_FOUND = MESSAGES.postNotFound;
/** A failed backend call: what failed and which setting to check (`AiBackendError.reason`). */
export const backendFailed = (reason: string) => `AI backend failed: ${reason}`;
export const BACKEND_BUSY = "AI backend is busy; try again shortly";
/** The wait a 503 for a busy backend suggests when the backend named none. */
const BACKEND_BUSY_RETRY_SECONDS = 5;

export type GenType = "generate" | "iterate" | "proofread";

export interface GenaiDeps {
  backend: AiBackend | null;
  store: GenaiStore;
  workspaces: WorkspacesClient;
  ideas: IdeasClient;
  prompts: PromptsClient;
  posts: PostsClient;
  /** The built-in grammar and spelling checker of proofread (checker.ts). */
  checker: { check(text: string): Promise<Annotation[]> };
  /** AI calls per user and minute; 0 turns the limit off */
  aiCallsPerMinute: number;
  logger: Logger;
}

/**
 * Generate, iterate and proofread, shared by the REST routes and the internal routes MCP
 * uses. Checks run in this order: membership (403), no backend (503; proofread goes on with
 * the built-in checker alone), the idea or the post (which must belong to the given workspace)
 * and `prompt_id` (404), a saved template naming a placeholder generation does not fill (400),
 * the caller's AI call budget (429); then the model is asked. A backend that fails answers 502
 * naming what to check; throttling that outlasts 3 retries answers 503.
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
    // A prompt saved before templates were checked may still name one: refused, not sent.
    const problem = prompt && placeholderProblem(
      prompt.user_template,
      `The user_template of prompt "${prompt.name}"`,
    );
    if (problem) throw new AppError(400, problem);
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

  /** Which features work: proofread and titles always, generate and iterate with a model. */
  status(): StatusResponse {
    return { backend_configured: this.deps.backend !== null };
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

  /**
   * The built-in checker runs on every call, beside the model when there is one; without a
   * backend its findings (and the service's checks) are the answer. `model` says what became
   * of the model's answer.
   */
  async proofread(caller: Caller, input: ProofreadBody): Promise<ProofreadResponse> {
    await this.deps.workspaces.requireMember(input.workspace_id, caller.user_id);
    const backend = this.deps.backend;
    await this.#requirePost(input.workspace_id, input.post_id);
    const content = input.content ?? "";
    await this.#takeCall(caller);
    const [checked, raw] = await Promise.all([
      this.#check(content),
      backend ? this.#ask(backend, "proofread", buildProofreadMessages(content)) : null,
    ]);
    const { annotations, model } = proofreadAnnotations(raw, checked, content);
    if (model === "unusable") {
      // Only its start: enough to see the model's habit, not the post it may repeat.
      this.deps.logger.warn("the model's proofread answer was not a JSON array of annotations", {
        answer_chars: raw?.length ?? 0,
        answer_start: raw?.slice(0, 60),
      });
    }
    return { annotations, post_id: input.post_id, model };
  }

  /** The checker's findings; a checker that fails is logged and adds nothing. */
  async #check(content: string): Promise<Annotation[]> {
    try {
      return await this.deps.checker.check(content);
    } catch (err) {
      this.deps.logger.error("the grammar checker failed", {
        error: err instanceof Error ? err.message : String(err),
      });
      return [];
    }
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
        { retryAfterSeconds: decision.retryAfterSeconds },
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
      const failure = err instanceof AiBackendError ? err : null;
      this.deps.logger.error("AI backend call failed", {
        gen_type: genType,
        status: failure?.status ?? null,
        kind: failure?.kind ?? null,
        error: err instanceof Error ? err.message : String(err),
      });
      if (failure?.kind === "throttled") {
        // The client may try again when the backend said it would take calls again.
        const wait = failure.retryAfterSeconds ?? BACKEND_BUSY_RETRY_SECONDS;
        throw new AppError(503, BACKEND_BUSY, { retryAfterSeconds: wait });
      }
      throw new AppError(502, backendFailed(failure?.reason ?? "unexpected error (see the log)"));
    } finally {
      recordMetric("GenAILatencyMs", performance.now() - started, { gen_type: genType });
    }
  }
}
