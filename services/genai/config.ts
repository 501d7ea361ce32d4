import { z } from "zod";
import type { BaseConfig } from "../../shared/config.ts";
import { emptyToUndefined, parseEnv } from "../../shared/config.ts";
import {
  aiBackendEnvShape,
  type AiBackendSettings,
  aiBackendSettings,
} from "../../shared/ai/config.ts";

/** The AI backend's variables and the service's own limit. */
export const genaiEnvShape = {
  ...aiBackendEnvShape,
  /** Generate, iterate and proofread calls per user and minute; 0 = off. */
  AI_CALLS_PER_MINUTE: z.preprocess(
    emptyToUndefined,
    z.coerce.number().int().min(0).max(1_000_000).default(20),
  ),
  /**
   * `true` loads proofread's built-in grammar checker at start-up (a few seconds in a worker,
   * off the main thread), so the first proofread does not wait for it; by default it loads on
   * first use (it holds about 300 MiB while loaded).
   */
  PROOFREAD_CHECKER_PRELOAD: z.preprocess(
    emptyToUndefined,
    z.enum(["true", "false"], { error: "must be true or false" }).default("false"),
  ),
  /** The loaded checker's worker ends after this many seconds without a proofread; 0 = never. */
  PROOFREAD_CHECKER_IDLE_SECONDS: z.preprocess(
    emptyToUndefined,
    z.coerce.number().int().min(0).max(86_400).default(300),
  ),
};

export type { AiBackendSettings };

export interface GenaiConfig {
  base: BaseConfig;
  /** null when no AI backend is configured (generate and iterate answer 503, proofread uses the checker alone) */
  backend: AiBackendSettings | null;
  /** Generate, iterate and proofread calls a user may make per minute; 0 turns the limit off. */
  aiCallsPerMinute: number;
  /** Load the grammar checker at start-up rather than on the first proofread. */
  checkerPreload: boolean;
  /** End the loaded checker's worker after this long without a check; 0 = never. */
  checkerIdleMs: number;
}

/** The genai service's settings: the AI backend (`shared/ai/config.ts`) and its rate limit. */
export function parseGenaiConfig(
  env: Record<string, string | undefined>,
  base: BaseConfig,
): GenaiConfig {
  const raw = parseEnv(genaiEnvShape, env);
  return {
    base,
    backend: aiBackendSettings(raw),
    aiCallsPerMinute: raw.AI_CALLS_PER_MINUTE,
    checkerPreload: raw.PROOFREAD_CHECKER_PRELOAD === "true",
    checkerIdleMs: raw.PROOFREAD_CHECKER_IDLE_SECONDS * 1000,
  };
}
