/**
 * bench:notify -- notifications under a burst and at volume, through the all-in-one service.
 *
 * 1. 200 members of one workspace, each mentioned once in one burst of comments (20 comments
 *    of 10 mentions each, sent at once): the time until every member has its `mentioned`
 *    notification (goal: all within 5 s).
 * 2. One user with 10,000 notifications (kept through auth's internal route, the path every DM
 *    takes): `GET /api/notifications` first page and a deep page, p50/p99 (goal: p99 < 20 ms a
 *    page), against the same call at 100 notifications in the same run.
 *
 * Env: BENCH_MEMBERS (200), BENCH_NOTIFICATIONS (10000).
 */
if (!Deno.env.get("LOG_LEVEL")) Deno.env.set("LOG_LEVEL", "warn");
const { api, startTestStack } = await import("../../tests/helpers/stack.ts");
const { createUser } = await import("../../tests/helpers/users.ts");
const { ulid } = await import("ulid");

const MEMBERS = Number(Deno.env.get("BENCH_MEMBERS") ?? "200");
const NOTIFICATIONS = Number(Deno.env.get("BENCH_NOTIFICATIONS") ?? "10000");
const PER_COMMENT = 10;

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))];

/** Runs `work` over `items` with `concurrency` in flight. */
async function pool<T>(items: T[], concurrency: number, work: (item: T) => Promise<void>) {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < items.length) await work(items[next++]);
    }),
  );
}

const stack = await startTestStack();
try {
  const owner = await createUser(stack, { name: "Bench Owner" });
  const ws = await api(stack, "POST", "/api/workspaces", {
    token: owner.access_token,
    body: { name: "Bench notify" },
  });
  const wsId = ws.body.workspace_id as string;
  const members: Awaited<ReturnType<typeof createUser>>[] = [];
  await pool([...Array(MEMBERS).keys()], 8, async (i) => {
    const user = await createUser(stack, { name: `Member ${i}` });
    const added = await api(stack, "POST", `/api/workspaces/${wsId}/members`, {
      token: owner.access_token,
      body: { email: user.email, role: "viewer" },
    });
    if (added.status !== 201) throw new Error(`add member: ${added.status}`);
    members.push(user);
  });
  const post = await api(stack, "POST", "/api/posts", {
    token: owner.access_token,
    body: { workspace_id: wsId, content: "Mention burst" },
  });
  const postId = post.body.post_id as string;
  const mentioned = async (user: (typeof members)[number]) => {
    const res = await api(stack, "GET", "/api/notifications?limit=50", {
      token: user.access_token,
    });
    return res.body.items.some((n: { template: string }) => n.template === "mentioned");
  };

  // ---------------------------------------------------------------- the burst
  const groups: (typeof members)[] = [];
  for (let i = 0; i < members.length; i += PER_COMMENT) {
    groups.push(members.slice(i, i + PER_COMMENT));
  }
  const started = performance.now();
  await Promise.all(groups.map(async (group, i) => {
    const res = await api(stack, "POST", `/api/posts/${postId}/comments`, {
      token: owner.access_token,
      body: {
        workspace_id: wsId,
        body: `Burst ${i}: ${group.map((m) => `@${m.name}`).join(" ")}`,
        mentions: group.map((m) => m.user_id),
      },
    });
    if (res.status !== 201) throw new Error(`comment: ${res.status} ${JSON.stringify(res.body)}`);
  }));
  const posted = performance.now() - started;
  let waiting = [...members];
  while (waiting.length > 0 && performance.now() - started < 60_000) {
    const found = await Promise.all(waiting.map(mentioned));
    waiting = waiting.filter((_, i) => !found[i]);
    if (waiting.length > 0) await new Promise((r) => setTimeout(r, 50));
  }
  const allIn = performance.now() - started;
  console.log(
    `burst: ${groups.length} comments mentioning ${members.length} members posted in ` +
      `${posted.toFixed(0)} ms; every mentioned notification present after ${allIn.toFixed(0)} ms` +
      (waiting.length ? ` (${waiting.length} MISSING after 60 s)` : "") + " (goal < 5000 ms)",
  );

  // ---------------------------------------------------------------- paging at volume
  const keep = async (userEmail: string, count: number) => {
    await pool([...Array(count).keys()], 16, async (i) => {
      const res = await stack.internal("auth", "POST", "/internal/notifications", {
        message_id: ulid(),
        message: {
          channel: "dm",
          to: userEmail,
          template: "mentioned",
          subject: "s",
          text: "t",
          data: { post_id: postId, excerpt: `Notification ${i}` },
        },
      });
      await res.body?.cancel();
      if (res.status !== 200) throw new Error(`keep: ${res.status}`);
    });
  };
  const small = await createUser(stack, { name: "Few" });
  const big = await createUser(stack, { name: "Many" });
  const fillStarted = performance.now();
  await keep(small.email, 100);
  await keep(big.email, NOTIFICATIONS);
  console.log(
    `kept ${NOTIFICATIONS + 100} notifications in ${
      ((performance.now() - fillStarted) / 1000).toFixed(1)
    } s`,
  );
  const measure = async (user: typeof big, pages: number, deep: boolean) => {
    const times: number[] = [];
    let cursor: string | null = null;
    for (let i = 0; i < pages; i++) {
      const path: string = `/api/notifications?limit=50${
        deep && cursor ? `&cursor=${cursor}` : ""
      }`;
      const t0 = performance.now();
      const res = await fetch(`${stack.url}${path}`, {
        headers: { authorization: `Bearer ${user.access_token}` },
      });
      const body = await res.json();
      times.push(performance.now() - t0);
      cursor = body.next_cursor ?? null;
      if (deep && !cursor) cursor = null;
    }
    times.sort((a, b) => a - b);
    return { p50: percentile(times, 0.5), p99: percentile(times, 0.99) };
  };
  await measure(big, 50, false); // warm-up
  const at100 = await measure(small, 300, false);
  const first = await measure(big, 300, false);
  const deep = await measure(big, 199, true);
  const fmt = (r: { p50: number; p99: number }) =>
    `p50 ${r.p50.toFixed(2)} ms, p99 ${r.p99.toFixed(2)} ms`;
  console.log(`GET /api/notifications?limit=50 at 100 notifications: ${fmt(at100)}`);
  console.log(`GET /api/notifications?limit=50 at ${NOTIFICATIONS}, first page: ${fmt(first)}`);
  console.log(
    `GET /api/notifications?limit=50 at ${NOTIFICATIONS}, paging through: ${
      fmt(deep)
    } (goal p99 < 20 ms)`,
  );
  console.log(JSON.stringify({
    burst_all_present_ms: Math.round(allIn),
    missing: waiting.length,
    page_p99_ms_at_100: Number(at100.p99.toFixed(2)),
    page_p99_ms_first: Number(first.p99.toFixed(2)),
    page_p99_ms_paging: Number(deep.p99.toFixed(2)),
  }));
} finally {
  await stack.close();
}
