import assert from "node:assert/strict";
import { settlesWithin } from "./deadline.ts";

Deno.test("settlesWithin answers true for work done in time and false once the time runs out", async () => {
  assert.equal(await settlesWithin(Promise.resolve(), 1_000), true);
  let finish!: () => void;
  const slow = new Promise<void>((resolve) => finish = resolve);
  assert.equal(await settlesWithin(slow, 20), false);
  finish();
});

Deno.test("settlesWithin passes on a rejection that comes in time", async () => {
  await assert.rejects(settlesWithin(Promise.reject(new Error("boom")), 1_000), /boom/);
});
