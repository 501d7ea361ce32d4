import { InternalClient } from "../../shared/internal_client.ts";
import type { Logger } from "../../shared/log.ts";
import { errorMessage } from "../../shared/log.ts";
import type { ServiceDirectory } from "../../shared/service_directory.ts";
import { fallbackTitle } from "./fallback_title.ts";
import { titleResponseSchema } from "./schemas.ts";

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
   * errs, or takes longer than 5 s, the fallback title of CONTRACT section 7 is used, so a
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
    return fallbackTitle(text);
  }

  async #ask(text: string): Promise<string | null> {
    const answer = await this.#client.json(titleResponseSchema, "POST", "/internal/titles", {
      body: { text },
    });
    return answer?.title ?? null;
  }
}
