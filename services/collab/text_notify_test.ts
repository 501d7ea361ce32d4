import assert from "node:assert/strict";
import { createLogger } from "../../shared/log.ts";
import { CollabHub } from "./hub.ts";
import { DocStore } from "./store.ts";

async function sha256Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}

Deno.test("posts hears of a burst of changes at most once a second, with the last text's hash", async () => {
  const kv = await Deno.openKv(":memory:");
  const calls: { postId: string; sha: string; at: number }[] = [];
  const hub = new CollabHub({
    store: new DocStore(kv),
    logger: createLogger("collab"),
    compactAfter: 100,
    idleTimeoutMs: 30_000,
    graceMs: 60_000,
    membershipCheckMs: 60_000,
    isMember: () => Promise.resolve(true),
    onTextChanged: (postId, sha) => {
      calls.push({ postId, sha, at: Date.now() });
      return Promise.resolve();
    },
    textNotifyMs: 300,
  });
  hub.start();
  try {
    const started = Date.now();
    let text = "";
    // 40 stored changes over about 1.2 s: one per keystroke
    for (let i = 0; i < 40; i++) {
      text += "x";
      await hub.setContent("p1", "w1", text);
      await new Promise((r) => setTimeout(r, 30));
    }
    const elapsed = Date.now() - started;
    await new Promise((r) => setTimeout(r, 500));
    assert.ok(calls.length >= 1);
    assert.ok(
      calls.length <= Math.ceil(elapsed / 300) + 1,
      `${calls.length} calls in ${elapsed} ms`,
    );
    for (let i = 1; i < calls.length; i++) {
      assert.ok(calls[i].at - calls[i - 1].at >= 290, "at most one call per interval");
    }
    assert.equal(calls.at(-1)!.sha, await sha256Hex(text), "the last state is told");
    assert.ok(calls.every((c) => c.postId === "p1"));
  } finally {
    await hub.close();
    kv.close();
  }
});
