/**
 * bench:collab -- 50 stock y-websocket providers on one post, each sending 10 updates/s for
 * 20 s, against this service (every update stored in KV before it is forwarded) and, in the
 * same run, against the stock y-websocket server from npm (`@y/websocket-server@0.1.1`, memory
 * only), each in its own child process. Prints p50/p99 delivery latency (from the send to its
 * arrival at every other provider) and lost updates for both; for this service it then kills
 * the server with SIGKILL, starts it again on the same DATA_DIR and counts what was kept.
 *
 * With `--instances N` (N > 1) it then starts N service processes on one DATA_DIR (one KV, as
 * several `deno task start` processes share it), spreads the providers over them round-robin
 * and prints the same figures for deliveries within one instance and across instances
 * (writer on one, reader on another).
 *
 * With `--at-limit` it runs only the load at the text limit instead (infra/bench/collab_at_limit.ts):
 * the post's text filled to 100 characters under the limit (200 000) in 20 000 pieces,
 * BENCH_CLIENTS writers each, over and over, joining as a fresh provider and inserting 1000
 * characters (refused, 4413), while `GET /api/posts/{id}` is timed for BENCH_SECONDS; it prints
 * the reads' p50/p99/max and the refusals per second.
 *
 * BENCH_CLIENTS, BENCH_RATE (updates/s per client) and BENCH_SECONDS change the load.
 * `deno run -A infra/bench/collab.ts --serve <dataDir> <fresh|reuse>` is the service child.
 */
import process from "node:process";
import type { WebsocketProvider } from "y-websocket";
import { startAllInOne } from "../all_in_one.ts";
import { fillText, quantile, startRefusedWriters, timeReads } from "./collab_at_limit.ts";
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

// Each provider adds a process exit listener; 50 of them are expected here.
process.setMaxListeners(0);

const CLIENTS = Number(Deno.env.get("BENCH_CLIENTS") ?? 50);
const RATE = Number(Deno.env.get("BENCH_RATE") ?? 10);
const SECONDS = Number(Deno.env.get("BENCH_SECONDS") ?? 20);
const INSTANCES = (() => {
  const i = Deno.args.indexOf("--instances");
  const n = i >= 0 ? Number(Deno.args[i + 1]) : 1;
  if (!Number.isInteger(n) || n < 1) throw new Error("--instances takes a whole number");
  return n;
})();
const ADMIN = { email: "bench-admin@example.test", password: "Bench-Passw0rd!" };

// ---------------------------------------------------------------- the service child

async function serve(dataDir: string, mode: string) {
  const stack = await startAllInOne({
    PORT: "0",
    HOST: "127.0.0.1",
    // Quiet unless LOG_LEVEL is given: the first stdout line is read as the answer.
    LOG_LEVEL: Deno.env.get("LOG_LEVEL") ?? "warn",
    DATA_DIR: dataDir,
    PUBLIC_URL: "http://127.0.0.1:8000",
    ADMIN_EMAIL: ADMIN.email,
    ADMIN_PASSWORD: ADMIN.password,
    ADMIN_NAME: "Bench Admin",
    // All the providers are one user's: lift the per-user socket limit (20) over their number.
    COLLAB_MAX_CONNECTIONS_PER_USER: String(Math.max(20, CLIENTS)),
    ...Object.fromEntries(
      Object.entries(Deno.env.toObject()).filter(([k]) => k.startsWith("COLLAB_")),
    ),
  }, { quiet: true });
  const url = `http://127.0.0.1:${stack.port}`;
  const call = async (method: string, path: string, token?: string, body?: unknown) => {
    const res = await fetch(url + path, {
      method,
      headers: {
        "content-type": "application/json",
        ...(token ? { authorization: `Bearer ${token}` } : {}),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const json = await res.json();
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
    return json;
  };
  for (let i = 0; i < 200; i++) {
    const res = await fetch(`${url}/healthz`);
    await res.body?.cancel();
    if (res.ok) break;
    await new Promise((r) => setTimeout(r, 25));
  }
  const { access_token: token } = await call("POST", "/api/auth/login", undefined, ADMIN);
  let info: { workspaceId: string; postId: string };
  if (mode === "fresh") {
    const ws = await call("POST", "/api/workspaces", token, { name: "Bench workspace" });
    const post = await call("POST", "/api/posts", token, {
      workspace_id: ws.workspace_id,
      title: "Bench post",
      content: "",
    });
    info = { workspaceId: ws.workspace_id, postId: post.post_id };
    await Deno.writeTextFile(`${dataDir}/bench.json`, JSON.stringify(info));
  } else {
    info = JSON.parse(await Deno.readTextFile(`${dataDir}/bench.json`));
  }
  const { ticket } = await call("POST", "/api/ws/ticket", token);
  console.log(JSON.stringify({ port: stack.port, ticket, token, ...info }));
}

// ---------------------------------------------------------------- the orchestrator

/** Starts this script's service child and reads its one JSON line. */
async function startService(dataDir: string, mode: "fresh" | "reuse") {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", new URL(import.meta.url).pathname, "--serve", dataDir, mode],
    stdout: "piped",
    stderr: "inherit",
    env: { LOG_LEVEL: "error" },
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  // Its one JSON line with the port; anything logged before it is skipped.
  let buffered = "";
  let info:
    | { port?: number; ticket: string; token: string; postId: string; workspaceId: string }
    | null = null;
  while (!info) {
    const { value, done } = await reader.read();
    if (done) throw new Error("the service child exited before it was ready");
    buffered += value;
    const lines = buffered.split("\n");
    buffered = lines.pop()!;
    for (const line of lines) {
      try {
        const parsed = JSON.parse(line);
        if (typeof parsed.port === "number") info = parsed;
      } catch { /* a log line */ }
    }
  }
  reader.releaseLock();
  const token = info.token;
  const target: Target = {
    url: `ws://127.0.0.1:${info.port}`,
    room: "ws",
    params: { ticket: info.ticket, docId: info.postId, workspaceId: info.workspaceId },
    mintTicket: async () => {
      const res = await fetch(`http://127.0.0.1:${info!.port}/api/ws/ticket`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}` },
      });
      if (!res.ok) throw new Error(`POST /api/ws/ticket: ${res.status}`);
      return (await res.json()).ticket as string;
    },
  };
  return { child, target, port: info.port!, token: info.token };
}

interface RunResult {
  p50: number;
  p99: number;
  max: number;
  sent: number;
  expected: number;
  delivered: number;
  lost: number;
  /** with several targets: deliveries between providers on one target, and across targets */
  same?: Latencies;
  cross?: Latencies;
}

/**
 * Every provider stamps each update with its send time in a Y.Map (`bench`, key
 * `<client>:<n>`) and types a character into `content`; every other provider records when
 * the stamp arrives. Provider `c` connects to `targets[c % targets.length]`.
 */
async function run(targets: Target[]): Promise<RunResult> {
  const providers: WebsocketProvider[] = [];
  const all: number[] = [];
  const same: number[] = [];
  const cross: number[] = [];
  const received = new Array<number>(CLIENTS).fill(0);
  for (let c = 0; c < CLIENTS; c++) {
    const target = targets[c % targets.length];
    const provider = await connect(target);
    onArrivals(provider, `${c}:`, (key, latency) => {
      all.push(latency);
      const writer = Number(key.slice(0, key.indexOf(":")));
      (writer % targets.length === c % targets.length ? same : cross).push(latency);
      received[c]++;
    });
    providers.push(provider);
  }
  if (!await until(() => providers.every((p) => p.synced), 30_000)) {
    throw new Error("not every provider synced");
  }
  const perClient = RATE * SECONDS;
  const timers: ReturnType<typeof setTimeout>[] = [];
  let sent = 0;
  await Promise.all(providers.map((provider, c) =>
    new Promise<void>((resolve) => {
      let n = 0;
      const text = provider.doc.getText("content");
      const stamps = provider.doc.getMap<number>("bench");
      const tick = () => {
        provider.doc.transact(() => {
          text.insert(
            Math.floor(Math.random() * (text.length + 1)),
            String.fromCharCode(97 + c % 26),
          );
          stamps.set(`${c}:${n}`, now());
        });
        sent++;
        if (++n >= perClient) {
          clearInterval(timer);
          resolve();
        }
      };
      // Spread the clients over the first interval so the load is even.
      let timer: ReturnType<typeof setInterval> | undefined;
      const start = setTimeout(() => {
        timer = setInterval(tick, 1000 / RATE);
        timers.push(timer);
      }, Math.random() * (1000 / RATE));
      timers.push(start);
    })
  ));
  const expected = perClient * CLIENTS * (CLIENTS - 1);
  await until(() => received.reduce((a, b) => a + b, 0) >= expected, 15_000);
  for (const p of providers) p.destroy();
  const delivered = received.reduce((a, b) => a + b, 0);
  const { p50, p99, max } = latencies(all);
  return {
    p50,
    p99,
    max,
    sent,
    expected,
    delivered,
    lost: expected - delivered,
    ...(targets.length > 1 ? { same: latencies(same), cross: latencies(cross) } : {}),
  };
}

/** Connects one provider and counts the stamps in the document the server hands it. */
async function countStored(target: Target): Promise<number> {
  const provider = await connect(target);
  try {
    await until(() => provider.synced, 30_000);
    return provider.doc.getMap("bench").size;
  } finally {
    provider.destroy();
  }
}

async function main() {
  const row = (name: string, r: RunResult) =>
    `${name.padEnd(34)} p50 ${r.p50.toFixed(1).padStart(7)} ms   p99 ${
      r.p99.toFixed(1).padStart(7)
    } ms   max ${r.max.toFixed(0).padStart(6)} ms   lost ${r.lost} of ${r.expected}`;
  console.log(
    `${CLIENTS} providers on one post, ${RATE} updates/s each for ${SECONDS} s ` +
      `(${CLIENTS * RATE} updates/s in, ${CLIENTS * RATE * (CLIENTS - 1)} deliveries/s out)`,
  );

  const dataDir = await Deno.makeTempDir({ prefix: "cps-bench-collab-" });
  let service = await startService(dataDir, "fresh");
  let ours: RunResult;
  let kept: number;
  try {
    ours = await run([service.target]);
    // Durability: kill the server outright, start it again on the same DATA_DIR, count.
    service.child.kill("SIGKILL");
    await service.child.status;
    service = await startService(dataDir, "reuse");
    kept = await countStored(service.target);
  } finally {
    service.child.kill();
    await service.child.status;
  }

  const stock = await startStock();
  let ref: RunResult;
  try {
    ref = await run([{ url: stock.url, room: "bench", params: {} }]);
  } finally {
    stock.child.kill();
    await stock.child.status;
  }
  await Deno.remove(dataDir, { recursive: true }).catch(() => {});
  const multi = INSTANCES > 1 ? await runInstances() : null;

  console.log(row("collab service (stored in KV)", ours));
  console.log(row("stock @y/websocket-server (memory)", ref));
  console.log(
    `p99 ratio: ${(ours.p99 / ref.p99).toFixed(2)} (target <= 1.5); ` +
      `updates kept after SIGKILL and restart: ${kept} of ${ours.sent}`,
  );
  if (multi) {
    const part = (name: string, l: Latencies) =>
      `  ${name.padEnd(32)} p50 ${l.p50.toFixed(1).padStart(7)} ms   p99 ${
        l.p99.toFixed(1).padStart(7)
      } ms   max ${l.max.toFixed(0).padStart(6)} ms   (${l.count} deliveries)`;
    console.log(row(`collab service, ${INSTANCES} instances, one KV`, multi));
    console.log(part("within one instance", multi.same!));
    console.log(part("across instances", multi.cross!));
    console.log(
      `cross-instance p99 ${multi.cross!.p99.toFixed(1)} ms (target < 250 ms); ` +
        `single-instance p99 ${ours.p99.toFixed(1)} ms`,
    );
  }
  Deno.exit(0);
}

/** The same load spread over INSTANCES service processes sharing one DATA_DIR. */
async function runInstances(): Promise<RunResult> {
  const dataDir = await Deno.makeTempDir({ prefix: "cps-bench-collab-n-" });
  const services = [await startService(dataDir, "fresh")];
  try {
    for (let i = 1; i < INSTANCES; i++) services.push(await startService(dataDir, "reuse"));
    return await run(services.map((s) => s.target));
  } finally {
    for (const s of services) {
      s.child.kill();
      await s.child.status;
    }
    await Deno.remove(dataDir, { recursive: true }).catch(() => {});
  }
}

/** `--at-limit`: reads of the post while writers are refused at the text limit. */
async function atLimit() {
  const LIMIT = Number(Deno.env.get("COLLAB_MAX_TEXT_CHARS") ?? 200_000);
  const filled = LIMIT - 100;
  console.log(
    `text at ${filled} of ${LIMIT} characters (20000 pieces), ${CLIENTS} writers refused ` +
      `over and over, GET /api/posts/{id} timed for ${SECONDS} s`,
  );
  const dataDir = await Deno.makeTempDir({ prefix: "cps-bench-collab-limit-" });
  const service = await startService(dataDir, "fresh");
  try {
    const url = `http://127.0.0.1:${service.port}`;
    const target = {
      url,
      postId: service.target.params.docId,
      workspaceId: service.target.params.workspaceId,
    };
    const mint = async () => {
      const res = await fetch(`${url}/api/ws/ticket`, {
        method: "POST",
        headers: { authorization: `Bearer ${service.token}` },
      });
      if (!res.ok) throw new Error(`POST /api/ws/ticket: ${res.status}`);
      return (await res.json()).ticket as string;
    };
    await fillText(target, service.target.params.ticket, filled, 20_000);
    const idle = await timeReads(target, service.token, 2_000, 30_000);
    const writers = startRefusedWriters(target, CLIENTS, mint);
    await until(() => writers.refused.every((n) => n > 0), 60_000);
    const before = writers.refused.reduce((a, b) => a + b, 0);
    const reads = await timeReads(target, service.token, SECONDS * 1000, 30_000);
    const refusals = writers.refused.reduce((a, b) => a + b, 0) - before;
    await writers.stop();
    const row = (name: string, times: number[]) =>
      `${name.padEnd(30)} p50 ${quantile(times, 0.5).toFixed(1).padStart(7)} ms   p99 ${
        quantile(times, 0.99).toFixed(1).padStart(7)
      } ms   max ${Math.max(...times).toFixed(0).padStart(6)} ms   (${times.length} reads)`;
    console.log(row("GET, no writers", idle.times));
    console.log(row(`GET, ${CLIENTS} writers refused`, reads.times));
    const wrong = reads.lengths.filter((n) => n !== filled).length;
    console.log(
      `${(refusals / SECONDS).toFixed(0)} refusals/s; reads not answered with the filled ` +
        `text within 30 s: ${wrong}; other closes: ${writers.otherCloses.length}`,
    );
  } finally {
    service.child.kill();
    await service.child.status;
    await Deno.remove(dataDir, { recursive: true }).catch(() => {});
  }
  Deno.exit(0);
}

if (Deno.args[0] === "--serve") {
  await serve(Deno.args[1], Deno.args[2] ?? "fresh");
} else if (Deno.args.includes("--at-limit")) {
  await atLimit();
} else {
  await main();
}
