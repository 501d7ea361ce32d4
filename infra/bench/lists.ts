/**
 * bench:lists -- GET /api/ideas through the all-in-one service (a child process, as `deno task
 * start` runs it), over HTTP, at 1,000, 5,000 and 10,000 ideas in one workspace: a page of 50
 * (the first page, one from the middle of the list, and filtered by a tag and by a status) and
 * the whole unpaged list. Ideas are added through the API with 16 requests in flight; one in
 * five is converted. Each figure is the p50 (and p99) of requests made one after another.
 *
 * With BENCH_REFERENCE=<another checkout of this repository> (main, say), that checkout's
 * service runs beside this one with the same ideas, and every request goes to both in turn, so
 * both columns see the same machine load. A checkout without paging answers the whole list to
 * `limit`: its page rows say so.
 *
 * Targets: a page of 50 at 10,000 ideas has a p50 of at most 15 ms and within 1.5x of the same
 * page at 1,000 ideas (a page costs the same however long the list is).
 */
const SIZES = [1_000, 5_000, 10_000];
const PAGE = 50;
const PAGE_RUNS = Number(Deno.env.get("BENCH_PAGE_RUNS") ?? "300");
const WHOLE_RUNS = Number(Deno.env.get("BENCH_WHOLE_RUNS") ?? "20");
const CONCURRENCY = 16;
const REFERENCE = Deno.env.get("BENCH_REFERENCE");

interface Target {
  name: string;
  child: Deno.ChildProcess;
  url: string;
  headers: Record<string, string>;
  ws: string;
  made: number;
}

/** The service of the checkout at `root` (this one by default), ready, with a workspace. */
async function startService(name: string, root: URL): Promise<Target> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", new URL("infra/bench/api_server.ts", root).pathname],
    cwd: root.pathname,
    stdout: "piped",
    stderr: "inherit",
    env: { LOG_LEVEL: "warn" },
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let buffered = "";
  while (!buffered.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`the ${name} service exited before it was ready`);
    buffered += value;
  }
  reader.releaseLock();
  const info = JSON.parse(buffered.split("\n")[0]);
  return {
    name,
    child,
    url: `http://127.0.0.1:${info.port}`,
    headers: { authorization: `Bearer ${info.token}`, "content-type": "application/json" },
    ws: String(info.path).split("/").pop()!,
    made: 0,
  };
}

async function call(t: Target, method: string, path: string, body?: unknown) {
  const res = await fetch(t.url + path, {
    method,
    headers: t.headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${t.name}: ${method} ${path}: ${res.status} ${text.slice(0, 200)}`);
  return text ? JSON.parse(text) : null;
}

/** Adds ideas until the workspace holds `total`, CONCURRENCY requests at a time. */
async function populate(t: Target, total: number) {
  const worker = async () => {
    while (t.made < total) {
      const n = t.made++;
      const idea = await call(t, "POST", "/api/ideas", {
        workspace_id: t.ws,
        title: `Idea ${n}: what paging a long list of ideas taught us about latency`,
        tags: [`t${n % 10}`, n % 3 ? "odd-thirds" : "thirds"],
      });
      if (n % 5 === 0) {
        await call(t, "PUT", `/api/ideas/${idea.idea_id}/status`, {
          workspace_id: t.ws,
          status: "converted",
        });
      }
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
}

interface Timing {
  p50: number;
  p99: number;
  items: number;
  paged: boolean;
}

/**
 * `runs` requests of each target's path (after a warm-up); the p50 and p99 of each. With
 * `interleave` the targets take turns request by request (the whole list: both see the same
 * moment's load), else each runs alone in turn (a page: its few milliseconds are not measured
 * while the other process is still collecting the garbage of a whole list). A target whose path
 * is null is skipped.
 */
async function measure(
  targets: Target[],
  pathOf: (t: Target) => string | null,
  runs: number,
  interleave: boolean,
): Promise<(Timing | null)[]> {
  if (!interleave && targets.length > 1) {
    const alone = [];
    for (const t of targets) alone.push((await measure([t], pathOf, runs, true))[0]);
    return alone;
  }
  const ms = targets.map(() => [] as number[]);
  const seen = targets.map(() => ({ items: 0, paged: false }));
  // A build without paging answers the whole list to `limit`: WHOLE_RUNS of those say enough.
  const cap = targets.map(() => runs);
  for (let i = -Math.min(10, runs); i < runs; i++) {
    for (const [k, t] of targets.entries()) {
      const path = pathOf(t);
      if (path === null || ms[k].length >= cap[k]) continue;
      const started = performance.now();
      const res = await fetch(t.url + path, { headers: t.headers });
      const body = await res.json();
      const took = performance.now() - started;
      if (!res.ok) throw new Error(`${t.name}: GET ${path}: ${res.status}`);
      if (i >= 0) ms[k].push(took);
      seen[k] = { items: body.items.length, paged: "next_cursor" in body };
      if (path.includes("limit=") && !seen[k].paged) cap[k] = Math.min(runs, WHOLE_RUNS);
    }
  }
  return ms.map((list, k) => {
    if (list.length === 0) return null;
    list.sort((a, b) => a - b);
    const pct = (p: number) => list[Math.min(list.length - 1, Math.floor(p * list.length))];
    return { p50: pct(0.5), p99: pct(0.99), ...seen[k] };
  });
}

/** The cursor of the page that starts half-way down the list (walked there 200 at a time). */
async function middleCursor(t: Target, total: number): Promise<string | null> {
  let cursor: string | null = null;
  for (let seen = 0; seen < total / 2;) {
    const q = `/api/ideas?workspaceId=${t.ws}&limit=200${cursor ? `&cursor=${cursor}` : ""}`;
    const page = await call(t, "GET", q);
    if (!("next_cursor" in page)) return null;
    seen += page.items.length;
    cursor = page.next_cursor;
  }
  return cursor;
}

const targets = [await startService("this", new URL("../../", import.meta.url))];
if (REFERENCE) {
  targets.push(
    await startService("reference", new URL(`${REFERENCE.replace(/\/?$/, "/")}`, "file:///")),
  );
}
const list = (t: Target) => `/api/ideas?workspaceId=${t.ws}`;
const rows: { size: number; what: string; t: (Timing | null)[] }[] = [];
try {
  for (const size of SIZES) {
    const started = performance.now();
    await Promise.all(targets.map((t) => populate(t, size)));
    const took = ((performance.now() - started) / 1000).toFixed(1);
    console.error(`${size} ideas in the workspace (added in ${took} s)`);
    const middle = new Map<Target, string | null>();
    for (const t of targets) middle.set(t, await middleCursor(t, size));
    const cases: [string, (t: Target) => string | null, number][] = [
      [`page of ${PAGE}, first`, (t) => `${list(t)}&limit=${PAGE}`, PAGE_RUNS],
      [`page of ${PAGE}, mid-list`, (t) => {
        const cursor = middle.get(t);
        return cursor ? `${list(t)}&limit=${PAGE}&cursor=${cursor}` : null;
      }, PAGE_RUNS],
      [`page of ${PAGE}, tags=t3`, (t) => `${list(t)}&limit=${PAGE}&tags=t3`, PAGE_RUNS],
      [
        `page of ${PAGE}, status=converted`,
        (t) => `${list(t)}&limit=${PAGE}&status=converted`,
        PAGE_RUNS,
      ],
      ["whole list (no limit)", list, WHOLE_RUNS],
    ];
    for (const [what, pathOf, runs] of cases) {
      const whole = !what.startsWith("page");
      rows.push({ size, what, t: await measure(targets, pathOf, runs, whole) });
    }
  }

  // A page request answered with the whole list: that build does not page.
  const unpaged = (what: string, t: Timing | null) => what.startsWith("page") && !!t && !t.paged;
  const cell = (what: string, t: Timing | null) =>
    t === null
      ? "—".padStart(8) + "  " + "—".padStart(8) + "  " + "—".padStart(6)
      : [t.p50.toFixed(2).padStart(8), t.p99.toFixed(2).padStart(8), String(t.items).padStart(6)]
        .join("  ") + (unpaged(what, t) ? "*" : " ");
  console.log(
    "GET /api/ideas over HTTP through the gateway; p50 / p99 ms of requests one at a time",
  );
  console.log(
    [
      "ideas".padStart(6),
      "request".padEnd(30),
      ...targets.map((t) => `${t.name}: p50 ms    p99 ms   items`.padStart(35)),
    ].join("  "),
  );
  for (const { size, what, t } of rows) {
    console.log(
      [String(size).padStart(6), what.padEnd(30), ...t.map((x) => cell(what, x).padStart(35))]
        .join("  "),
    );
  }
  if (rows.some(({ what, t }) => t.some((x) => unpaged(what, x)))) {
    console.log("* no paging in that build: the whole (filtered) list came back for `limit`");
  }
  const first = (size: number) =>
    rows.find((r) => r.size === size && r.what.endsWith("first"))!.t[0]!;
  const small = first(SIZES[0]);
  const large = first(SIZES[SIZES.length - 1]);
  if (!large.paged) {
    console.log("target: not applicable (this build answers the whole list for limit)");
  } else {
    const ratio = large.p50 / small.p50;
    const met = large.p50 <= 15 && ratio <= 1.5;
    console.log(
      `target (page of ${PAGE} at ${SIZES.at(-1)} ideas p50 <= 15 ms and <= 1.5x the page at ${
        SIZES[0]
      }): ` +
        `${large.p50.toFixed(2)} ms, ${ratio.toFixed(2)}x: ${met ? "met" : "NOT met"}`,
    );
    if (!met) Deno.exitCode = 1;
  }
} finally {
  for (const t of targets) {
    t.child.kill("SIGTERM");
    await t.child.status;
  }
}
