import type { BaseConfig } from "../../shared/config.ts";
import { parseEnv } from "../../shared/config.ts";

/**
 * The ideas service reads no variables of its own (the AI backend belongs to genai); the shape
 * is here so a new one is added, and validated, in one place.
 */
export const ideasEnvShape = {};

export interface IdeasConfig {
  base: BaseConfig;
  /** The capture route's public address, handed out with every capture token. */
  captureUrl: string;
}

export function parseIdeasConfig(
  env: Record<string, string | undefined>,
  base: BaseConfig,
): IdeasConfig {
  parseEnv(ideasEnvShape, env);
  return { base, captureUrl: `${base.publicUrl}/api/quick-capture` };
}
