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
};

export interface AiBackendSettings {
  baseUrl: string;
  apiKey: string;
  model: string;
  timeoutMs: number;
}

export interface GenaiConfig {
  base: BaseConfig;
  /** null when no AI backend is configured (generation then answers 503, titles fall back) */
  backend: AiBackendSettings | null;
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
      }
      : null,
  };
}
