import assert from "node:assert/strict";
import { z } from "zod";
import { createLogger } from "../log.ts";
import { queueDriver, ServiceQueue } from "./queue.ts";

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
