import { z } from "zod";
import { type BaseConfig, parseBaseConfig, parseEnv } from "../../shared/config.ts";

export interface GatewayConfig {
  base: BaseConfig;
  oauthClientId: string;
}

export function parseGatewayConfig(
  env: Record<string, string | undefined>,
  opts: { requireSecret?: boolean } = {},
): GatewayConfig {
  const base = parseBaseConfig(env, opts);
  const raw = parseEnv({ OAUTH_CLIENT_ID: z.string().min(1).default("content-pipeline") }, env);
  return { base, oauthClientId: raw.OAUTH_CLIENT_ID };
}
