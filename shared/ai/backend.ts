import OpenAI from "openai";
import type { Logger } from "../log.ts";
import type { AiBackendSettings } from "./config.ts";

export type ChatMessage = { role: "system" | "user" | "assistant"; content: string };

/** Waits before retries 1, 2 and 3 after a throttled (429) attempt: at most 4 attempts. */
export const THROTTLE_BACKOFF_MS = [500, 1_000, 2_000];

/** The backend answered something other than text, refused, or kept throttling. */
export class AiBackendError extends Error {
  constructor(message: string, readonly status: number | null = null) {
    super(message);
    this.name = "AiBackendError";
  }
}

export interface ChatOptions {
  /** Abandons the call (all attempts) after this many milliseconds. */
  timeoutMs?: number;
  temperature?: number;
  maxTokens?: number;
}

/**
 * The AI backend: Chat Completions on any OpenAI-compatible server through the `openai`
 * package. The package's own retries are off; this class retries a throttled (429) attempt
 * three times with backoff and fails at once on any other error.
 */
export class AiBackend {
  readonly #client: OpenAI;
  readonly #model: string;
  readonly #timeoutMs: number;
  readonly #backoffMs: number[];
  readonly #logger: Logger;

  constructor(
    settings: AiBackendSettings,
    logger: Logger,
    options: { backoffMs?: number[] } = {},
  ) {
    this.#client = new OpenAI({
      baseURL: settings.baseUrl,
      apiKey: settings.apiKey,
      maxRetries: 0,
      timeout: settings.timeoutMs,
    });
    this.#model = settings.model;
    this.#timeoutMs = settings.timeoutMs;
    this.#backoffMs = options.backoffMs ?? settings.backoffMs ?? THROTTLE_BACKOFF_MS;
    this.#logger = logger;
  }

  /** The assistant's text for `messages`; AiBackendError on failure or timeout. */
  async chat(messages: ChatMessage[], options: ChatOptions = {}): Promise<string> {
    const timeoutMs = Math.min(options.timeoutMs ?? this.#timeoutMs, this.#timeoutMs);
    const signal = AbortSignal.timeout(timeoutMs);
    for (let attempt = 0;; attempt++) {
      try {
        const completion = await this.#client.chat.completions.create({
          model: this.#model,
          messages,
          ...(options.temperature === undefined ? {} : { temperature: options.temperature }),
          ...(options.maxTokens === undefined ? {} : { max_tokens: options.maxTokens }),
        }, { signal, timeout: timeoutMs });
        const text = completion.choices?.[0]?.message?.content;
        if (typeof text !== "string") {
          throw new AiBackendError("The AI backend answered without text");
        }
        return text;
      } catch (err) {
        if (err instanceof AiBackendError) throw err;
        const status = err instanceof OpenAI.APIError ? (err.status ?? null) : null;
        const throttled = status === 429;
        if (throttled && attempt < this.#backoffMs.length && !signal.aborted) {
          const wait = this.#backoffMs[attempt] * (0.75 + Math.random() * 0.5);
          this.#logger.warn("AI backend throttled; retrying", {
            attempt: attempt + 1,
            wait_ms: Math.round(wait),
          });
          await sleep(wait, signal);
          continue;
        }
        if (signal.aborted) {
          throw new AiBackendError(`The AI backend did not answer within ${timeoutMs} ms`);
        }
        throw new AiBackendError(
          throttled
            ? "The AI backend kept throttling after 3 retries"
            : `The AI backend failed: ${err instanceof Error ? err.message : String(err)}`,
          status,
        );
      }
    }
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
    function done() {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
  });
}
