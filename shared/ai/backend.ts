import OpenAI from "openai";
import type { Logger } from "../log.ts";
import type { AiBackendSettings } from "./config.ts";

export type ChatMessage = { role: "system" | "user" | "assistant"; content: string };

/** Waits before retries 1, 2 and 3 after a throttled (429) attempt: at most 4 attempts. */
export const THROTTLE_BACKOFF_MS = [500, 1_000, 2_000];

/** What went wrong with a call, so the caller can say what to check. */
export type AiFailureKind =
  | "unreachable"
  | "unauthorized"
  | "unknown_model"
  | "not_found"
  | "timeout"
  | "throttled"
  | "no_text"
  | "refused";

/**
 * The backend answered something other than text, refused, kept throttling or could not be
 * reached. `reason` says it for the person who configures the backend: what failed and which
 * setting to check, never the key itself.
 */
export class AiBackendError extends Error {
  readonly reason: string;
  constructor(
    message: string,
    readonly status: number | null = null,
    readonly kind: AiFailureKind = "refused",
    reason?: string,
    /** a throttled call: the seconds the backend asked to wait (its `Retry-After`), if it said */
    readonly retryAfterSeconds: number | null = null,
  ) {
    super(message);
    this.name = "AiBackendError";
    this.reason = reason ?? message;
  }
}

/**
 * The wait a throttled answer asks for, in seconds: its `retry-after-ms` (OpenAI's), else its
 * `Retry-After` (seconds or an HTTP date); null when it names none that can be read.
 */
export function retryAfterSeconds(headers: Headers | undefined, now = Date.now()): number | null {
  const ms = headers?.get("retry-after-ms")?.trim();
  if (ms && /^\d+(\.\d+)?$/.test(ms)) return Number(ms) / 1000;
  const value = headers?.get("retry-after")?.trim();
  if (!value) return null;
  if (/^\d+$/.test(value)) return Number(value);
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, Math.ceil((at - now) / 1000));
}

/** The backend's own words from an error answer, cut short and on one line. */
function backendMessage(err: InstanceType<typeof OpenAI.APIError>): string {
  const body = err.error as { message?: unknown } | undefined;
  const raw = typeof body?.message === "string" ? body.message : err.message;
  return raw.replace(/\s+/g, " ").trim().slice(0, 200);
}

/** Sorts a failed attempt into a kind and a reason that names the setting to check. */
export function describeFailure(err: unknown, model: string): AiBackendError {
  if (err instanceof AiBackendError) return err;
  if (err instanceof OpenAI.APIConnectionError) {
    return new AiBackendError(
      `The AI backend could not be reached: ${err.message}`,
      null,
      "unreachable",
      "cannot reach the server at OPENAI_BASE_URL (is it running, and is the URL right?)",
    );
  }
  if (err instanceof OpenAI.APIError && typeof err.status === "number") {
    const status = err.status;
    const said = backendMessage(err);
    const code = (err.error as { code?: unknown } | undefined)?.code;
    const failed = `The AI backend answered ${status}: ${said}`;
    if (status === 401 || status === 403) {
      return new AiBackendError(
        failed,
        status,
        "unauthorized",
        `the server refused the API key (HTTP ${status}; check OPENAI_API_KEY)`,
      );
    }
    if (status === 429) {
      return new AiBackendError(
        failed,
        status,
        "throttled",
        "the server kept throttling",
        retryAfterSeconds(err.headers),
      );
    }
    if ((status === 404 || status === 400) && (code === "model_not_found" || /model/i.test(said))) {
      return new AiBackendError(
        failed,
        status,
        "unknown_model",
        `the server does not know the model "${model}" (check OPENAI_MODEL; with Ollama, ` +
          `pull the model first): ${said}`,
      );
    }
    if (status === 404) {
      return new AiBackendError(
        failed,
        status,
        "not_found",
        "the server has no Chat Completions endpoint under OPENAI_BASE_URL (HTTP 404; the URL " +
          "is the API root, usually ending in /v1)",
      );
    }
    return new AiBackendError(
      failed,
      status,
      "refused",
      `the server answered HTTP ${status}: ${said}`,
    );
  }
  const message = err instanceof Error ? err.message : String(err);
  return new AiBackendError(`The AI backend failed: ${message}`, null, "refused", message);
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
          throw new AiBackendError(
            "The AI backend answered without text",
            null,
            "no_text",
            `the server answered without text (does the model "${this.#model}" chat?)`,
          );
        }
        return text;
      } catch (err) {
        if (err instanceof AiBackendError) throw err;
        const failure = describeFailure(err, this.#model);
        const throttled = failure.kind === "throttled";
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
          throw new AiBackendError(
            `The AI backend did not answer within ${timeoutMs} ms`,
            null,
            "timeout",
            `no answer within ${timeoutMs} ms (a slow model? AI_TIMEOUT_MS sets the limit)`,
          );
        }
        if (throttled) {
          throw new AiBackendError(
            "The AI backend kept throttling after 3 retries",
            failure.status,
            "throttled",
            "the server kept throttling after 3 retries",
            failure.retryAfterSeconds,
          );
        }
        throw failure;
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
