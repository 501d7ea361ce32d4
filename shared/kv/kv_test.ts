import assert from "node:assert/strict";
import {
  DENO_DEPLOY_KV,
  isDatabaseLocked,
  openServiceKv,
  retryWhileLocked,
  watchSeesOtherProcesses,
} from "./kv.ts";

const KV_MODULE = new URL("./kv.ts", import.meta.url).href;

/** A process that adds 1 to a shared counter `times` times, each a checked read-modify-write. */
function counterProcess(dataDir: string, times: number) {
  const code = `
    import { openServiceKv, retryCommit } from "${KV_MODULE}";
    const kv = await openServiceKv(${JSON.stringify(dataDir)}, "shared");
    for (let i = 0; i < ${times}; i++) {
      await retryCommit(async () => {
        const e = await kv.get(["counter"]);
        const res = await kv.atomic().check(e).set(["counter"], ((e.value as number) ?? 0) + 1)
          .set(["log", crypto.randomUUID()], "x".repeat(100)).commit();
        return res.ok ? { ok: true, value: undefined } : { ok: false };
      }, 1_000);
      await kv.set(["last", Deno.pid], i);
    }
    kv.close();
  `;
  return new Deno.Command(Deno.execPath(), {
    args: ["eval", "--unstable-kv", code],
    stdout: "null",
    stderr: "piped",
  }).output();
}

Deno.test("writers in several processes on one KV file never see 'database is locked'", async () => {
  const dataDir = await Deno.makeTempDir({ prefix: "cps-kv-lock-" });
  try {
    const runs = await Promise.all([1, 2, 3, 4].map(() => counterProcess(dataDir, 150)));
    for (const run of runs) {
      assert.equal(run.code, 0, new TextDecoder().decode(run.stderr));
    }
    const kv = await openServiceKv(dataDir, "shared");
    assert.equal((await kv.get(["counter"])).value, 600, "no increment lost, none failed");
    kv.close();
  } finally {
    await Deno.remove(dataDir, { recursive: true });
  }
});

Deno.test("retryWhileLocked runs a locked operation again and passes other errors on", async () => {
  let calls = 0;
  const value = await retryWhileLocked(() => {
    calls++;
    if (calls < 3) return Promise.reject(new TypeError("database is locked"));
    return Promise.resolve("done");
  });
  assert.equal(value, "done");
  assert.equal(calls, 3);
  await assert.rejects(
    () => retryWhileLocked(() => Promise.reject(new Error("disk full"))),
    /disk full/,
  );
  assert.ok(isDatabaseLocked(new TypeError("database is locked")));
  assert.ok(!isDatabaseLocked(new Error("other")));
});

Deno.test("kv.watch on a local KV file tells of this process's writes, not of another process's", async () => {
  const dataDir = await Deno.makeTempDir({ prefix: "cps-kv-watch-" });
  const kv = await openServiceKv(dataDir, "shared");
  const reader = kv.watch([["watched"]]).getReader();
  const nextValue = () => reader.read().then((r) => r.value?.[0].value ?? null);
  try {
    assert.equal(await nextValue(), null, "the first read answers the key as it is");
    const code = `
      import { openServiceKv } from "${KV_MODULE}";
      const kv = await openServiceKv(${JSON.stringify(dataDir)}, "shared");
      await kv.set(["watched"], "theirs");
      kv.close();
    `;
    const other = await new Deno.Command(Deno.execPath(), {
      args: ["eval", "--unstable-kv", code],
      stdout: "null",
      stderr: "piped",
    }).output();
    assert.equal(other.code, 0, new TextDecoder().decode(other.stderr));
    assert.equal((await kv.get(["watched"])).value, "theirs", "the other process wrote it");
    const pending = nextValue();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const quiet = new Promise<"none">((r) => timer = setTimeout(() => r("none"), 500));
    assert.equal(
      await Promise.race([pending, quiet]),
      "none",
      "another process's write is not told",
    );
    clearTimeout(timer);
    await kv.set(["watched"], "ours");
    assert.equal(await pending, "ours", "this process's write is told");
    assert.equal(watchSeesOtherProcesses(dataDir), false);
    assert.equal(watchSeesOtherProcesses(":memory:"), false);
    assert.equal(watchSeesOtherProcesses(DENO_DEPLOY_KV), true);
    assert.equal(watchSeesOtherProcesses("https://kv.example.test/db"), true);
  } finally {
    await reader.cancel();
    kv.close();
    await Deno.remove(dataDir, { recursive: true });
  }
});
