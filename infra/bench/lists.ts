/**
 * bench:lists -- GET /api/ideas through the all-in-one service (a child process, as `deno task
 * start` runs it), over HTTP, at 1,000, 5,000 and 10,000 ideas in one workspace: a page of 50
 * (the first page, one from the middle of the list, and filtered by a tag and by a status) and
 * the whole unpaged list. Ideas are added through the API with 16 requests in flight; one in
 * five is converted. Each figure is the p50 (and p99) of requests made one after another.
 *
 * Targets: a page of 50 at 10,000 ideas has a p50 of at most 15 ms and within 1.5x of the same
 * page at 1,000 ideas (a page costs the same however long the list is). The unpaged list is
 * reported beside it: run this on a commit without paging for the reference (its "page" rows
 * then say the whole list came back).
 */
const SIZES = [1_000, 5_000, 10_000];
const PAGE = 50;
const PAGE_RUNS = Number(Deno.env.get("BENCH_PAGE_RUNS") ?? "300");
const WHOLE_RUNS = Number(Deno.env.get("BENCH_WHOLE_RUNS") ?? "20");
const CONCURRENCY = 16;

async function startService() {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", new URL("./api_server.ts", import.meta.url).pathname],
    stdout: "piped",
    stderr: "inherit",
    env: { LOG_LEVEL: "warn" },
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let buffered = "";
  while (!buffered.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) throw new Error("the service exited before it was ready");
    buffered += value;
  }
  reader.releaseLock();
  const info = JSON.parse(buffered.split("\n")[0]);
  return {
    child,
    url: `http://127.0.0.1:${info.port}`,
    token: info.token as string,
    ws: String(info.path).split("/").pop()!,
  };
}

const service = await startService();
const headers = { authorization: `Bearer ${service.token}`, "content-type": "application/json" };

async function call(method: string, path: string, body?: unknown) {
  const res = await fetch(service.url + path, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text.slice(0, 200)}`);
  return text ? JSON.parse(text) : null;
}

let made = 0;
/** Adds ideas until the workspace holds `total`, CONCURRENCY requests at a time. */
async function populate(total: number) {
  const worker = async () => {
    while (made < total) {
      const n = made++;
      const idea = await call("POST", "/api/ideas", {
        workspace_id: service.ws,
        title: `Idea ${n}: what paging a long list of ideas taught us about latency`,
        tags: [`t${n % 10}`, n % 3 ? "odd-thirds" : "thirds"],
      });
      if (n % 5 === 0) {
        await call("PUT", `/api/ideas/${idea.idea_id}/status`, {
          workspace_id: service.ws,
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

/** `runs` requests of `path` one after another (after a warm-up); their p50 and p99. */
async function measure(path: string, runs: number): Promise<Timing> {
  let items = 0;
  let paged = false;
  for (let i = 0; i < Math.min(10, runs); i++) await call("GET", path);
  const ms: number[] = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    const res = await fetch(service.url + path, { headers });
    const body = await res.json();
    ms.push(performance.now() - started);
    if (!res.ok) throw new Error(`GET ${path}: ${res.status}`);
    items = body.items.length;
    paged = "next_cursor" in body;
  }
  ms.sort((a, b) => a - b);
  const pct = (p: number) => ms[Math.min(ms.length - 1, Math.floor(p * ms.length))];
  return { p50: pct(0.5), p99: pct(0.99), items, paged };
}

/** The cursor of the page that starts half-way down the list (walked there 200 at a time). */
async function middleCursor(total: number): Promise<string | null> {
  let cursor: string | null = null;
  for (let seen = 0; seen < total / 2;) {
    const q = `/api/ideas?workspaceId=${service.ws}&limit=200${cursor ? `&cursor=${cursor}` : ""}`;
    const page = await call("GET", q);
    if (!("next_cursor" in page)) return null;
    seen += page.items.length;
    cursor = page.next_cursor;
  }
  return cursor;
}

const list = `/api/ideas?workspaceId=${service.ws}`;
const rows: { size: number; what: string; t: Timing }[] = [];
try {
  for (const size of SIZES) {
    const started = performance.now();
    await populate(size);
    console.error(
      `${size} ideas in the workspace (added in ${
        ((performance.now() - started) / 1000).toFixed(1)
      } s)`,
    );
    const middle = await middleCursor(size);
    const cases: [string, string, number][] = [
      [`page of ${PAGE}, first`, `${list}&limit=${PAGE}`, PAGE_RUNS],
      ...(middle
        ? [
          [`page of ${PAGE}, mid-list`, `${list}&limit=${PAGE}&cursor=${middle}`, PAGE_RUNS] as [
            string,
            string,
            number,
          ],
        ]
        : []),
      [`page of ${PAGE}, tags=t3`, `${list}&limit=${PAGE}&tags=t3`, PAGE_RUNS],
      [`page of ${PAGE}, status=converted`, `${list}&limit=${PAGE}&status=converted`, PAGE_RUNS],
      ["whole list (no limit)", list, WHOLE_RUNS],
    ];
    for (const [what, path, runs] of cases) rows.push({ size, what, t: await measure(path, runs) });
  }

  console.log(`GET /api/ideas over HTTP through the gateway; p50 / p99 of requests one at a time`);
  console.log(
    [
      "ideas".padStart(6),
      "request".padEnd(30),
      "p50 ms".padStart(8),
      "p99 ms".padStart(8),
      "items".padStart(7),
    ]
      .join("  "),
  );
  for (const { size, what, t } of rows) {
    const note = what.startsWith("page") && !t.paged
      ? "  (no paging here: the whole list came back)"
      : "";
    console.log(
      [
        String(size).padStart(6),
        what.padEnd(30),
        t.p50.toFixed(2).padStart(8),
        t.p99.toFixed(2).padStart(8),
        String(t.items).padStart(7),
      ].join("  ") + note,
    );
  }
  const first = (size: number) => rows.find((r) => r.size === size && r.what.endsWith("first"))!.t;
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
  service.child.kill("SIGTERM");
  await service.child.status;
}
