/**
 * bench:backup -- backup and restore of 100,000 KV entries and 1,000 assets (100 MiB in all)
 * through the admin API of the all-in-one service. Each phase runs in its own process so its
 * peak RSS (VmHWM) is its own; prints time and peak memory of each. Target: peak RSS under
 * 256 MiB for both (the archive is streamed, never held whole in memory).
 *
 * Env: BENCH_ENTRIES (100000), BENCH_ASSETS (1000), BENCH_ASSET_BYTES (104857),
 * BENCH_V8_FLAGS (none; added to the start tasks' `--expose-gc`, e.g. `--max-old-space-size=128`).
 */
import { startAllInOne } from "../all_in_one.ts";

const ENTRIES = Number(Deno.env.get("BENCH_ENTRIES") ?? 100_000);
const ASSETS = Number(Deno.env.get("BENCH_ASSETS") ?? 1_000);
const ASSET_BYTES = Number(Deno.env.get("BENCH_ASSET_BYTES") ?? 104_857);
/** V8 flags for the phase processes, e.g. `--max-old-space-size=128` (BENCH_V8_FLAGS). */
const V8_FLAGS = Deno.env.get("BENCH_V8_FLAGS") ?? "";
const ADMIN = { email: "bench-admin@example.test", password: "Bench-Passw0rd!", name: "Bench" };

function peakRssMiB(): number {
  const status = Deno.readTextFileSync("/proc/self/status");
  const kb = Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return Math.round(kb / 1024);
}

function env(dataDir: string, port: number): Record<string, string> {
  return {
    PORT: String(port),
    HOST: "127.0.0.1",
    DATA_DIR: dataDir,
    PUBLIC_URL: `http://127.0.0.1:${port}`,
    INTERNAL_SECRET: "bench-internal-secret-0123456789",
    ADMIN_EMAIL: ADMIN.email,
    ADMIN_PASSWORD: ADMIN.password,
    ADMIN_NAME: ADMIN.name,
    RECAPTCHA_SECRET: "",
  };
}

async function adminToken(url: string): Promise<string> {
  const res = await fetch(`${url}/api/auth/login`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ email: ADMIN.email, password: ADMIN.password }),
  });
  if (!res.ok) throw new Error(`login failed: ${res.status} ${await res.text()}`);
  return (await res.json()).access_token;
}

/** One phase in this process: start the stack on DATA_DIR, run it, print a JSON line. */
async function phase(name: "backup" | "restore", dataDir: string, key: string) {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  const stack = await startAllInOne(env(dataDir, port), { quiet: true });
  try {
    const token = await adminToken(stack.url);
    const headers = { authorization: `Bearer ${token}`, "content-type": "application/json" };
    const baseline = peakRssMiB();
    const started = performance.now();
    let result: Record<string, unknown>;
    if (name === "backup") {
      const res = await fetch(`${stack.url}/api/admin/backups`, { method: "POST", headers });
      result = await res.json();
      if (res.status !== 201) throw new Error(`backup failed: ${JSON.stringify(result)}`);
    } else {
      const res = await fetch(`${stack.url}/api/admin/backups/restore`, {
        method: "POST",
        headers,
        body: JSON.stringify({ key }),
      });
      const started = await res.json();
      if (res.status !== 200) throw new Error(`restore failed: ${JSON.stringify(started)}`);
      for (;;) {
        await new Promise((r) => setTimeout(r, 200));
        const job = await (await fetch(`${stack.url}/api/admin/restores/${started.job_id}`, {
          headers,
        })).json();
        if (job.status === "succeeded" || job.status === "failed") {
          result = job;
          break;
        }
      }
      if (result.status !== "succeeded") throw new Error(`restore failed: ${result.error}`);
    }
    const seconds = (performance.now() - started) / 1000;
    console.log(JSON.stringify({
      phase: name,
      seconds,
      peak_rss_mib: peakRssMiB(),
      baseline_rss_mib: baseline,
      result,
    }));
  } finally {
    await stack.close();
  }
}

/** Fills DATA_DIR: ENTRIES KV entries (in the ideas and posts keyspaces) and ASSETS files. */
async function seed(dataDir: string) {
  for (const service of ["ideas", "posts"]) {
    const kv = await Deno.openKv(`${dataDir}/${service}.kv`);
    const half = Math.ceil(ENTRIES / 2);
    for (let i = 0; i < half; i += 500) {
      const op = kv.atomic();
      for (let j = i; j < Math.min(i + 500, half); j++) {
        op.set(["bench", service, j], {
          id: `${service}-${j}`,
          text: `entry ${j} `.repeat(12),
          at: new Date(),
          n: j,
        });
      }
      await op.commit();
    }
    kv.close();
  }
  const dir = `${dataDir}/assets/bench`;
  await Deno.mkdir(dir, { recursive: true });
  const bytes = new Uint8Array(ASSET_BYTES);
  for (let i = 0; i < ASSETS; i++) {
    for (let o = 0; o < bytes.length; o += 65536) {
      crypto.getRandomValues(bytes.subarray(o, Math.min(o + 65536, bytes.length)));
    }
    await Deno.writeFile(`${dir}/asset-${i}.bin`, bytes);
  }
}

async function runChild(phaseName: string, dataDir: string, key = "") {
  const out = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      // As `deno task start` runs the stack (--expose-gc lets backups collect as they go).
      `--v8-flags=${["--expose-gc", ...(V8_FLAGS ? [V8_FLAGS] : [])].join(",")}`,
      new URL(import.meta.url).pathname,
      phaseName,
      dataDir,
      key,
    ],
    stdout: "piped",
    stderr: "inherit",
    env: { LOG_LEVEL: "warn" },
  }).output();
  const text = new TextDecoder().decode(out.stdout);
  const line = text.split("\n").find((l) => l.startsWith('{"phase"'));
  if (!out.success || !line) throw new Error(`${phaseName} failed:\n${text}`);
  return JSON.parse(line);
}

if (Deno.args[0] === "backup" || Deno.args[0] === "restore") {
  await phase(Deno.args[0], Deno.args[1], Deno.args[2] ?? "");
} else {
  const dataDir = await Deno.makeTempDir({ prefix: "cps-bench-backup-" });
  try {
    console.log(`seeding ${ENTRIES} KV entries and ${ASSETS} assets of ${ASSET_BYTES} bytes...`);
    await seed(dataDir);
    const backup = await runChild("backup", dataDir);
    const b = backup.result;
    console.log(
      `backup:  ${backup.seconds.toFixed(1)} s, peak RSS ${backup.peak_rss_mib} MiB ` +
        `(idle stack ${backup.baseline_rss_mib} MiB) ` +
        `(${b.item_count} KV entries, ${b.asset_count} assets, ` +
        `${(b.size_bytes / 1024 / 1024).toFixed(1)} MiB archive)`,
    );
    const restore = await runChild("restore", dataDir, b.key);
    console.log(
      `restore: ${restore.seconds.toFixed(1)} s, peak RSS ${restore.peak_rss_mib} MiB ` +
        `(idle stack ${restore.baseline_rss_mib} MiB) ` +
        `(job ${restore.result.status})`,
    );
    const ok = backup.peak_rss_mib < 256 && restore.peak_rss_mib < 256;
    console.log(ok ? "both under the 256 MiB target" : "OVER the 256 MiB target");
  } finally {
    await Deno.remove(dataDir, { recursive: true }).catch(() => {});
  }
}
