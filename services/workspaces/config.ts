import type { BaseConfig } from "../../shared/config.ts";
import { parseEnv } from "../../shared/config.ts";

/**
 * The workspaces service reads no variables of its own today; the shape is here so a new one
 * is added (and validated, failing with a ConfigError naming it) in one place.
 */
export const workspacesEnvShape = {};

export interface WorkspacesConfig {
  base: BaseConfig;
}

/** The workspaces service's settings; a malformed value throws a ConfigError naming it. */
export function parseWorkspacesConfig(
  env: Record<string, string | undefined>,
  base: BaseConfig,
): WorkspacesConfig {
  parseEnv(workspacesEnvShape, env);
  return { base };
}
