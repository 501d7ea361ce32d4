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

/** A promise and its resolver, for a handler the test lets finish when it chooses. */
function gate(): { promise: Promise<void>; open: () => void } {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => open = resolve);
  return { promise, open };
}

/**
 * A driver on `kv` whose handler records each message's id and holds it until `release.open()`,
 * with one message `id` enqueued and taken by the handler.
 */
async function holdingOne(kv: Deno.Kv, id: string) {
  const driver = kvQueue(kv, { backoffSchedule: [10] });
  const started = gate();
  const release = gate();
  const runs: string[] = [];
  const listening = driver.listen(async (v) => {
    runs.push((v as QueueEnvelope).id);
    started.open();
    await release.promise;
  });
  await driver.enqueue(kv.atomic(), envelope(id), { keysIfUndelivered: [] }).commit();
  await started.promise;
  return { driver, release, runs, listening };
}

Deno.test("kv queue: close waits for a handler in flight, which completes its message", async () => {
  const kv = await Deno.openKv(":memory:");
  const { driver, release, runs, listening } = await holdingOne(kv, "busy");
  let closed = false;
  const closing = driver.close({ graceMs: 60_000 }).then((all) => {
    closed = true;
    return all;
  });
  await sleep(50);
  assert.equal(closed, false, "close waits for the running handler");
  release.open();
  assert.equal(await closing, true, "every handler finished within the grace");
  const left = await Array.fromAsync(kv.list({ prefix: [QUEUE_PREFIX, "due"] }));
  assert.deepEqual(left, [], "the finished message is completed, not left to run again");
  assert.deepEqual(runs, ["busy"]);
  kv.close();
  await listening;
});

Deno.test("kv queue: a handler slower than the close grace does not hold close past it", async () => {
  const path = `${await Deno.makeTempDir()}/queue.sqlite`;
  const kv = await Deno.openKv(path);
  const { driver, release, listening } = await holdingOne(kv, "stuck");
  const before = Date.now();
  const all = await driver.close({ graceMs: 300 });
  const took = Date.now() - before;
  assert.equal(all, false, "close reports the handler it left running");
  assert.ok(took >= 250 && took < 5_000, `close took ${took} ms`);
  kv.close();
  await listening;
  release.open(); // it finishes after the KV closed: its message stays leased
  await sleep(50);
  const reopened = await Deno.openKv(path);
  const left = await Array.fromAsync(reopened.list<{ attempts: number }>({
    prefix: [QUEUE_PREFIX, "due"],
  }));
  reopened.close();
  await Deno.remove(path.slice(0, path.lastIndexOf("/")), { recursive: true });
  assert.equal(left.length, 1, "the message is kept, to run again when its lease runs out");
  assert.equal(left[0].value.attempts, 1);
});

Deno.test("kv queue: once close begins no message is claimed, by the listener or a drain", async () => {
  const kv = await Deno.openKv(":memory:");
  const { driver, release, runs, listening } = await holdingOne(kv, "first");
  const closing = driver.close({ graceMs: 60_000 });
  await driver.enqueue(kv.atomic(), envelope("late"), { keysIfUndelivered: [] }).commit();
  // A listener still claiming takes a new message within milliseconds of its enqueue.
  await sleep(500);
  const drained = await driver.drainDue((v) => {
    runs.push(`drain ${(v as QueueEnvelope).id}`);
    return Promise.resolve();
  }, { budgetMs: 1_000 });
  assert.equal(drained, 0, "a drain started after close claims nothing");
  release.open();
  assert.equal(await closing, true);
  assert.deepEqual(runs, ["first"], "only the message running before close ran");
  const left = await Array.fromAsync(kv.list<{ attempts: number; envelope: QueueEnvelope }>({
    prefix: [QUEUE_PREFIX, "due"],
  }));
  assert.deepEqual(left.map((e) => [e.value.envelope.id, e.value.attempts]), [["late", 0]]);
  kv.close();
  await listening;
});
