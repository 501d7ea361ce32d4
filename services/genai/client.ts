import type { z } from "zod";
import type { Caller } from "../../shared/http/identity.ts";
import { InternalClient, type PassedOnStatus } from "../../shared/service/internal_client.ts";
import type { Logger } from "../../shared/log.ts";
import { errorMessage } from "../../shared/log.ts";
import type { ServiceDirectory } from "../../shared/service/service_directory.ts";
import { fallbackTitle } from "../../shared/ai/titles.ts";
import {
  type GenerateResponse,
  generateResponse,
  type internalGenerateBody,
  type iterateBody,
  type IterateResponse,
  iterateResponse,
  type proofreadBody,
  type ProofreadResponse,
  proofreadResponse,
  titleResponseSchema,
} from "./schemas.ts";

/** The statuses the AI operations answer on purpose; passed on to the caller as they are. */
const PASSED_ON: readonly PassedOnStatus[] = [400, 403, 404, 429, 500, 502, 503];

/** How long a capture waits for an AI title before it uses the fallback. */
export const TITLE_DEADLINE_MS = 5_000;

/** The typed client other services use to reach the genai service's `/internal` routes. */
export class GenaiClient {
  readonly #client: InternalClient;
  readonly #logger: Logger | undefined;
  readonly #deadlineMs: number;

  constructor(
    directory: ServiceDirectory,
    secret: string,
    options: { logger?: Logger; deadlineMs?: number } = {},
  ) {
    this.#client = new InternalClient("genai", directory.handler("genai"), secret);
    this.#logger = options.logger;
    this.#deadlineMs = options.deadlineMs ?? TITLE_DEADLINE_MS;
  }

  /**
   * A title for an idea's text. Never fails: when the genai service or its backend is down,
   * errs, or takes longer than 5 s, the fallback title (made from the text itself) is used, so a
   * capture is never lost to an AI failure.
   */
  async title(text: string): Promise<string> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const deadline = new Promise<null>((resolve) => {
      timer = setTimeout(() => resolve(null), this.#deadlineMs);
    });
    try {
      const answer = await Promise.race([this.#ask(text), deadline]);
      if (answer) return answer;
      this.#logger?.warn("title took too long; using the fallback title", {
        deadline_ms: this.#deadlineMs,
      });
    } catch (err) {
      this.#logger?.warn("title request failed; using the fallback title", {
        error: errorMessage(err),
      });
    } finally {
      clearTimeout(timer);
    }
    return await fallbackTitle(text);
  }

  async #ask(text: string): Promise<string | null> {
    const answer = await this.#client.json(titleResponseSchema, "POST", "/internal/titles", {
      body: { text },
    });
    return answer?.title ?? null;
  }

  /**
   * REST generate on behalf of `caller` (MCP generate_post): the same checks and answers.
   * With `idea`, the idea the caller has just read, genai does not read it again.
   * Throws AppError with the genai service's status and message (400, 403, 404, 429, 502,
   * 503); 502 naming the genai service for anything else.
   */
  generate(caller: Caller, body: z.input<typeof internalGenerateBody>): Promise<GenerateResponse> {
    return this.#operation(generateResponse, "/internal/generate", caller, body);
  }

  /** REST iterate on behalf of `caller` (MCP iterate_post); errors as for generate. */
  iterate(caller: Caller, body: z.input<typeof iterateBody>): Promise<IterateResponse> {
    return this.#operation(iterateResponse, "/internal/iterate", caller, body);
  }

  /** REST proofread on behalf of `caller` (MCP proofread_post); errors as for generate. */
  proofread(caller: Caller, body: z.input<typeof proofreadBody>): Promise<ProofreadResponse> {
    return this.#operation(proofreadResponse, "/internal/proofread", caller, body);
  }

  #operation<T>(schema: z.ZodType<T>, path: string, caller: Caller, body: unknown): Promise<T> {
    return this.#client.call(schema, "POST", path, { body, caller, passOn: PASSED_ON });
  }
}
