/**
 * bench:rooms -- many collaborative rooms open at once: BENCH_ROOMS posts (300), each with
 * BENCH_EDITORS stock y-websocket providers (3), each provider typing one character every
 * BENCH_INTERVAL_MS (2000; the providers staggered over the interval) for BENCH_SECONDS (40).
 * Run against this service, in its own process as `deno task start` runs it (service_process.ts:
 * `deno run -A main.ts`, the start task's malloc tunables, no V8 flags) on a fresh DATA_DIR,
 * with the posts created through the API and a ticket minted per provider; and, in the same
 * run, against the stock y-websocket server from npm (`@y/websocket-server@0.1.1`, memory
 * only), each in its own child process. Both servers run at the same time, each with its own
 * providers, so a busy moment of a shared machine falls on both alike.
 *
 * For both it prints p50/p90/p99/p99.9 delivery latency (from the send to its arrival at each other
 * provider in the room), lost updates, the server process's CPU share while the load runs
 * (cores: 1.00 is one core busy), and its RSS: at the start (before any provider connects; for
 * the service once it rested 31 s after the posts were created, as restingRss measures it),
 * the peak, and after every provider left (5 s later, and once the room grace period
 * COLLAB_ROOM_GRACE_MS, default 10 s, plus BENCH_SETTLE_MS, default 10 s, has passed).
 *
 * Env: BENCH_ROOMS, BENCH_EDITORS, BENCH_INTERVAL_MS, BENCH_SECONDS, BENCH_CONCURRENCY (API
 * requests in flight while creating posts and minting tickets, 16), BENCH_ONLY (`service` or
 * `stock`: one side only), BENCH_ROOT (the checkout whose main.ts runs, to measure another
 * commit), `COLLAB_*` (passed to the service).
 */
import process from "node:process";
import type { WebsocketProvider } from "y-websocket";
import {
  Api,
  cpuSeconds,
  mib,
  parallel,
  peakDuring,
  restingRss,
  ROOT,
  sleep,
  startService,
  status,
  stopService,
} from "./service_process.ts";
import {
  connect,
  type Latencies,
  latencies,
  now,
  onArrivals,
  startStock,
  type Target,
  until,
} from "./yws.ts";

// Each provider adds a process exit listener; hundreds of them are expected here.
process.setMaxListeners(0);

const num = (name: string, fallback: number) => Number(Deno.env.get(name) ?? fallback);
const ROOMS = num("BENCH_ROOMS", 300);
const EDITORS = num("BENCH_EDITORS", 3);
const INTERVAL_MS = num("BENCH_INTERVAL_MS", 2000);
const SECONDS = num("BENCH_SECONDS", 40);
const CONCURRENCY = num("BENCH_CONCURRENCY", 16);
const GRACE_MS = num("COLLAB_ROOM_GRACE_MS", 10_000);
const SETTLE_MS = num("BENCH_SETTLE_MS", 10_000);
const ONLY = Deno.env.get("BENCH_ONLY");

interface Server {
  name: string;
  pid: number;
  /** RSS once started (for the service: resting, as restingRss measures it) */
  rssStart: number;
  /** the target of each room */
  rooms: Target[];
  stop(): Promise<void>;
}

interface Result extends Latencies {
  sent: number;
  expected: number;
  lost: number;
  /** cores busy while the load ran: the server, and this process (every provider) */
  cpu: number;
  clientCpu: number;
  rssStart: number;
  rssPeak: number;
  rssLeft5s: number;
  rssLeftGrace: number;
  load: string;
}

const loadAverage = () => Deno.readTextFileSync("/proc/loadavg").split(" ").slice(0, 3).join(" ");

/** The service on a fresh DATA_DIR, its posts created through the API. */
async function serviceServer(): Promise<Server> {
  const dataDir = await Deno.makeTempDir({ prefix: "cps-bench-rooms-" });
  const collabEnv = Object.fromEntries(
    Object.entries(Deno.env.toObject()).filter(([k]) => k.startsWith("COLLAB_")),
  );
  const service = await startService(dataDir, {
    // Every provider is the bench admin's: lift the per-user socket limit over their number.
    COLLAB_MAX_CONNECTIONS_PER_USER: String(Math.max(20, ROOMS * EDITORS + 10)),
    ...collabEnv,
  });
  const api = new Api(service.url);
  await api.login();
  const ws = await api.call("POST", "/api/workspaces", { name: "Bench rooms" });
  const workspaceId: string = ws.workspace_id;
  const postIds: string[] = new Array(ROOMS);
  await parallel("posts", ROOMS, CONCURRENCY, async (i) => {
    const post = await api.call("POST", "/api/posts", {
      workspace_id: workspaceId,
      title: `Room ${i}`,
      content: "",
    });
    postIds[i] = post.post_id;
  });
  const mintTicket = async () => (await api.call("POST", "/api/ws/ticket")).ticket as string;
  const url = service.url.replace(/^http/, "ws");
  // Resting, so the start figure is not what the boot and the login leave for the GC.
  const rssStart = await restingRss(service.pid);
  return {
    name: "collab service",
    pid: service.pid,
    rssStart,
    rooms: postIds.map((docId) => ({
      url,
      room: "ws",
      params: { docId, workspaceId },
      mintTicket,
    })),
    stop: async () => {
      await stopService(service);
      await Deno.remove(dataDir, { recursive: true }).catch(() => {});
    },
  };
}

async function stockServer(): Promise<Server> {
  const stock = await startStock();
  return {
    name: "stock server",
    pid: stock.child.pid,
    rssStart: status(stock.child.pid).rss,
    rooms: Array.from({ length: ROOMS }, (_, i) => ({
      url: stock.url,
      room: `room-${i}`,
      params: {},
    })),
    stop: async () => {
      stock.child.kill();
      await stock.child.status;
    },
  };
}

/**
 * Connects every provider, runs the load and measures. Each provider stamps each keystroke
 * with its send time in a Y.Map (`bench`, key `<editor>:<n>`) in the same transaction as the
 * character it types into `content`; every other provider of the room records when the stamp
 * arrives.
 */
async function run(server: Server, together: Barrier): Promise<Result> {
  const rssStart = server.rssStart;
  const arrivals: number[] = [];
  let delivered = 0;
  const providers: WebsocketProvider[][] = [];
  const connectAll = async () => {
    await parallel(`${server.name}: providers`, ROOMS * EDITORS, CONCURRENCY, async (i) => {
      const room = Math.floor(i / EDITORS);
      const editor = i % EDITORS;
      const provider = await connect(server.rooms[room]);
      onArrivals(provider, `${editor}:`, (_key, ms) => {
        arrivals.push(ms);
        delivered++;
      });
      (providers[room] ??= [])[editor] = provider;
    });
    if (!await until(() => providers.flat().every((p) => p.synced), 60_000)) {
      throw new Error("not every provider synced within 60 s");
    }
  };
  const perProvider = Math.max(1, Math.floor(SECONDS * 1000 / INTERVAL_MS));
  let sent = 0;
  let cpu = 0;
  let clientCpu = 0;
  const type = async () => {
    const cpu0 = cpuSeconds(server.pid);
    const client0 = cpuSeconds(Deno.pid);
    const t0 = performance.now();
    await Promise.all(
      providers.flatMap((editors) =>
        editors.map((provider, editor) =>
          new Promise<void>((resolve) => {
            let n = 0;
            const text = provider.doc.getText("content");
            const stamps = provider.doc.getMap<number>("bench");
            let timer: ReturnType<typeof setInterval> | undefined;
            const tick = () => {
              provider.doc.transact(() => {
                text.insert(text.length, String.fromCharCode(97 + editor % 26));
                stamps.set(`${editor}:${n}`, now());
              });
              sent++;
              if (++n >= perProvider) {
                clearInterval(timer);
                resolve();
              }
            };
            // Staggered over the first interval, so the load is even.
            setTimeout(() => {
              tick();
              if (n < perProvider) timer = setInterval(tick, INTERVAL_MS);
            }, Math.random() * INTERVAL_MS);
          })
        )
      ),
    );
    const expected = sent * (EDITORS - 1);
    await until(() => delivered >= expected, 15_000);
    const seconds = (performance.now() - t0) / 1000;
    cpu = (cpuSeconds(server.pid) - cpu0) / seconds;
    clientCpu = (cpuSeconds(Deno.pid) - client0) / seconds;
  };
  const { peak } = await peakDuring(server.pid, async () => {
    await connectAll();
    await together.wait();
    await type();
  });
  await together.wait();
  const load = loadAverage();
  const expected = sent * (EDITORS - 1);
  const lost = expected - delivered;
  const stats = latencies(arrivals);
  for (const p of providers.flat()) p.destroy();
  await sleep(5_000);
  const rssLeft5s = status(server.pid).rss;
  await sleep(Math.max(0, GRACE_MS + SETTLE_MS - 5_000));
  const rssLeftGrace = status(server.pid).rss;
  return {
    ...stats,
    sent,
    expected,
    lost,
    cpu,
    clientCpu,
    rssStart,
    rssPeak: Math.max(peak, rssLeft5s),
    rssLeft5s,
    rssLeftGrace,
    load,
  };
}

/** Lets `parties` runs go on together: each `wait` resolves once every party called it. */
class Barrier {
  #waiting: (() => void)[] = [];
  constructor(private readonly parties: number) {}
  wait(): Promise<void> {
    return new Promise((resolve) => {
      this.#waiting.push(resolve);
      if (this.#waiting.length < this.parties) return;
      for (const go of this.#waiting.splice(0)) go();
    });
  }
}

function row(name: string, r: Result): string {
  return [
    `${name.padEnd(34)} p50 ${r.p50.toFixed(1).padStart(6)} ms  p99 ${
      r.p99.toFixed(1).padStart(6)
    } ms  max ${r.max.toFixed(0).padStart(5)} ms  lost ${r.lost} of ${r.expected}`,
    `${"".padEnd(34)} p90 ${r.p90.toFixed(1)} ms  p99.9 ${r.p999.toFixed(1)} ms`,
    `${"".padEnd(34)} CPU ${r.cpu.toFixed(2)} cores  RSS start ${mib(r.rssStart)}, peak ${
      mib(r.rssPeak)
    }, left +5 s ${mib(r.rssLeft5s)}, left +${((GRACE_MS + SETTLE_MS) / 1000).toFixed(0)} s ${
      mib(r.rssLeftGrace)
    }  (load average ${r.load})`,
  ].join("\n");
}

async function main() {
  console.log(
    `${ROOMS} posts x ${EDITORS} providers, one keystroke per provider every ${INTERVAL_MS} ms ` +
      `for ${SECONDS} s (${((ROOMS * EDITORS * 1000) / INTERVAL_MS).toFixed(0)} updates/s in); ` +
      `service from ${ROOT}`,
  );
  // Both servers are started first, then loaded at the same time (each with its own
  // providers): a busy moment of this shared machine falls on both alike.
  console.error(`starting the servers (load average ${loadAverage()})`);
  const servers = await Promise.all([
    ONLY === "stock" ? null : serviceServer(),
    ONLY === "service" ? null : stockServer(),
  ]);
  const running = servers.filter((s) => s !== null);
  const together = new Barrier(running.length);
  let ours: Result | null = null;
  let ref: Result | null = null;
  try {
    [ours, ref] = await Promise.all(servers.map((s) => s && run(s, together)));
  } finally {
    for (const s of running) await s.stop();
  }
  if (ours) console.log(row("collab service (stored in KV)", ours));
  if (ref) console.log(row("stock @y/websocket-server (memory)", ref));
  const client = ours ?? ref;
  if (client) {
    console.log(
      `this process (every provider of both) used ${client.clientCpu.toFixed(2)} cores ` +
        `while the load ran`,
    );
  }
  if (ours && ref) {
    console.log(
      `p99 ratio ${(ours.p99 / ref.p99).toFixed(2)} (target <= 1); lost ${ours.lost} ` +
        `(target 0); RSS after the grace period ${mib(ours.rssLeftGrace)} against ` +
        `${mib(ours.rssStart)} at the start`,
    );
  }
  Deno.exit(0);
}

await main();
