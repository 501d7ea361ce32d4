import { type BaseConfig, ConfigError } from "../../shared/config.ts";

export interface GatewayConfig {
  /** `base.oauthClientId` is the audience the gateway checks on every JWT. */
  base: BaseConfig;
  /**
   * TRUSTED_PROXIES: addresses of the reverse proxies in front of the gateway. Only a request
   * from one of them has its X-Forwarded-For believed for the client address (login throttle,
   * per-address limits); otherwise the TCP peer is the client. Behind a proxy that is not
   * listed, every client shares the proxy's address and its per-address allowances.
   */
  trustedProxies: string[];
}

const IP_ADDRESS = /^(?:\d{1,3}(?:\.\d{1,3}){3}|[0-9a-fA-F:]*:[0-9a-fA-F:.]*)$/;

/** The gateway's settings; a malformed value throws a ConfigError naming the variable. */
export function parseGatewayConfig(
  env: Record<string, string | undefined>,
  base: BaseConfig,
): GatewayConfig {
  const trustedProxies = (env.TRUSTED_PROXIES ?? "").split(",").map((s) => s.trim())
    .filter(Boolean);
  for (const address of trustedProxies) {
    if (!IP_ADDRESS.test(address)) {
      throw new ConfigError(
        `Invalid environment variable TRUSTED_PROXIES: "${address}" is not an IP address`,
      );
    }
  }
  return { base, trustedProxies };
}
