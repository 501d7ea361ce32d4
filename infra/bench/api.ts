/**
 * bench:api -- authenticated GET /api/workspaces/{id} through the all-in-one service at 64
 * connections, against a bare Deno.serve answering the same JSON, side by side in one run.
 * Needs wrk (Debian: `apt-get install wrk`). Prints requests/s and p50/p99 for both.
 */
const CONNECTIONS = 64;
const DURATION = Deno.env.get("BENCH_SECONDS") ?? "10";

async function startChild(script: string, args: string[] = []) {
  const child = new Deno.Command(Deno.execPath(), {
    // The service runs as `deno task start` runs it.
    args: [
      "run",
      "-A",
      new URL(script, import.meta.url).pathname,
      ...args,
    ],
    stdout: "piped",
    stderr: "inherit",
    env: { LOG_LEVEL: "warn" },
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

async function wrk(url: string, headers: string[]): Promise<WrkResult> {
  const args = ["-t2", `-c${CONNECTIONS}`, `-d${DURATION}s`, "--latency"];
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

const service = await startChild("./api_server.ts");
const bare = await startChild("./bare_server.ts", [service.info.body]);
try {
  // Warm both up, then measure them one after the other in the same run.
  const auth = `Authorization: Bearer ${service.info.token}`;
  await wrk(`http://127.0.0.1:${service.info.port}${service.info.path}`, [auth]);
  const real = await wrk(`http://127.0.0.1:${service.info.port}${service.info.path}`, [auth]);
  const ref = await wrk(`http://127.0.0.1:${bare.info.port}/`, []);
  const row = (name: string, r: WrkResult) =>
    `${name.padEnd(28)} ${r.rps.toFixed(0).padStart(8)} req/s   p50 ${r.p50.padStart(8)}   p99 ${
      r.p99.padStart(8)
    }   non-2xx ${r.errors}`;
  console.log(`GET /api/workspaces/{id}, ${CONNECTIONS} connections, ${DURATION}s each`);
  console.log(row("all-in-one service", real));
  console.log(row("bare Deno.serve", ref));
  console.log(`ratio: ${(100 * real.rps / ref.rps).toFixed(1)}% of the bare server's requests/s`);
} finally {
  service.child.kill();
  bare.child.kill();
}
