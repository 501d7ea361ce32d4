import assert from "node:assert/strict";
import { handoffSink, lentStreamFrom } from "./lent.ts";

/** Lent chunks: one reused buffer, overwritten as soon as the generator resumes. */
async function* reused(total: number, size: number): AsyncGenerator<Uint8Array> {
  const buf = new Uint8Array(size);
  for (let at = 0; at < total; at += size) {
    const n = Math.min(size, total - at);
    for (let i = 0; i < n; i++) buf[i] = (at + i) % 251;
    yield buf.subarray(0, n);
  }
}

const expected = (total: number) => Uint8Array.from({ length: total }, (_, i) => i % 251);

async function readByob(stream: ReadableStream<Uint8Array>, size: number): Promise<Uint8Array> {
  const reader = stream.getReader({ mode: "byob" });
  const parts: number[] = [];
  let buf = new Uint8Array(size);
  for (;;) {
    const { value, done } = await reader.read(buf);
    if (done || !value) break;
    parts.push(...value);
    buf = new Uint8Array(value.buffer);
  }
  return Uint8Array.from(parts);
}

Deno.test("a lent stream gives the exact bytes to a BYOB reader and to a default reader", async () => {
  // Reader buffers smaller and larger than the producer's chunks.
  assert.deepEqual(await readByob(lentStreamFrom(reused(10_000, 1000)), 300), expected(10_000));
  assert.deepEqual(await readByob(lentStreamFrom(reused(10_000, 1000)), 4096), expected(10_000));
  const chunks = await Array.fromAsync(lentStreamFrom(reused(10_000, 1000)));
  assert.deepEqual(Uint8Array.from(chunks.flatMap((c) => [...c])), expected(10_000));
});

Deno.test("a hand-off sink's write resolves only once the consumer has taken the chunk", async () => {
  let received: Uint8Array = new Uint8Array(0);
  const sink = handoffSink(async (body) => {
    received = await readByob(body, 700);
  });
  const buf = new Uint8Array(1000);
  for (let at = 0; at < 10_000; at += 1000) {
    for (let i = 0; i < 1000; i++) buf[i] = (at + i) % 251;
    await sink.write(buf); // then overwritten: the consumer must have copied it all
  }
  await sink.close();
  assert.deepEqual(received, expected(10_000));
});

Deno.test("a hand-off sink fails when its consumer does, and when it finishes early", async () => {
  const failing = handoffSink(async (body) => {
    await body.cancel();
    throw new Error("refused");
  });
  await assert.rejects(() => failing.write(new Uint8Array(10)), /refused/);
  const early = handoffSink(async (body) => void await body.cancel());
  await assert.rejects(() => early.write(new Uint8Array(10)), /finished before/);
});
