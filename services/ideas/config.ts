import { z } from "zod";
import type { BaseConfig } from "../../shared/config.ts";
import { emptyToUndefined, parseEnv } from "../../shared/config.ts";
import {
  aiBackendEnvShape,
  type AiBackendSettings,
  aiBackendSettings,
} from "../../shared/ai/config.ts";

/** How long a capture waits for an AI title before it uses the fallback. */
export const TITLE_DEADLINE_MS = 5_000;

/** The ideas service's variables: the AI backend that titles ideas, and the capture limit. */
export const ideasEnvShape = {
  ...aiBackendEnvShape,
  /** Quick captures one capture token may make per minute (each asks the AI title model). */
  CAPTURES_PER_MINUTE: z.preprocess(
    emptyToUndefined,
    z.coerce.number().int().min(0).max(1_000_000).default(30),
  ),
};

export interface IdeasConfig {
  base: BaseConfig;
  /** The capture route's public address, handed out with every capture token. */
  captureUrl: string;
  /** Captures per token and minute (429 beyond it); 0 turns the limit off. */
  capturesPerMinute: number;
  /** null when no AI backend is configured (titles then fall back) */
  aiBackend: AiBackendSettings | null;
}

export function parseIdeasConfig(
  env: Record<string, string | undefined>,
  base: BaseConfig,
): IdeasConfig {
  const raw = parseEnv(ideasEnvShape, env);
  return {
    base,
    captureUrl: `${base.publicUrl}/api/quick-capture`,
    capturesPerMinute: raw.CAPTURES_PER_MINUTE,
    aiBackend: aiBackendSettings(raw),
  };
}
