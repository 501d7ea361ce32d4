/**
 * The service as its own process for the memory benchmarks (bench:backup, bench:publish):
 * started as `deno task start` runs it (`deno run -A main.ts`, no V8 flags, the start task's
 * glibc malloc tunables), and its resident memory read from /proc.
 *
 * Env: BENCH_ROOT (the checkout whose main.ts runs: another worktree, to measure an older
 * commit), BENCH_V8_FLAGS (none by default), `MALLOC_*` (override the start task's tunables),
 * BENCH_MALLOC_DEFAULTS=0 (leave them out), BENCH_DENO_ARGS (more `deno run` flags, space
 * separated, to look inside: `--cpu-prof --cpu-prof-dir=/tmp/prof`), BENCH_SERVICE_ENV
 * (`NAME=value` pairs separated by spaces, given to the service as well: a setting to compare
 * with and without).
 *
 * The memory read is the process's and its children's (none today: workers are threads).
 */
export const ROOT = Deno.env.get("BENCH_ROOT") ?? new URL("../..", import.meta.url).pathname;
const V8_FLAGS = Deno.env.get("BENCH_V8_FLAGS") ?? "";
const DENO_ARGS = (Deno.env.get("BENCH_DENO_ARGS") ?? "").split(" ").filter(Boolean);
/**
 * The `NAME=value` settings the `start` task in deno.json puts before `deno run` (the glibc
 * allocator's: fewer arenas, freed memory back to the OS), read from the task itself; none
 * with BENCH_MALLOC_DEFAULTS=0.
 */
export function startTaskMallocEnv(): Record<string, string> {
  if (Deno.env.get("BENCH_MALLOC_DEFAULTS") === "0") return {};
  const config = JSON.parse(
    Deno.readTextFileSync(new URL("../../deno.json", import.meta.url)),
  ) as { tasks: Record<string, string> };
  const start = config.tasks.start.split("&&").at(-1)!.trim();
  return Object.fromEntries(
    [...start.matchAll(/\b(MALLOC_[A-Z_]+)=(\S+)/g)].map((m) => [m[1], m[2]]),
  );
}
const MALLOC_DEFAULTS = startTaskMallocEnv();
export const BENCH_ADMIN = {
  email: "bench-admin@example.test",
  password: "Bench-Passw0rd!",
  name: "Bench",
};
export const MiB = 1024 * 1024;

export interface Service {
  url: string;
  pid: number;
  child: Deno.ChildProcess;
}

export function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  return port;
}

/** Starts main.ts on a free port over `dataDir`, with `extraEnv`; resolves once healthy. */
export async function startService(
  dataDir: string,
  extraEnv: Record<string, string> = {},
): Promise<Service> {
  const port = freePort();
  const env: Record<string, string> = {
    PATH: Deno.env.get("PATH") ?? "",
    HOME: Deno.env.get("HOME") ?? "",
    PORT: String(port),
    HOST: "127.0.0.1",
    DATA_DIR: dataDir,
    PUBLIC_URL: `http://127.0.0.1:${port}`,
    INTERNAL_SECRET: "bench-internal-secret-0123456789",
    ADMIN_EMAIL: BENCH_ADMIN.email,
    ADMIN_PASSWORD: BENCH_ADMIN.password,
    ADMIN_NAME: BENCH_ADMIN.name,
    RECAPTCHA_SECRET: "",
    LOG_LEVEL: "error",
  };
  Object.assign(env, extraEnv);
  for (const pair of (Deno.env.get("BENCH_SERVICE_ENV") ?? "").split(/\s+/).filter(Boolean)) {
    const at = pair.indexOf("=");
    if (at > 0) env[pair.slice(0, at)] = pair.slice(at + 1);
  }
  const denoDir = Deno.env.get("DENO_DIR");
  if (denoDir) env.DENO_DIR = denoDir;
  Object.assign(env, MALLOC_DEFAULTS);
  for (const [name, value] of Object.entries(Deno.env.toObject())) {
    if (name.startsWith("MALLOC_")) env[name] = value;
  }
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      ...DENO_ARGS,
      ...(V8_FLAGS ? [`--v8-flags=${V8_FLAGS}`] : []),
      "main.ts",
    ],
    cwd: ROOT,
    env,
    clearEnv: true,
    stdin: "null",
    stdout: "null",
    stderr: "inherit",
  }).spawn();
  const url = `http://127.0.0.1:${port}`;
  let exited = false;
  child.status.then(() => exited = true);
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline && !exited) {
    try {
      const res = await fetch(`${url}/healthz`);
      await res.body?.cancel();
      if (res.ok) return { url, pid: child.pid, child };
    } catch { /* not listening yet */ }
    await sleep(100);
  }
  if (exited) throw new Error("the service exited before it was healthy");
  child.kill("SIGKILL");
  throw new Error("the service did not become healthy within 120 s");
}

export async function stopService(service: Service) {
  try {
    service.child.kill("SIGTERM");
  } catch { /* gone already */ }
  await service.child.status;
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// ------------------------------------------------------------------ memory of that process

/** The process and its descendants (children of each of its threads), `pid` first. */
function processTree(pid: number): number[] {
  const out = [pid];
  for (let i = 0; i < out.length; i++) {
    let tasks: string[] = [];
    try {
      tasks = [...Deno.readDirSync(`/proc/${out[i]}/task`)].map((t) => t.name);
    } catch { /* exited */ }
    for (const task of tasks) {
      try {
        const text = Deno.readTextFileSync(`/proc/${out[i]}/task/${task}/children`);
        for (const child of text.split(/\s+/).filter(Boolean)) out.push(Number(child));
      } catch { /* exited */ }
    }
  }
  return out;
}

function statusOf(pid: number): { rss: number; hwm: number } {
  const text = Deno.readTextFileSync(`/proc/${pid}/status`);
  const kb = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(text)?.[1] ?? 0);
  return { rss: kb("VmRSS") * 1024, hwm: kb("VmHWM") * 1024 };
}

/** RSS and peak RSS (VmHWM) of the process and its children, summed. */
export function status(pid: number): { rss: number; hwm: number } {
  const total = statusOf(pid);
  for (const child of processTree(pid).slice(1)) {
    try {
      const s = statusOf(child);
      total.rss += s.rss;
      total.hwm += s.hwm;
    } catch { /* exited */ }
  }
  return total;
}

/** Resets the VmHWM of the process and its children to their current RSS (Linux: `5` into clear_refs); false if refused. */
function resetPeak(pid: number): boolean {
  try {
    Deno.writeTextFileSync(`/proc/${pid}/clear_refs`, "5");
  } catch {
    return false;
  }
  for (const child of processTree(pid).slice(1)) {
    try {
      Deno.writeTextFileSync(`/proc/${child}/clear_refs`, "5");
    } catch { /* exited */ }
  }
  return true;
}

/** Runs `work` while sampling the process's RSS every 20 ms; answers the peak seen. */
export async function peakDuring<T>(pid: number, work: () => Promise<T>) {
  const reset = resetPeak(pid);
  let sampled = status(pid).rss;
  const timer = setInterval(() => {
    try {
      sampled = Math.max(sampled, status(pid).rss);
    } catch { /* exited */ }
  }, 20);
  const started = performance.now();
  try {
    const result = await work();
    const seconds = (performance.now() - started) / 1000;
    const { hwm } = status(pid);
    return { result, seconds, peak: reset ? Math.max(hwm, sampled) : sampled };
  } finally {
    clearInterval(timer);
  }
}

/**
 * RSS once the process has been idle a while: after 31 s (auth's password-hashing worker, ~40
 * MiB while it lives, ends 5 s after its last hash; V8's memory reducer has run by then), the
 * lowest of the samples over `ms`.
 */
export async function restingRss(pid: number, ms = 4000): Promise<number> {
  await sleep(31_000);
  let low = Infinity;
  for (let t = 0; t < ms; t += 500) {
    await sleep(500);
    low = Math.min(low, status(pid).rss);
  }
  return low;
}

/** CPU time (user + system) the process has used so far, in seconds (Linux: /proc/<pid>/stat). */
export function cpuSeconds(pid: number): number {
  const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
  // The fields after the command name (in parentheses, which may hold spaces): utime is the
  // 14th field of the line, stime the 15th, in clock ticks (100 a second on Linux).
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** Runs `task(i)` for i in [0, n) with `concurrency` in flight; reports progress on stderr. */
export async function parallel(
  label: string,
  n: number,
  concurrency: number,
  task: (i: number) => Promise<void>,
) {
  let next = 0;
  let done = 0;
  const started = performance.now();
  const worker = async () => {
    while (next < n) {
      const i = next++;
      await task(i);
      if (++done % 2000 === 0) console.error(`  ${label}: ${done}/${n}`);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, concurrency) }, worker));
  console.error(`  ${label}: ${n} in ${((performance.now() - started) / 1000).toFixed(1)} s`);
}

export const mib = (bytes: number) => `${(bytes / MiB).toFixed(0)} MiB`;

/** The API as the benchmarks drive it: the admin signed in, a 401 mid-run signs in again. */
export class Api {
  token = "";
  constructor(readonly url: string) {}

  async login() {
    const res = await this.call("POST", "/api/auth/login", {
      email: BENCH_ADMIN.email,
      password: BENCH_ADMIN.password,
    });
    this.token = res.access_token;
  }

  // deno-lint-ignore no-explicit-any
  async call(method: string, path: string, body?: unknown, expect = [200, 201]): Promise<any> {
    for (let attempt = 0;; attempt++) {
      const res = await fetch(`${this.url}${path}`, {
        method,
        headers: {
          ...(this.token ? { authorization: `Bearer ${this.token}` } : {}),
          ...(body === undefined ? {} : { "content-type": "application/json" }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await res.text();
      if (res.status === 401 && this.token && attempt === 0) {
        await this.login(); // the access token ran out during a long population
        continue;
      }
      if (!expect.includes(res.status)) {
        throw new Error(`${method} ${path}: ${res.status} ${text}`);
      }
      return text ? JSON.parse(text) : null;
    }
  }
}
