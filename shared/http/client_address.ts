import type { Context } from "hono";
import { inProcessPasses } from "./identity.ts";

/**
 * The client's network address as the gateway saw it (the TCP peer of the public listener), for
 * per-address rate limits. Like the caller, it travels beside the request in one process and in
 * a header across processes; the gateway strips any copy a client sends and sets its own, and a
 * service only reads the header on a request that proved the internal secret.
 */
export const CLIENT_ADDRESS_HEADER = "x-cp-client-address";

/** The address used when the gateway recorded none (a peer service, a unit test). */
export const UNKNOWN_ADDRESS = "unknown";

export const MAX_ADDRESS_LENGTH = 100;
const MAX_LENGTH = MAX_ADDRESS_LENGTH;

/**
 * The peer address Deno.serve reported for a request (Hono passes its info as `c.env`). When
 * that peer is one of `trustedProxies` (the gateway's TRUSTED_PROXIES), the client is the
 * nearest X-Forwarded-For entry that is not itself a trusted proxy; a client's own
 * X-Forwarded-For is never read otherwise, so it cannot choose its address.
 */
export function peerAddress(
  env: unknown,
  forwarded?: { headers: Headers; trustedProxies: readonly string[] },
): string {
  const addr = (env as { remoteAddr?: { hostname?: unknown } } | undefined)?.remoteAddr;
  const peer = typeof addr?.hostname === "string" && addr.hostname
    ? addr.hostname.slice(0, MAX_LENGTH)
    : UNKNOWN_ADDRESS;
  const trusted = forwarded?.trustedProxies ?? [];
  if (!forwarded || !trusted.includes(peer)) return peer;
  const chain = (forwarded.headers.get("x-forwarded-for") ?? "").split(",").map((s) => s.trim());
  for (let i = chain.length - 1; i >= 0; i--) {
    if (!/^[0-9A-Fa-f:.]{2,45}$/.test(chain[i])) return peer;
    if (!trusted.includes(chain[i])) return chain[i];
  }
  return peer;
}

/**
 * The client address the gateway recorded for this request. In process the request itself is
 * the client's (its headers are the client's own), so only the gateway's pass is read; otherwise
 * the header the gateway set. `unknown` when neither is there.
 */
export function clientAddress(c: Context): string {
  const req = c.req.raw;
  const pass = inProcessPasses.get(req);
  if (pass) return pass.clientAddress || UNKNOWN_ADDRESS;
  return c.req.header(CLIENT_ADDRESS_HEADER)?.slice(0, MAX_LENGTH) || UNKNOWN_ADDRESS;
}
