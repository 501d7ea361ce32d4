import assert from "node:assert/strict";
import { kvQueue, QUEUE_PREFIX } from "./kv_queue.ts";
import type { QueueEnvelope } from "./queue.ts";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until(check: () => boolean, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new assert.AssertionError({ message: "timed out waiting" });
    await sleep(10);
  }
}

function envelope(id: string, body: unknown = { n: id }): QueueEnvelope {
  return { id, body };
}

Deno.test("kv queue: a message is handled only when its atomic commit succeeds", async () => {
  const kv = await Deno.openKv(":memory:");
  const driver = kvQueue(kv, { backoffSchedule: [10] });
  const seen: unknown[] = [];
  const listening = driver.listen((v) => {
    seen.push(v);
    return Promise.resolve();
  });
  await kv.set(["x"], 1);
  const failed = await driver.enqueue(
    kv.atomic().check({ key: ["x"], versionstamp: null }),
    envelope("lost"),
    { keysIfUndelivered: [] },
  ).commit();
  assert.equal(failed.ok, false);
  const started = Date.now();
  await driver.enqueue(kv.atomic().set(["y"], 1), envelope("a"), { keysIfUndelivered: [] })
    .commit();
  await until(() => seen.length === 1);
  assert.ok(Date.now() - started < 1_000, "an enqueue wakes the listener at once");
  assert.deepEqual(seen, [envelope("a")]);
  await sleep(50);
  const left = await Array.fromAsync(kv.list({ prefix: [QUEUE_PREFIX, "due"] }));
  assert.equal(left.length, 0, "a handled message is gone");
  kv.close();
  await listening; // ends when the KV closes
});

Deno.test("kv queue: a delayed message waits for its delay", async () => {
  const kv = await Deno.openKv(":memory:");
  const driver = kvQueue(kv, { backoffSchedule: [] });
  const at: number[] = [];
  const listening = driver.listen(() => {
    at.push(Date.now());
    return Promise.resolve();
  });
  const started = Date.now();
  await driver.enqueue(kv.atomic(), envelope("d"), { delay: 400, keysIfUndelivered: [] }).commit();
  await until(() => at.length === 1);
  assert.ok(at[0] - started >= 400, `ran after ${at[0] - started} ms`);
  assert.ok(at[0] - started < 1_500, `ran after ${at[0] - started} ms`);
  kv.close();
  await listening;
});

Deno.test(
  "kv queue: a failing message is retried on its backoff, then kept as a dead letter",
  async () => {
    const kv = await Deno.openKv(":memory:");
    const driver = kvQueue(kv, { backoffSchedule: [50, 100] });
    const at: number[] = [];
    const listening = driver.listen(() => {
      at.push(Date.now());
      return Promise.reject(new Error("down"));
    });
    await driver.enqueue(kv.atomic(), envelope("f"), { keysIfUndelivered: [["dead", "f"]] })
      .commit();
    await until(() => at.length === 3);
    await sleep(300);
    assert.equal(at.length, 3, "one attempt and two retries, no more");
    assert.ok(at[1] - at[0] >= 50 && at[2] - at[1] >= 100, JSON.stringify(at));
    assert.deepEqual((await kv.get(["dead", "f"])).value, envelope("f"));
    const left = await Array.fromAsync(kv.list({ prefix: [QUEUE_PREFIX, "due"] }));
    assert.equal(left.length, 0);
    kv.close();
    await listening;
  },
);

Deno.test("kv queue: a message whose consumer died is run again when its lease expires", async () => {
  const kv = await Deno.openKv(":memory:");
  const driver = kvQueue(kv, { backoffSchedule: [], leaseMs: 300 });
  // What a consumer that died mid-handler leaves behind: the entry, leased until 300 ms from now.
  const leasedUntil = Date.now() + 300;
  await kv.set([QUEUE_PREFIX, "due", leasedUntil, "m"], {
    envelope: envelope("m"),
    attempts: 1,
    keysIfUndelivered: [],
  });
  const at: number[] = [];
  const listening = driver.listen(() => {
    at.push(Date.now());
    return Promise.resolve();
  });
  await until(() => at.length === 1);
  assert.ok(at[0] >= leasedUntil, "not before the lease ran out");
  assert.ok(at[0] - leasedUntil < 500, `${at[0] - leasedUntil} ms after the lease ran out`);
  kv.close();
  await listening;
});

Deno.test("kv queue: a long handler keeps its lease, so nobody else runs it meanwhile", async () => {
  const kv = await Deno.openKv(":memory:");
  const one = kvQueue(kv, { backoffSchedule: [], leaseMs: 150 });
  const two = kvQueue(kv, { backoffSchedule: [], leaseMs: 150 });
  let runs = 0;
  const slow = async () => {
    runs++;
    await sleep(700);
  };
  const listening = [one.listen(slow), two.listen(slow)];
  await one.enqueue(kv.atomic(), envelope("slow"), { keysIfUndelivered: [] }).commit();
  await until(() => runs === 1);
  await sleep(1_000);
  assert.equal(runs, 1);
  kv.close();
  await Promise.all(listening);
});

Deno.test("kv queue: two consumers on one KV run each of 60 messages exactly once", async () => {
  const kv = await Deno.openKv(":memory:");
  const a = kvQueue(kv, { backoffSchedule: [] });
  const b = kvQueue(kv, { backoffSchedule: [] });
  const runs = new Map<string, number>();
  const handle = async (v: unknown) => {
    const id = (v as QueueEnvelope).id;
    runs.set(id, (runs.get(id) ?? 0) + 1);
    await sleep(5);
  };
  const listening = [a.listen(handle), b.listen(handle)];
  for (let i = 0; i < 60; i++) {
    await (i % 2 ? a : b).enqueue(kv.atomic(), envelope(`m${i}`), { keysIfUndelivered: [] })
      .commit();
  }
  await until(() => runs.size === 60);
  await sleep(100);
  assert.deepEqual([...runs.values()].filter((n) => n !== 1), []);
  kv.close();
  await Promise.all(listening);
});

Deno.test("kv queue: drainDue runs what is due now and returns, leaving delayed messages", async () => {
  const kv = await Deno.openKv(":memory:");
  const driver = kvQueue(kv, { backoffSchedule: [] });
  for (let i = 0; i < 25; i++) {
    await driver.enqueue(kv.atomic(), envelope(`m${i}`), { keysIfUndelivered: [] }).commit();
  }
  await driver.enqueue(kv.atomic(), envelope("later"), { delay: 60_000, keysIfUndelivered: [] })
    .commit();
  const seen: string[] = [];
  const ran = await driver.drainDue(async (v) => {
    await sleep(5);
    seen.push((v as QueueEnvelope).id);
  }, { budgetMs: 5_000 });
  assert.equal(ran, 25);
  assert.equal(new Set(seen).size, 25, "each due message ran once");
  assert.ok(!seen.includes("later"));
  const left = await Array.fromAsync(kv.list({ prefix: [QUEUE_PREFIX, "due"] }));
  assert.equal(left.length, 1, "only the delayed message is left");
  kv.close();
});
