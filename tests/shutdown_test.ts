import assert from "node:assert/strict";
import { startFakeLinkedIn } from "./fakes/linkedin.ts";
import { api, e2e, startTestStack, type TestStack } from "./helpers/stack.ts";
import { loginAdmin } from "./helpers/users.ts";
import { connectLinkedIn, linkedInEnv } from "./helpers/linkedin_publishing.ts";

/** What the services log (JSON lines on the console) while `run` runs; the console stays quiet. */
async function logsDuring(run: () => Promise<void>): Promise<string[]> {
  const lines: string[] = [];
  const { log, error } = console;
  console.log = console.error = (...args: unknown[]) => void lines.push(args.join(" "));
  try {
    await run();
  } finally {
    console.log = log;
    console.error = error;
  }
  return lines;
}

/** A promise and its resolver. */
function signal(): { promise: Promise<void>; fire: () => void } {
  let fire!: () => void;
  const promise = new Promise<void>((resolve) => fire = resolve);
  return { promise, fire };
}

Deno.test(
  "a stack that closes while a publish job runs lets the job finish: no 500, published once",
  e2e,
  async () => {
    const fake = startFakeLinkedIn();
    const dataDir = await Deno.makeTempDir({ prefix: "cps-shutdown-" });
    const env = {
      ...linkedInEnv(fake),
      DATA_DIR: dataDir,
      OUTBOX_FILE: `${dataDir}/outbox.jsonl`,
      LINKEDIN_TIMEOUT_MS: "120000",
      // No periodic check in flight: posts' close reaches its queue at once.
      POSTS_LIVE_TEXT_CHECK_MS: "600000",
    };
    let stack: TestStack | null = await startTestStack(env);
    try {
      const admin = await loginAdmin(stack);
      const token = admin.access_token;
      const ws = await api(stack, "POST", "/api/workspaces", { token, body: { name: "Closing" } });
      const wsId = ws.body.workspace_id;
      assert.equal((await connectLinkedIn(stack, admin, wsId)).back.status, 302);
      const post = await api(stack, "POST", "/api/posts", {
        token,
        body: { workspace_id: wsId, title: "Closing", content: "Published while closing" },
      });
      const id = post.body.post_id;

      // LinkedIn holds its answer until posts' close has begun: the job is then in flight, and
      // what it does next (auth for the addresses, posts' KV) happens during the shutdown.
      const reached = signal();
      const release = signal();
      fake.failures.push({ arrived: reached.fire, until: release.promise });
      const publish = await api(stack, "POST", `/api/posts/${id}/publish`, {
        token,
        body: { workspace_id: wsId },
      });
      assert.equal(publish.status, 202, JSON.stringify(publish.body));
      await reached.promise;
      const posts = stack.services.find((s) => s.name === "posts")!;
      const closePosts = posts.close;
      posts.close = () => {
        const closing = closePosts();
        release.fire();
        return closing;
      };
      const closing = stack;
      stack = null;
      const lines = await logsDuring(() => closing.close());
      assert.deepEqual(
        lines.filter((l) => /Database is closed|Bad resource|failed|unhandled error/i.test(l)),
        [],
        "nothing failed at shutdown",
      );
      assert.ok(lines.some((l) => l.includes("post published on LinkedIn")), "the job finished");

      stack = await startTestStack(env);
      const again = await loginAdmin(stack);
      const read = await api(stack, "GET", `/api/posts/${id}?workspaceId=${wsId}`, {
        token: again.access_token,
      });
      assert.equal(read.body.status, "published", JSON.stringify(read.body));
      assert.equal(read.body.publish_error, null);
      assert.equal(fake.posts().length, 1, "LinkedIn was called once");
    } finally {
      await stack?.close();
      await fake.close();
      await Deno.remove(dataDir, { recursive: true }).catch(() => {});
    }
  },
);
