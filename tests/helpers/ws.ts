import assert from "node:assert/strict";
import { api } from "./stack.ts";

/**
 * The HTTP status a server at `base` (an http:// URL) answers to a raw WebSocket upgrade
 * request on `/ws?<query>` (101 when it upgrades), with any extra `headers`.
 */
export async function upgradeStatus(
  base: string,
  query: string,
  headers: Record<string, string> = {},
): Promise<number> {
  const url = new URL(base);
  const conn = await Deno.connect({ hostname: url.hostname, port: Number(url.port) });
  try {
    const request = [
      `GET /ws?${query} HTTP/1.1`,
      `Host: ${url.host}`,
      "Upgrade: websocket",
      "Connection: Upgrade",
      "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==",
      "Sec-WebSocket-Version: 13",
      ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
      "",
      "",
    ].join("\r\n");
    await conn.write(new TextEncoder().encode(request));
    const buf = new Uint8Array(1024);
    const n = await conn.read(buf);
    const head = new TextDecoder().decode(buf.subarray(0, n ?? 0));
    return Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0);
  } finally {
    conn.close();
  }
}

/** A WebSocket ticket for `user` from POST /api/ws/ticket (asserts 200). */
export async function ticketFor(
  stack: { url: string },
  user: { access_token: string },
): Promise<string> {
  const res = await api(stack, "POST", "/api/ws/ticket", { token: user.access_token });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.ticket as string;
}
