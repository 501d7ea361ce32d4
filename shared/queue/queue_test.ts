import assert from "node:assert/strict";
import { z } from "zod";
import { createLogger } from "../log.ts";
import { nativeKvQueue, queueDriver, ServiceQueue } from "./queue.ts";

const jobSchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("ping"), n: z.number() }),
  z.object({ type: z.literal("pong"), text: z.string() }),
]);
type Job = z.infer<typeof jobSchema>;

Deno.test("a queued message is sent only when its atomic commit succeeds, to its typed handler", async () => {
  const kv = await Deno.openKv(":memory:");
  const queue = new ServiceQueue<Job>(queueDriver(kv), jobSchema, createLogger("test"));
  const received: Job[] = [];
  let resolve!: () => void;
  const done = new Promise<void>((r) => resolve = r);
  queue.listen({
    ping: (m) => {
      received.push(m);
      resolve();
      return Promise.resolve();
    },
    pong: (m) => {
      received.push(m);
      return Promise.resolve();
    },
  });
  // A commit that fails its check enqueues nothing.
  await kv.set(["x"], 1);
  const failed = await queue.enqueue(
    kv.atomic().check({ key: ["x"], versionstamp: null }),
    { type: "pong", text: "lost" },
  ).commit();
  assert.equal(failed.ok, false);
  const ok = await queue.enqueue(kv.atomic().set(["y"], 1), { type: "ping", n: 7 }).commit();
  assert.equal(ok.ok, true);
  await done;
  assert.deepEqual(received, [{ type: "ping", n: 7 }]);
  kv.close();
});

Deno.test("a message that does not match the schema is refused at enqueue", async () => {
  const kv = await Deno.openKv(":memory:");
  const queue = new ServiceQueue<Job>(queueDriver(kv), jobSchema, createLogger("test"));
  assert.throws(() => queue.enqueue(kv.atomic(), { type: "ping", n: "x" } as unknown as Job));
  kv.close();
});

/** A promise and its resolver, for a handler the test lets finish when it chooses. */
function gate(): { promise: Promise<void>; open: () => void } {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => open = resolve);
  return { promise, open };
}

for (const [name, driverFor] of [["kv atomics", queueDriver], ["native", nativeKvQueue]] as const) {
  Deno.test(`a closing queue (${name}) waits for its handler in flight, then stops`, async () => {
    const kv = await Deno.openKv(":memory:");
    const queue = new ServiceQueue<Job>(driverFor(kv), jobSchema, createLogger("test"));
    const started = gate();
    const release = gate();
    const order: string[] = [];
    queue.listen({
      ping: async (m) => {
        order.push(`start ${m.n}`);
        started.open();
        await release.promise;
        await kv.set(["handled", m.n], true); // the handler still has its KV
        order.push(`end ${m.n}`);
      },
      pong: () => Promise.resolve(),
    });
    await queue.enqueue(kv.atomic(), { type: "ping", n: 1 }).commit();
    await started.promise;
    const closing = queue.close(60_000).then(() => order.push("closed"));
    await queue.enqueue(kv.atomic(), { type: "ping", n: 2 }).commit();
    release.open();
    await closing;
    assert.deepEqual(order, ["start 1", "end 1", "closed"]);
    assert.equal((await kv.get(["handled", 1])).value, true);
    kv.close();
  });

  Deno.test(`a closing queue (${name}) does not wait past its grace`, async () => {
    const kv = await Deno.openKv(":memory:");
    const queue = new ServiceQueue<Job>(
      driverFor(kv),
      jobSchema,
      createLogger("test", { level: "error" }),
    );
    const started = gate();
    const release = gate();
    queue.listen({
      ping: async () => {
        started.open();
        await release.promise;
      },
      pong: () => Promise.resolve(),
    });
    await queue.enqueue(kv.atomic(), { type: "ping", n: 1 }).commit();
    await started.promise;
    const before = Date.now();
    await queue.close(300);
    const took = Date.now() - before;
    assert.ok(took >= 250 && took < 5_000, `close took ${took} ms`);
    kv.close();
    release.open();
  });
}
