/**
 * bench:capture -- POST /api/quick-capture at 32 connections through the all-in-one service,
 * while a fake AI backend answers every title request after 200 ms. Prints captures/s and
 * p50/p99. Target: at least 100 captures/s and p99 under 1 s, which only holds if captures
 * wait for their own AI call and never queue behind one another's.
 */
// Quiet by default: the test stack passes this process's LOG_LEVEL on to its logger.
if (!Deno.env.get("LOG_LEVEL")) Deno.env.set("LOG_LEVEL", "warn");
const { startFakeChatCompletions } = await import("../../tests/fakes/chat_completions.ts");
const { api, startTestStack } = await import("../../tests/helpers/stack.ts");
const { createUser } = await import("../../tests/helpers/users.ts");

const CONNECTIONS = 32;
const AI_DELAY_MS = 200;
const SECONDS = Number(Deno.env.get("BENCH_SECONDS") ?? "10");
const WARMUP_SECONDS = 1;

const ai = startFakeChatCompletions({
  defaultAnswer: { delayMs: AI_DELAY_MS, content: "Benchmark title" },
});
// The per-token capture limit is off: the bench measures throughput through one token.
const stack = await startTestStack({
  OPENAI_BASE_URL: ai.baseUrl,
  OPENAI_API_KEY: "bench",
  CAPTURES_PER_MINUTE: "0",
});

try {
  const user = await createUser(stack);
  const ws = await api(stack, "POST", "/api/workspaces", {
    token: user.access_token,
    body: { name: "Bench" },
  });
  const tokenRes = await api(stack, "POST", "/api/quick-capture/token", {
    token: user.access_token,
    body: { workspace_id: ws.body.workspace_id },
  });
  const captureToken = tokenRes.body.token as string;
  const url = `${stack.url}/api/quick-capture`;
  const headers = { "content-type": "application/json", "x-capture-token": captureToken };

  /** One connection's loop: capture after capture until `until`, recording what it saw. */
  const loop = async (id: number, until: number, latencies: number[], failures: number[]) => {
    let n = 0;
    while (performance.now() < until) {
      const body = JSON.stringify({ title: `Idea ${id}-${n++}: benchmarks keep us honest.` });
      const started = performance.now();
      const res = await fetch(url, { method: "POST", headers, body });
      await res.body?.cancel();
      const ms = performance.now() - started;
      if (res.status === 201) latencies.push(ms);
      else failures.push(res.status);
    }
  };

  const run = async (seconds: number) => {
    const latencies: number[] = [];
    const failures: number[] = [];
    const started = performance.now();
    const until = started + seconds * 1000;
    await Promise.all(
      Array.from({ length: CONNECTIONS }, (_, i) => loop(i, until, latencies, failures)),
    );
    const elapsed = (performance.now() - started) / 1000;
    latencies.sort((a, b) => a - b);
    const pct = (p: number) =>
      latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))] ?? 0;
    return { count: latencies.length, failures, elapsed, p50: pct(0.5), p99: pct(0.99) };
  };

  await run(WARMUP_SECONDS);
  ai.reset();
  ai.setDefault({ delayMs: AI_DELAY_MS, content: "Benchmark title" });
  const r = await run(SECONDS);

  const sample = await api(stack, "GET", `/api/ideas?workspaceId=${ws.body.workspace_id}`, {
    token: user.access_token,
  });
  const aiTitled = sample.body.items.filter((i: { title: string }) =>
    i.title === "Benchmark title"
  ).length;

  const rate = r.count / r.elapsed;
  console.log(
    `POST /api/quick-capture, ${CONNECTIONS} connections, ${SECONDS}s, AI backend answers after ${AI_DELAY_MS} ms`,
  );
  console.log(
    `captures: ${r.count} in ${r.elapsed.toFixed(1)}s = ${rate.toFixed(1)} captures/s   ` +
      `p50 ${r.p50.toFixed(0)} ms   p99 ${r.p99.toFixed(0)} ms   non-201 ${r.failures.length}`,
  );
  console.log(
    `AI title requests during the run: ${ai.requests.length}; ideas with the AI title: ${aiTitled} of ${sample.body.count}`,
  );
  const ok = rate >= 100 && r.p99 < 1000 && r.failures.length === 0;
  console.log(`target (>= 100 captures/s, p99 < 1 s, no failures): ${ok ? "met" : "NOT met"}`);
  if (!ok) Deno.exitCode = 1;
} finally {
  await stack.close();
  await ai.close();
}
