import { z } from "zod";
import { emptyToUndefined, optionalUrl } from "../config.ts";

/** The AI backend: any OpenAI-compatible server, reached through Chat Completions. */
export const aiBackendEnvShape = {
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
};

export interface AiBackendSettings {
  baseUrl: string;
  apiKey: string;
  model: string;
  timeoutMs: number;
  /** Waits before retries 1, 2 and 3 after a throttled attempt. */
  backoffMs?: number[];
}

type AiBackendEnv = z.infer<z.ZodObject<typeof aiBackendEnvShape>>;

/**
 * The backend's settings from the parsed variables, or null when none is configured. It counts
 * as configured once `OPENAI_BASE_URL` or `OPENAI_API_KEY` is set; the model defaults to
 * `gpt-4o-mini` and the URL to OpenAI's.
 */
export function aiBackendSettings(raw: AiBackendEnv): AiBackendSettings | null {
  if (!raw.OPENAI_BASE_URL && !raw.OPENAI_API_KEY) return null;
  return {
    baseUrl: (raw.OPENAI_BASE_URL ?? "https://api.openai.com/v1").replace(/\/+$/, ""),
    apiKey: raw.OPENAI_API_KEY ?? "not-needed",
    model: raw.OPENAI_MODEL ?? "gpt-4o-mini",
    timeoutMs: raw.AI_TIMEOUT_MS,
    backoffMs: [1, 2, 4].map((factor) => factor * raw.AI_RETRY_BACKOFF_MS),
  };
}
