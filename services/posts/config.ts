import type { BaseConfig } from "../../shared/config.ts";
import { type DeliveryConfig, parseDeliveryConfig } from "../../shared/delivery/mod.ts";

export interface PostsConfig {
  base: BaseConfig;
  /** Comment DMs (CONTRACT section 6) go out through this service's queue. */
  delivery: DeliveryConfig;
}

/** The posts service's settings; a malformed delivery variable throws a ConfigError. */
export function parsePostsConfig(
  env: Record<string, string | undefined>,
  base: BaseConfig,
): PostsConfig {
  return { base, delivery: parseDeliveryConfig(env, base) };
}
