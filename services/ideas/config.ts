import { z } from "zod";
import type { BaseConfig } from "../../shared/config.ts";
import { emptyToUndefined, parseEnv } from "../../shared/config.ts";

/** The ideas service's own variables (the AI backend belongs to genai). */
export const ideasEnvShape = {
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
  };
}
