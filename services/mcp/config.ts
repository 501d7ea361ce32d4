import type { BaseConfig } from "../../shared/config.ts";
import { parseEnv } from "../../shared/config.ts";

/**
 * The mcp service reads no variables of its own (it holds no state and reaches everything
 * through its peers); a new one is added, and checked, here.
 */
export const mcpEnvShape = {};

export interface McpConfig {
  base: BaseConfig;
}

export function parseMcpConfig(
  env: Record<string, string | undefined>,
  base: BaseConfig,
): McpConfig {
  parseEnv(mcpEnvShape, env);
  return { base };
}
