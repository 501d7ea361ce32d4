/**
 * bench:backup -- the memory of a populated stack during backup and restore.
 *
 * Starts the service as `deno task start` runs it (`deno run -A main.ts`, no V8 flags) in its own
 * process, populates it through the API (ideas, comments on a few posts, actions with one
 * attachment each), then reads that process's /proc/<pid>/status: its resting RSS once the
 * population is in, its peak RSS (VmHWM, reset before each phase through /proc/<pid>/clear_refs,
 * and sampled as well) while `POST /api/admin/backups` runs, and while a restore of that backup
 * runs to its end. Target: both peaks under 256 MiB.
 *
 * Env (defaults are the full size):
 * - BENCH_IDEAS (20000), BENCH_COMMENTS (5000), BENCH_POSTS (50, the comments are spread over
 *   them), BENCH_ACTIONS (200), BENCH_ATTACHMENT_MIB (100, in total, one attachment per action)
 * - BENCH_CONCURRENCY (16): requests in flight while populating
 * - BENCH_DATA_DIR: keep the populated DATA_DIR there and reuse it on the next run (populating
 *   is skipped when it holds a finished population of the same size); unset, a temporary one
 * - BENCH_ROOT: the checkout whose main.ts runs (another worktree, to measure an older commit)
 * - BENCH_V8_FLAGS: V8 flags for the service process (none by default, as `deno task start`)
 * - glibc malloc tunables: the service gets those `deno task start` sets (MALLOC_ARENA_MAX=2,
 *   MALLOC_TRIM_THRESHOLD_=131072, MALLOC_MMAP_THRESHOLD_=65536); `MALLOC_*` variables in the
 *   bench's environment override them, BENCH_MALLOC_DEFAULTS=0 leaves the defaults out
 */
import {
  Api,
  MiB,
  mib,
  parallel as inParallel,
  peakDuring,
  restingRss,
  ROOT,
  sleep,
  startService,
  stopService,
} from "./service_process.ts";
const num = (name: string, fallback: number) => Number(Deno.env.get(name) ?? fallback);
const IDEAS = num("BENCH_IDEAS", 20_000);
const COMMENTS = num("BENCH_COMMENTS", 5_000);
const POSTS = Math.max(1, num("BENCH_POSTS", 50));
const ACTIONS = num("BENCH_ACTIONS", 200);
const ATTACHMENT_MIB = num("BENCH_ATTACHMENT_MIB", 100);
const CONCURRENCY = Math.max(1, num("BENCH_CONCURRENCY", 16));
const SIZE_TAG = JSON.stringify({ IDEAS, COMMENTS, POSTS, ACTIONS, ATTACHMENT_MIB });

// ------------------------------------------------------------------ API

const parallel = (label: string, n: number, task: (i: number) => Promise<void>) =>
  inParallel(label, n, CONCURRENCY, task);

const words = ["launch", "pricing", "customer", "story", "roadmap", "hiring", "event", "data"];
const sentence = (i: number) =>
  Array.from({ length: 12 }, (_, j) => words[(i * 7 + j * 3) % words.length]).join(" ") +
  ` #${i}`;

export async function populate(api: Api) {
  const me = await api.call("GET", "/api/auth/me");
  const ws = await api.call("POST", "/api/workspaces", {
    name: "Bench workspace",
    description: "bench:backup",
  });
  const workspaceId: string = ws.workspace_id;
  console.error(
    `populating: ${IDEAS} ideas, ${COMMENTS} comments on ${POSTS} posts, ` +
      `${ACTIONS} actions with ${ATTACHMENT_MIB} MiB of attachments`,
  );
  await parallel("ideas", IDEAS, async (i) => {
    await api.call("POST", "/api/ideas", {
      workspace_id: workspaceId,
      title: `Idea ${i}: ${sentence(i)}`,
      tags: [words[i % words.length]],
    });
  });
  const posts: string[] = [];
  for (let i = 0; i < POSTS; i++) {
    const post = await api.call("POST", "/api/posts", {
      workspace_id: workspaceId,
      title: `Post ${i}`,
      content: sentence(i).repeat(4),
    });
    posts.push(post.post_id);
  }
  await parallel("comments", COMMENTS, async (i) => {
    await api.call("POST", `/api/posts/${posts[i % posts.length]}/comments`, {
      workspace_id: workspaceId,
      body: `Comment ${i}: ${sentence(i)}`,
    });
  });
  const perAttachment = ACTIONS ? Math.floor(ATTACHMENT_MIB * MiB / ACTIONS) : 0;
  await parallel("actions", ACTIONS, async (i) => {
    const action = await api.call("POST", "/api/actions", {
      workspace_id: workspaceId,
      title: `Action ${i}`,
      assignee_id: me.user_id,
      description: sentence(i),
    });
    if (perAttachment === 0) return;
    const upload = await api.call("POST", `/api/actions/${action.action_id}/attachments`, {
      workspace_id: workspaceId,
      filename: `scan-${i}.pdf`,
      contentType: "application/pdf",
    });
    // Random bytes: an attachment (a PDF, an image) barely compresses.
    const bytes = new Uint8Array(perAttachment);
    for (let o = 0; o < bytes.length; o += 65536) {
      crypto.getRandomValues(bytes.subarray(o, Math.min(o + 65536, bytes.length)));
    }
    const res = await fetch(upload.uploadUrl, {
      method: "PUT",
      headers: { "content-type": "application/pdf" },
      body: bytes,
    });
    await res.body?.cancel();
    if (!res.ok) throw new Error(`attachment upload: ${res.status}`);
  });
}

// ------------------------------------------------------------------ backup and restore

async function backup(api: Api) {
  return await api.call("POST", "/api/admin/backups", undefined, [201]);
}

async function restore(api: Api, key: string) {
  const started = await api.call("POST", "/api/admin/backups/restore", { key }, [200, 202]);
  for (let polls = 1;; polls++) {
    await sleep(200);
    const job = await api.call("GET", `/api/admin/restores/${started.job_id}`);
    if (polls % 50 === 0) console.error(`  restore: ${job.status} after ${polls / 5} s`);
    if (job.status === "succeeded") return job;
    if (job.status === "failed") throw new Error(`restore failed: ${job.error}`);
  }
}

// ------------------------------------------------------------------ main

/** The machine's load averages (1, 5, 15 min): the figures of a shared machine need them beside. */
const loadavg = () => Deno.readTextFileSync("/proc/loadavg").split(" ").slice(0, 3).join(" ");

async function main() {
  const loadAtStart = loadavg();
  const keep = Deno.env.get("BENCH_DATA_DIR");
  const dataDir = keep ?? await Deno.makeTempDir({ prefix: "cps-bench-backup-" });
  const marker = `${dataDir}/.bench-populated`;
  const populated = keep !== undefined &&
    await Deno.readTextFile(marker).then((t) => t === SIZE_TAG, () => false);
  if (keep && !populated) {
    await Deno.remove(dataDir, { recursive: true }).catch(() => {});
    await Deno.mkdir(dataDir, { recursive: true });
  }
  let service = await startService(dataDir);
  try {
    const api = new Api(service.url);
    await api.login();
    if (populated) {
      console.error(`reusing the population in ${dataDir}`);
    } else {
      const started = performance.now();
      await populate(api);
      await Deno.writeTextFile(marker, SIZE_TAG);
      const seconds = ((performance.now() - started) / 1000).toFixed(0);
      console.error(`populated in ${seconds} s`);
    }
    const resting = await restingRss(service.pid);
    const b = await peakDuring(service.pid, () => backup(api));
    const archive = b.result;
    const r = await peakDuring(service.pid, () => restore(api, archive.key));
    await stopService(service);
    // The same data after a restart: what the stack holds at rest without this run's warm-up.
    service = await startService(dataDir);
    const restarted = await restingRss(service.pid);

    console.log(`service: ${ROOT}; load average ${loadAtStart} at the start, ${loadavg()} now`);
    console.log(
      `population: ${IDEAS} ideas, ${COMMENTS} comments on ${POSTS} posts, ${ACTIONS} actions, ` +
        `${ATTACHMENT_MIB} MiB of attachments (${
          populated ? "reused" : "created through the API"
        })`,
    );
    console.log(
      `resting RSS: ${mib(resting)} after populating ` +
        `(restarted on the populated data: ${mib(restarted)})`,
    );
    console.log(
      `backup:  ${b.seconds.toFixed(1)} s, peak RSS ${mib(b.peak)} (${archive.item_count} KV ` +
        `entries, ${archive.asset_count} assets, ${mib(archive.size_bytes)} archive)`,
    );
    console.log(`restore: ${r.seconds.toFixed(1)} s, peak RSS ${mib(r.peak)}`);
    const ok = b.peak < 256 * MiB && r.peak < 256 * MiB;
    console.log(ok ? "both under the 256 MiB target" : "OVER the 256 MiB target");
    console.log(JSON.stringify({
      resting_rss_mib: Math.round(resting / MiB),
      restarted_rss_mib: Math.round(restarted / MiB),
      backup_peak_rss_mib: Math.round(b.peak / MiB),
      restore_peak_rss_mib: Math.round(r.peak / MiB),
      backup_seconds: Number(b.seconds.toFixed(1)),
      restore_seconds: Number(r.seconds.toFixed(1)),
      load_average: loadavg(),
    }));
  } finally {
    await stopService(service);
    if (!keep) await Deno.remove(dataDir, { recursive: true }).catch(() => {});
  }
}

if (import.meta.main) await main();
