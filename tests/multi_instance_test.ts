import assert from "node:assert/strict";
import { readOutbox, settledOutboxLength } from "./helpers/outbox.ts";
import {
  killServiceProcesses,
  processEnv,
  type ServiceProcess,
  startServiceProcess,
} from "./helpers/process_stack.ts";
import { waitFor } from "./helpers/wait.ts";
import { api, e2e, freePort, TEST_ADMIN } from "./helpers/stack.ts";
import { GOOD_PASSWORD, login, uniqueEmail } from "./helpers/users.ts";

/**
 * Many instances, one KV: two `main.ts` processes on different ports share one
 * DATA_DIR, OUTBOX_FILE and PUBLIC_URL, and behave as one service. Each test starts its own
 * pair; each step below makes its own users and workspace, so one failure does not cascade.
 * (Live collab across the two is in tests/collab_instances_test.ts.)
 */

interface Pair {
  a: ServiceProcess;
  b: ServiceProcess;
  outboxFile: string;
  dataDir: string;
  envA: Record<string, string>;
  close(): Promise<void>;
}

async function startPair(extra: Record<string, string> = {}): Promise<Pair> {
  const dataDir = await Deno.makeTempDir({ prefix: "cps-multi-" });
  const outboxFile = `${dataDir}/outbox.jsonl`;
  const [portA, portB] = [await freePort(), await freePort()];
  // The address of the proxy in front of both: tokens and links are the same on each.
  const shared = {
    AI_CALLS_PER_MINUTE: "0",
    OUTBOX_FILE: outboxFile,
    PUBLIC_URL: "http://cps.test",
    ...extra,
  };
  const envA = processEnv(dataDir, portA, shared);
  const envB = processEnv(dataDir, portB, shared);
  // Started together, as a process manager would: first-run bootstrap must not race.
  const [a, b] = await Promise.all([startServiceProcess(envA), startServiceProcess(envB)]);
  return {
    a,
    b,
    outboxFile,
    dataDir,
    envA,
    async close() {
      await killServiceProcesses([a, b]);
      await Deno.remove(dataDir, { recursive: true }).catch(() => {});
    },
  };
}

/** A confirmed, approved member: signs up on `signupAt`, confirmed and approved on `other`. */
async function member(
  pair: Pair,
  adminToken: string,
  tag: string,
): Promise<{ id: string; email: string; token: string }> {
  const email = uniqueEmail(tag);
  const signup = await api(pair.a, "POST", "/api/auth/signup", {
    body: { email, password: GOOD_PASSWORD, name: `${tag} member`, recaptcha_token: "t" },
  });
  assert.equal(signup.status, 200, JSON.stringify(signup.body));
  const code = await waitFor(
    async () =>
      (await readOutbox(pair.outboxFile)).find((l) =>
        l.template === "confirm_email" && l.to === email
      )?.data.code,
    "the confirmation code",
    15_000,
  );
  const confirm = await api(pair.b, "POST", "/api/auth/confirm", { body: { email, code } });
  assert.equal(confirm.status, 200, JSON.stringify(confirm.body));
  const memberToken = (await login(pair.b, email, GOOD_PASSWORD)).access_token;
  const me = await api(pair.a, "GET", "/api/auth/me", { token: memberToken });
  assert.equal(me.status, 200, JSON.stringify(me.body));
  const approve = await api(pair.b, "POST", `/api/admin/users/${me.body.user_id}/approve`, {
    token: adminToken,
  });
  assert.equal(approve.status, 200, JSON.stringify(approve.body));
  return {
    id: me.body.user_id,
    email,
    token: (await login(pair.a, email, GOOD_PASSWORD)).access_token,
  };
}

async function workspace(at: { url: string }, ownerToken: string, name: string) {
  const ws = await api(at, "POST", "/api/workspaces", { token: ownerToken, body: { name } });
  assert.equal(ws.status, 201, JSON.stringify(ws.body));
  return ws.body.workspace_id as string;
}

async function addMember(at: { url: string }, ownerToken: string, wsId: string, email: string) {
  const add = await api(at, "POST", `/api/workspaces/${wsId}/members`, {
    token: ownerToken,
    body: { email, role: "editor" },
  });
  assert.equal(add.status, 201, JSON.stringify(add.body));
}

async function dmActionIds(outboxFile: string): Promise<string[]> {
  return (await readOutbox(outboxFile))
    .filter((l) => l.channel === "dm" && l.template === "action_created")
    .map((l) => l.data.action_id as string);
}

Deno.test("two instances on one DATA_DIR serve as one", e2e, async (t) => {
  const pair = await startPair();
  try {
    const adminToken = (await login(pair.a, TEST_ADMIN.email, TEST_ADMIN.password)).access_token;

    await t.step("a token from one instance works on the other, refresh included", async () => {
      const login = await api(pair.a, "POST", "/api/auth/login", {
        body: { email: TEST_ADMIN.email, password: TEST_ADMIN.password },
      });
      assert.equal(login.status, 200);
      const me = await api(pair.b, "GET", "/api/auth/me", { token: login.body.access_token });
      assert.equal(me.status, 200, JSON.stringify(me.body));
      assert.equal(me.body.email, TEST_ADMIN.email);
      const refreshed = await api(pair.b, "POST", "/api/auth/refresh", {
        body: { refresh_token: login.body.refresh_token },
      });
      assert.equal(refreshed.status, 200, JSON.stringify(refreshed.body));
      const again = await api(pair.a, "GET", "/api/auth/me", {
        token: refreshed.body.access_token,
      });
      assert.equal(again.status, 200);
    });

    await t.step("50 actions created across both instances give exactly 50 DMs", async () => {
      const assignee = await member(pair, adminToken, "dm50");
      const wsId = await workspace(pair.b, adminToken, "DM fifty");
      await addMember(pair.a, adminToken, wsId, assignee.email);
      const ids: string[] = [];
      for (let batch = 0; batch < 50; batch += 10) {
        const answers = await Promise.all(
          Array.from(
            { length: 10 },
            (_, i) =>
              api(i % 2 ? pair.a : pair.b, "POST", "/api/actions", {
                token: adminToken,
                body: {
                  workspace_id: wsId,
                  title: `Action ${batch + i}`,
                  assignee_id: assignee.id,
                },
              }),
          ),
        );
        for (const res of answers) {
          assert.equal(res.status, 201, JSON.stringify(res.body));
          ids.push(res.body.action_id);
        }
      }
      const mine = async () =>
        (await dmActionIds(pair.outboxFile)).filter((id) => ids.includes(id));
      await waitFor(async () => (await mine()).length >= 50 ? true : undefined, "50 DMs", 30_000);
      // The outbox quiet for longer than a lease: a message run twice would show up by now.
      await settledOutboxLength(pair.outboxFile, 1_500);
      const sent = await mine();
      assert.equal(sent.length, 50, `${sent.length} DMs for 50 actions`);
      assert.equal(new Set(sent).size, 50);
    });

    await t.step(
      "a member removed through one instance is refused by the other within 1 s",
      async () => {
        const leaver = await member(pair, adminToken, "removed");
        const wsId = await workspace(pair.a, adminToken, "Removal");
        await addMember(pair.a, adminToken, wsId, leaver.email);
        // Warm the other instance's caches with the membership.
        for (const path of [`/api/workspaces/${wsId}`, `/api/ideas?workspaceId=${wsId}`]) {
          const res = await api(pair.b, "GET", path, { token: leaver.token });
          assert.equal(res.status, 200, `${path}: ${JSON.stringify(res.body)}`);
        }
        const removed = await api(
          pair.a,
          "DELETE",
          `/api/workspaces/${wsId}/members/${leaver.id}`,
          {
            token: adminToken,
          },
        );
        assert.ok(removed.status === 200 || removed.status === 204, JSON.stringify(removed.body));
        const removedAt = Date.now();
        for (const path of [`/api/workspaces/${wsId}`, `/api/ideas?workspaceId=${wsId}`]) {
          for (;;) {
            const res = await api(pair.b, "GET", path, { token: leaver.token });
            if (res.status === 403 || res.status === 404) break;
            assert.equal(res.status, 200, `${path}: ${JSON.stringify(res.body)}`);
            const waited = Date.now() - removedAt;
            assert.ok(waited < 1_000, `${path} still answered 200 ${waited} ms after the removal`);
            await new Promise((r) => setTimeout(r, 20));
          }
        }
      },
    );

    await t.step("8 writers per instance for 10 s: no 5xx, nothing lost", async () => {
      const wsId = await workspace(pair.a, adminToken, "Writers");
      const created: string[] = [];
      const failures: string[] = [];
      const until = Date.now() + 10_000;
      const writer = async (at: ServiceProcess, n: number) => {
        for (let i = 0; Date.now() < until; i++) {
          const res = await api(at, "POST", "/api/ideas", {
            token: adminToken,
            body: { workspace_id: wsId, title: `Writer ${n} idea ${i}`, content: "Busy." },
          });
          if (res.status === 201) created.push(res.body.idea_id);
          else failures.push(`${res.status} ${JSON.stringify(res.body)}`);
          // A read-modify-write on one shared record too: the workspace's tags of ideas.
          if (i % 5 === 0) {
            const patch = await api(at, "PUT", `/api/workspaces/${wsId}`, {
              token: adminToken,
              body: { description: `writer ${n} round ${i}` },
            });
            if (patch.status >= 300) failures.push(`${patch.status} ${JSON.stringify(patch.body)}`);
          }
        }
      };
      await Promise.all([
        ...Array.from({ length: 8 }, (_, n) => writer(pair.a, n)),
        ...Array.from({ length: 8 }, (_, n) => writer(pair.b, 8 + n)),
      ]);
      assert.deepEqual(failures.slice(0, 5), [], `${failures.length} writes failed`);
      assert.ok(created.length > 50, `only ${created.length} ideas written in 10 s`);
      for (const at of [pair.a, pair.b]) {
        const list = await api(at, "GET", `/api/ideas?workspaceId=${wsId}`, { token: adminToken });
        assert.equal(list.status, 200);
        const listed = new Set(
          list.body.items.map((i: { idea_id: string }) => i.idea_id),
        );
        const lost = created.filter((id) => !listed.has(id));
        assert.deepEqual(lost, [], `${lost.length} of ${created.length} ideas missing`);
      }
    });

    await t.step("a restore started through one instance runs once", async () => {
      const wsId = await workspace(pair.a, adminToken, "Restore");
      const before = await api(pair.a, "POST", "/api/ideas", {
        token: adminToken,
        body: { workspace_id: wsId, title: "Kept by the backup" },
      });
      assert.equal(before.status, 201);
      const backup = await api(pair.b, "POST", "/api/admin/backups", { token: adminToken });
      assert.ok(backup.status === 200 || backup.status === 201, JSON.stringify(backup.body));
      const key = backup.body.key as string;
      const after = await api(pair.b, "POST", "/api/ideas", {
        token: adminToken,
        body: { workspace_id: wsId, title: "Made after the backup" },
      });
      assert.equal(after.status, 201);
      const started = await api(pair.a, "POST", "/api/admin/backups/restore", {
        token: adminToken,
        body: { key },
      });
      assert.equal(started.status, 200, JSON.stringify(started.body));
      const jobId = started.body.job_id as string;
      const startedAts = new Set<string>();
      let last: unknown;
      const job = await waitFor(
        async () => {
          for (const at of [pair.a, pair.b]) {
            const res = await api(at, "GET", `/api/admin/restores/${jobId}`, { token: adminToken });
            last = res;
            assert.equal(res.status, 200, JSON.stringify(res.body));
            if (res.body.started_at) startedAts.add(res.body.started_at);
            if (res.body.status === "succeeded" || res.body.status === "failed") return res.body;
          }
          return undefined;
        },
        "the restore to end",
        60_000,
      ).catch((err) => {
        throw new Error(`${err.message}: last answer ${JSON.stringify(last)}`);
      });
      assert.equal(job.status, "succeeded", JSON.stringify(job));
      assert.equal(startedAts.size, 1, `the job started ${startedAts.size} times`);
      for (const at of [pair.a, pair.b]) {
        const list = await api(at, "GET", `/api/ideas?workspaceId=${wsId}`, { token: adminToken });
        assert.equal(list.status, 200, JSON.stringify(list.body));
        const ideas = list.body.items as { idea_id: string }[];
        const ids = ideas.map((i) => i.idea_id);
        assert.ok(ids.includes(before.body.idea_id), "the backed-up idea is back");
        assert.ok(!ids.includes(after.body.idea_id), "the later idea is gone");
      }
    });
  } finally {
    await pair.close();
  }
});

Deno.test(
  "kill -9 of one instance right after it acknowledged work: the other delivers every DM",
  e2e,
  async () => {
    const pair = await startPair();
    try {
      const adminToken = (await login(pair.a, TEST_ADMIN.email, TEST_ADMIN.password)).access_token;
      const assignee = await member(pair, adminToken, "killed");
      const wsId = await workspace(pair.a, adminToken, "Kill");
      await addMember(pair.a, adminToken, wsId, assignee.email);
      const ids: string[] = [];
      for (let batch = 0; batch < 50; batch += 10) {
        const answers = await Promise.all(
          Array.from({ length: 10 }, (_, i) =>
            api(pair.a, "POST", "/api/actions", {
              token: adminToken,
              body: { workspace_id: wsId, title: `Kill ${batch + i}`, assignee_id: assignee.id },
            })),
        );
        for (const res of answers) {
          assert.equal(res.status, 201, JSON.stringify(res.body));
          ids.push(res.body.action_id);
        }
      }
      pair.a.process.kill("SIGKILL");
      await pair.a.process.status;
      const killedAt = Date.now();
      const queuedAtKill = 50 - new Set(await dmActionIds(pair.outboxFile)).size;
      let missing = ids;
      while (Date.now() - killedAt < 30_000) {
        const sent = new Set(await dmActionIds(pair.outboxFile));
        missing = ids.filter((id) => !sent.has(id));
        if (missing.length === 0) break;
        await new Promise((r) => setTimeout(r, 100));
      }
      assert.deepEqual(
        missing,
        [],
        `${missing.length} of 50 DMs missing 30 s after the kill (${queuedAtKill} queued at it)`,
      );
      // The survivor still serves.
      const me = await api(pair.b, "GET", "/api/auth/me", { token: adminToken });
      assert.equal(me.status, 200);
    } finally {
      await pair.close();
    }
  },
);
