/**
 * What the collaboration benchmarks (bench:collab, bench:rooms) share: stock y-websocket
 * providers pointed at a target (this service or the stock server), the stock
 * y-websocket server from npm in its own child process, waiting, and latency percentiles.
 */
import * as Y from "yjs";
import { WebsocketProvider } from "y-websocket";
import { freePort } from "./service_process.ts";

/** The stock y-websocket server, pinned by version here and by integrity in deno.lock. */
export const STOCK_SERVER = "npm:@y/websocket-server@0.1.1/y-websocket";

export interface Target {
  url: string;
  room: string;
  params: Record<string, string>;
  /** a fresh WebSocket ticket (the service's are single-use): one per provider */
  mintTicket?: () => Promise<string>;
}

/** Wall-clock milliseconds with sub-millisecond precision, comparable across processes. */
export const now = () => performance.timeOrigin + performance.now();

/** Starts the stock y-websocket server on a free port; resolves once it accepts connections. */
export async function startStock(): Promise<{ child: Deno.ChildProcess; url: string }> {
  const port = freePort();
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", STOCK_SERVER],
    stdout: "null",
    stderr: "inherit",
    env: { HOST: "127.0.0.1", PORT: String(port) },
  }).spawn();
  for (let i = 0; i < 600; i++) {
    try {
      (await Deno.connect({ hostname: "127.0.0.1", port })).close();
      return { child, url: `ws://127.0.0.1:${port}` };
    } catch {
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  throw new Error("the stock y-websocket server did not start");
}

/** A stock y-websocket provider on `target` (with a fresh ticket when the target mints them). */
export async function connect(target: Target, doc = new Y.Doc()): Promise<WebsocketProvider> {
  const params = target.mintTicket
    ? { ...target.params, ticket: await target.mintTicket() }
    : target.params;
  return new WebsocketProvider(target.url, target.room, doc, {
    params,
    // deno-lint-ignore no-explicit-any
    WebSocketPolyfill: WebSocket as any,
    disableBc: true,
  });
}

/**
 * Calls `arrived(key, ms)` as each stamp another provider set arrives: stamps are entries
 * `<writer>:<n>` of the document's `bench` map holding their send time (`now()`); this
 * provider's own are those starting with `own`.
 */
export function onArrivals(
  provider: WebsocketProvider,
  own: string,
  arrived: (key: string, ms: number) => void,
): void {
  const stamps = provider.doc.getMap<number>("bench");
  stamps.observe((event) => {
    if (event.transaction.local) return;
    const at = now();
    for (const key of event.keysChanged) {
      if (key.startsWith(own)) continue;
      const sentAt = stamps.get(key);
      if (sentAt !== undefined) arrived(key, at - sentAt);
    }
  });
}

/** Polls `check` every 50 ms until it holds or `timeoutMs` passed; answers its last value. */
export async function until(check: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (check()) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return check();
}

export interface Latencies {
  p50: number;
  p90: number;
  p99: number;
  p999: number;
  max: number;
  count: number;
}

export function latencies(values: number[]): Latencies {
  const sorted = Float64Array.from(values).sort();
  const pct = (q: number) =>
    sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;
  return {
    p50: pct(0.5),
    p90: pct(0.9),
    p99: pct(0.99),
    p999: pct(0.999),
    max: sorted[sorted.length - 1] ?? NaN,
    count: values.length,
  };
}
