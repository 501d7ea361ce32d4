/**
 * bench:api -- authenticated GET /api/workspaces/{id} through the all-in-one service at 64
 * connections, against a bare Deno.serve side by side in one run: BENCH_ROUNDS rounds
 * (default 3) of BENCH_SECONDS each (default 5), the servers taking turns within each round so
 * that a noisy neighbour weighs on all of them alike, after the service was warmed up for
 * BENCH_WARMUP_SECONDS (default 20) of the same load. Prints requests/s and p50/p99 per round
 * and the median ratio.
 *
 * Two references: a bare Deno.serve answering the same bytes (the same JSON with the same
 * headers: the gateway's `nosniff` and `no-store` carry the answer past 512 bytes, where
 * Deno's HTTP server writes the head and the body in two calls, for any server), and one
 * answering the same JSON with its content type only.
 *
 * The service runs as `deno task start` runs it: with the allocator settings of that task
 * (read from deno.json); BENCH_MALLOC_DEFAULTS=0 runs it without them, to compare.
 * BENCH_CPU_PROF=<dir> writes the service's CPU profile there (`--cpu-prof`; open it in Chrome's
 * DevTools or any .cpuprofile viewer for the flame graph).
 * Needs wrk (Debian: `apt-get install wrk`).
 */
const CPU_PROF_DIR = Deno.env.get("BENCH_CPU_PROF");
import { startTaskMallocEnv } from "./service_process.ts";

const CONNECTIONS = 64;
const DURATION = Deno.env.get("BENCH_SECONDS") ?? "5";
const ROUNDS = Number(Deno.env.get("BENCH_ROUNDS") ?? 3);
const WARMUP = Deno.env.get("BENCH_WARMUP_SECONDS") ?? "20";

async function startChild(
  script: string,
  args: string[] = [],
  extraEnv: Record<string, string> = {},
) {
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      ...(CPU_PROF_DIR && script === "./api_server.ts"
        ? ["--cpu-prof", `--cpu-prof-dir=${CPU_PROF_DIR}`]
        : []),
      new URL(script, import.meta.url).pathname,
      ...args,
    ],
    stdout: "piped",
    stderr: "inherit",
    env: { LOG_LEVEL: "warn", ...extraEnv },
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let buffered = "";
  while (!buffered.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`${script} exited before it was ready`);
    buffered += value;
  }
  reader.releaseLock();
  return { child, info: JSON.parse(buffered.split("\n")[0]) };
}

interface WrkResult {
  rps: number;
  p50: string;
  p99: string;
  errors: string;
}

async function wrk(url: string, headers: string[], seconds = DURATION): Promise<WrkResult> {
  const args = ["-t2", `-c${CONNECTIONS}`, `-d${seconds}s`, "--latency"];
  for (const h of headers) args.push("-H", h);
  args.push(url);
  let out;
  try {
    out = await new Deno.Command("wrk", { args, stdout: "piped", stderr: "piped" }).output();
  } catch {
    console.error("wrk is not installed: apt-get install -y wrk");
    Deno.exit(1);
  }
  const text = new TextDecoder().decode(out.stdout);
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(text)?.[1] ?? 0);
  const p50 = /\s50%\s+(\S+)/.exec(text)?.[1] ?? "?";
  const p99 = /\s99%\s+(\S+)/.exec(text)?.[1] ?? "?";
  const errors = /Non-2xx or 3xx responses:\s+(\d+)/.exec(text)?.[1] ?? "0";
  return { rps, p50, p99, errors };
}

const allocator = startTaskMallocEnv();
const service = await startChild("./api_server.ts", [], allocator);
const sameAnswer = await startChild("./bare_server.ts", [
  service.info.body,
  JSON.stringify(service.info.headers),
]);
const jsonOnly = await startChild("./bare_server.ts", [service.info.body]);
try {
  const auth = `Authorization: Bearer ${service.info.token}`;
  const targets = [
    {
      name: "all-in-one service",
      url: `http://127.0.0.1:${service.info.port}${service.info.path}`,
    },
    { name: "bare, same answer", url: `http://127.0.0.1:${sameAnswer.info.port}/` },
    { name: "bare, JSON only", url: `http://127.0.0.1:${jsonOnly.info.port}/` },
  ];
  // Warm each up once: the service for WARMUP seconds, which its hot code needs to be fully
  // optimized (its requests/s still climbs for about 20 s under load: 18k, 23k, 24k, 28k, 30k
  // in consecutive 5 s runs), then each bare server for 5 s.
  for (const target of targets) {
    await wrk(target.url, [auth], target === targets[0] ? WARMUP : "5");
  }
  const row = (name: string, r: WrkResult) =>
    `${name.padEnd(22)} ${r.rps.toFixed(0).padStart(8)} req/s   p50 ${r.p50.padStart(8)}   p99 ${
      r.p99.padStart(8)
    }   non-2xx ${r.errors}`;
  console.log(
    `GET /api/workspaces/{id}, ${CONNECTIONS} connections, ${ROUNDS} rounds of ${DURATION}s ` +
      `each; service env: ${JSON.stringify(allocator)}`,
  );
  const ratios: number[][] = [[], []];
  for (let round = 1; round <= ROUNDS; round++) {
    const results: WrkResult[] = [];
    for (const target of targets) results.push(await wrk(target.url, [auth]));
    console.log(`round ${round}`);
    results.forEach((r, i) => console.log("  " + row(targets[i].name, r)));
    ratios[0].push(results[0].rps / results[1].rps);
    ratios[1].push(results[0].rps / results[2].rps);
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  console.log(
    `median ratio: ${(100 * median(ratios[0])).toFixed(1)}% of the bare server answering the ` +
      `same bytes; ${(100 * median(ratios[1])).toFixed(1)}% of the one answering the JSON only`,
  );
} finally {
  for (const { child } of [service, sameAnswer, jsonOnly]) {
    child.kill();
    await child.status;
  }
  if (CPU_PROF_DIR) console.log(`the service's CPU profile is in ${CPU_PROF_DIR}`);
}
