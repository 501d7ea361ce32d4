/**
 * The post's text at its limit while many writers are refused: reading the post stays fast.
 * Driven over real sockets against the real stack (the load is infra/bench/collab_at_limit.ts,
 * which `deno task bench:collab --at-limit` runs too).
 */
import assert from "node:assert/strict";
import { api, e2e, startTestStack } from "./helpers/stack.ts";
import { createUser, type TestUser } from "./helpers/users.ts";
import { ticketFor } from "./helpers/ws.ts";
import {
  type AtLimitTarget,
  fillText,
  quantile,
  startRefusedWriters,
  timeReads,
} from "../infra/bench/collab_at_limit.ts";
import { waitFor } from "./helpers/wait.ts";

const LIMIT = 200_000;
/** what the text is filled to: under the limit by less than one writer's insert */
const FILLED = LIMIT - 100;
const WRITERS = 50;
/** the per-user socket limit is 20: the writers are spread over this many users */
const USERS = 5;

Deno.test("reads stay fast while writers are refused at the text limit", e2e, async () => {
  const stack = await startTestStack();
  let writers: ReturnType<typeof startRefusedWriters> | null = null;
  try {
    const owner = await createUser(stack, { name: "Owner" });
    const ws = await api(stack, "POST", "/api/workspaces", {
      token: owner.access_token,
      body: { name: "At the limit" },
    });
    assert.equal(ws.status, 201, JSON.stringify(ws.body));
    const workspaceId: string = ws.body.workspace_id;
    const post = await api(stack, "POST", "/api/posts", {
      token: owner.access_token,
      body: { workspace_id: workspaceId, title: "Full", content: "" },
    });
    assert.equal(post.status, 201, JSON.stringify(post.body));
    const target: AtLimitTarget = { url: stack.url, postId: post.body.post_id, workspaceId };
    const users: TestUser[] = [];
    for (let i = 0; i < USERS; i++) {
      const user = await createUser(stack, { name: `Writer ${i}` });
      const added = await api(stack, "POST", `/api/workspaces/${workspaceId}/members`, {
        token: owner.access_token,
        body: { email: user.email, role: "editor" },
      });
      assert.equal(added.status, 201, JSON.stringify(added.body));
      users.push(user);
    }

    // Typed by many people, the text is many separate pieces.
    await fillText(target, await ticketFor(stack, owner), FILLED, 20_000);
    const first = await timeReads(target, owner.access_token, 1, 30_000);
    assert.deepEqual(first.lengths, [FILLED]);

    writers = startRefusedWriters(target, WRITERS, (i) => ticketFor(stack, users[i % USERS]));
    const refusing = writers;
    await waitFor(() => !refusing.refused.some((n) => n === 0), "every writer refused", 30_000)
      .catch(() => {}); // how many were refused is what the test reports below
    const reads = await timeReads(target, owner.access_token, 6_000, 5_000);
    const refused = [...writers.refused];
    await writers.stop();
    const otherCloses = writers.otherCloses;
    writers = null;
    console.log(
      `${reads.times.length} reads: p50 ${quantile(reads.times, 0.5).toFixed(0)} ms, ` +
        `p99 ${quantile(reads.times, 0.99).toFixed(0)} ms, ` +
        `max ${Math.max(...reads.times).toFixed(0)} ms; ` +
        `${refused.reduce((a, b) => a + b, 0)} refusals`,
    );
    // Every read answered within 5 s, with the text as it was: nothing got past the limit.
    assert.deepEqual(reads.lengths, reads.times.map(() => FILLED));
    assert.ok(reads.times.length >= 3, `only ${reads.times.length} reads in 6 s`);
    // Every writer was refused (4413), and only refused.
    assert.ok(refused.every((n) => n > 0), JSON.stringify(refused));
    assert.deepEqual(otherCloses, []);
    // The text is as it was, also to a client joining now.
    assert.deepEqual((await timeReads(target, owner.access_token, 1, 30_000)).lengths, [FILLED]);
  } finally {
    await writers?.stop();
    await stack.close();
  }
});
