import type { BaseConfig } from "../../shared/config.ts";
import { parseEnv } from "../../shared/config.ts";

/** The prompts service reads no variables of its own; a new one is added (and checked) here. */
export const promptsEnvShape = {};

export interface PromptsConfig {
  base: BaseConfig;
}

export function parsePromptsConfig(
  env: Record<string, string | undefined>,
  base: BaseConfig,
): PromptsConfig {
  parseEnv(promptsEnvShape, env);
  return { base };
}
