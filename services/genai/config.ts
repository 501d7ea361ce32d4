import { z } from "zod";
import type { BaseConfig } from "../../shared/config.ts";
import { emptyToUndefined, optionalUrl, parseEnv } from "../../shared/config.ts";

/** The AI backend: any OpenAI-compatible server, reached through Chat Completions. */
export const genaiEnvShape = {
  OPENAI_BASE_URL: optionalUrl,
  OPENAI_API_KEY: z.preprocess(emptyToUndefined, z.string().optional()),
  OPENAI_MODEL: z.preprocess(emptyToUndefined, z.string().optional()),
  /** How long one Chat Completions attempt may take before it is abandoned. */
  AI_TIMEOUT_MS: z.coerce.number().int().min(1).max(600_000).default(60_000),
  /** The wait before the first retry of a throttled call; later retries wait 2x and 4x it. */
  AI_RETRY_BACKOFF_MS: z.preprocess(
    emptyToUndefined,
    z.coerce.number().int().min(0).max(60_000).default(500),
  ),
  /** Generate, iterate and proofread calls per user and minute (CONTRACT section 2); 0 = off. */
  AI_CALLS_PER_MINUTE: z.preprocess(
    emptyToUndefined,
    z.coerce.number().int().min(0).max(1_000_000).default(20),
  ),
};

export interface AiBackendSettings {
  baseUrl: string;
  apiKey: string;
  model: string;
  timeoutMs: number;
  /** Waits before retries 1, 2 and 3 after a throttled attempt. */
  backoffMs?: number[];
}

export interface GenaiConfig {
  base: BaseConfig;
  /** null when no AI backend is configured (generation then answers 503, titles fall back) */
  backend: AiBackendSettings | null;
  /** Generate, iterate and proofread calls a user may make per minute; 0 turns the limit off. */
  aiCallsPerMinute: number;
}

/**
 * The genai service's settings. The backend counts as configured once `OPENAI_BASE_URL` or
 * `OPENAI_API_KEY` is set; the model defaults to `gpt-4o-mini` and the URL to OpenAI's.
 */
export function parseGenaiConfig(
  env: Record<string, string | undefined>,
  base: BaseConfig,
): GenaiConfig {
  const raw = parseEnv(genaiEnvShape, env);
  const configured = Boolean(raw.OPENAI_BASE_URL || raw.OPENAI_API_KEY);
  return {
    base,
    backend: configured
      ? {
        baseUrl: (raw.OPENAI_BASE_URL ?? "https://api.openai.com/v1").replace(/\/+$/, ""),
        apiKey: raw.OPENAI_API_KEY ?? "not-needed",
        model: raw.OPENAI_MODEL ?? "gpt-4o-mini",
        timeoutMs: raw.AI_TIMEOUT_MS,
        backoffMs: [1, 2, 4].map((factor) => factor * raw.AI_RETRY_BACKOFF_MS),
      }
      : null,
    aiCallsPerMinute: raw.AI_CALLS_PER_MINUTE,
  };
}
