import assert from "node:assert/strict";
import { startFakeLinkedIn } from "./fakes/linkedin.ts";
import { processEnv, startServiceProcess } from "./helpers/process_stack.ts";
import { api, e2e, freePort, startTestStack, TEST_ADMIN } from "./helpers/stack.ts";
import { createUser, loginAdmin } from "./helpers/users.ts";
import { createWorkspace } from "./helpers/workspaces.ts";
import {
  connectLinkedIn,
  followCallback,
  linkedInEnv,
  startConnect,
} from "./helpers/linkedin_publishing.ts";
import { settledValue, waitFor } from "./helpers/wait.ts";

/** Publishing never repeats a post: not after a crash mid-call, not after a restore. */
Deno.test("a publish call cut by kill -9 is never repeated after the restart", e2e, async () => {
  const fake = startFakeLinkedIn();
  const dataDir = await Deno.makeTempDir({ prefix: "cps-publish-crash-" });
  const port = await freePort();
  const env = processEnv(dataDir, port, {
    ...linkedInEnv(fake),
    LINKEDIN_TIMEOUT_MS: "120000",
  });
  const start = async () => (await startServiceProcess(env)).process;
  const stack = { url: env.PUBLIC_URL };
  let process = await start();
  try {
    const login = await api(stack, "POST", "/api/auth/login", {
      body: { email: TEST_ADMIN.email, password: TEST_ADMIN.password },
    });
    const token = login.body.access_token;
    const ws = await api(stack, "POST", "/api/workspaces", { token, body: { name: "Crash" } });
    const wsId = ws.body.workspace_id;
    const { callback, cookie } = await startConnect(stack, { access_token: token }, wsId);
    const back = await followCallback(callback, cookie);
    assert.equal(back.status, 302);
    const post = await api(stack, "POST", "/api/posts", {
      token,
      body: { workspace_id: wsId, title: "Crash", content: "Mid-call" },
    });
    const id = post.body.post_id;
    fake.failures.push("hang");
    assert.equal(
      (await api(stack, "POST", `/api/posts/${id}/publish`, {
        token,
        body: { workspace_id: wsId },
      }))
        .status,
      202,
    );
    await waitFor(() => fake.posts().length === 1, "the call to LinkedIn");
    process.kill("SIGKILL");
    await process.status;
    process = await start();
    const relogin = await api(stack, "POST", "/api/auth/login", {
      body: { email: TEST_ADMIN.email, password: TEST_ADMIN.password },
    });
    let answer: Record<string, unknown> = {};
    await waitFor(
      async () => {
        answer = (await api(stack, "GET", `/api/posts/${id}?workspaceId=${wsId}`, {
          token: relogin.body.access_token,
        })).body;
        return answer.publish_error !== null;
      },
      "the unknown outcome",
      45_000,
    );
    assert.equal(
      answer.publish_error,
      "Publishing outcome unknown; check LinkedIn before retrying",
    );
    assert.equal(answer.status, "draft");
    assert.equal(fake.posts().length, 1, "never called again");
  } finally {
    process.kill("SIGKILL");
    await process.status.catch(() => {});
    await fake.close();
    await Deno.remove(dataDir, { recursive: true }).catch(() => {});
  }
});

Deno.test(
  "a restore never publishes twice: a passed schedule comes back unscheduled",
  e2e,
  async () => {
    const fake = startFakeLinkedIn();
    const stack = await startTestStack(linkedInEnv(fake));
    try {
      const admin = await loginAdmin(stack);
      const author = await createUser(stack, { name: "Rita Restore" });
      const reviewer = await createUser(stack, { name: "Vera Reviewer" });
      const wsId = await createWorkspace(stack, admin, "Restore", [
        [author, "editor"],
        [reviewer, "editor"],
      ]);
      await api(stack, "PUT", `/api/workspaces/${wsId}`, {
        token: admin.access_token,
        body: { approval_required: true },
      });
      const { back } = await connectLinkedIn(stack, author, wsId);
      assert.equal(back.status, 302);
      const approved = async (content: string) => {
        const p = await api(stack, "POST", "/api/posts", {
          token: author.access_token,
          body: { workspace_id: wsId, title: content, content },
        });
        const id = p.body.post_id as string;
        await api(stack, "POST", `/api/posts/${id}/review-requests`, {
          token: author.access_token,
          body: { workspace_id: wsId, reviewer_ids: [reviewer.user_id] },
        });
        await api(stack, "POST", `/api/posts/${id}/reviews`, {
          token: reviewer.access_token,
          body: { workspace_id: wsId, decision: "approve" },
        });
        return id;
      };
      const getPost = async (id: string) =>
        (await api(stack, "GET", `/api/posts/${id}?workspaceId=${wsId}`, {
          token: author.access_token,
        })).body;
      const soon = await approved("Goes out right after the backup");
      const later = await approved("Goes out next week");
      const nextWeek = new Date(Date.now() + 7 * 86_400_000).toISOString();
      const soonAt = Date.now() + 2_000;
      for (const [id, at] of [[soon, new Date(soonAt).toISOString()], [later, nextWeek]]) {
        const res = await api(stack, "POST", `/api/posts/${id}/schedule`, {
          token: author.access_token,
          body: { workspace_id: wsId, at },
        });
        assert.equal(res.status, 200, JSON.stringify(res.body));
      }
      const backup = await api(stack, "POST", "/api/admin/backups", { token: admin.access_token });
      assert.equal(backup.status, 201, JSON.stringify(backup.body));
      await waitFor(
        async () => (await getPost(soon)).status === "published",
        "publication",
        30_000,
      );
      assert.equal(fake.posts().length, 1);

      const restore = await api(stack, "POST", "/api/admin/backups/restore", {
        token: admin.access_token,
        body: { key: backup.body.key },
      });
      assert.equal(restore.status, 200, JSON.stringify(restore.body));
      await waitFor(
        async () => {
          const job = await api(stack, "GET", `/api/admin/restores/${restore.body.job_id}`, {
            token: admin.access_token,
          });
          assert.notEqual(job.body.status, "failed", JSON.stringify(job.body));
          return job.body.status === "succeeded";
        },
        "the restore job",
        30_000,
      );

      const restored = await getPost(soon);
      assert.deepEqual(
        [restored.status, restored.scheduled_at, restored.publish_error],
        ["approved", null, "Restored from a backup: check LinkedIn before publishing"],
      );
      const kept = await getPost(later);
      assert.deepEqual([kept.status, Date.parse(kept.scheduled_at)], [
        "scheduled",
        Date.parse(nextWeek),
      ]);
      // Nothing is published again, however long the queue runs.
      await settledValue(() => fake.posts().length, 1_500);
      assert.equal(fake.posts().length, 1, "LinkedIn got the post once");
    } finally {
      await stack.close();
      await fake.close();
    }
  },
);
