import assert from "node:assert/strict";
import { readOutbox } from "./helpers/outbox.ts";
import {
  killServiceProcesses,
  processEnv,
  type ServiceProcess,
  startServiceProcess,
} from "./helpers/process_stack.ts";
import { waitFor } from "./helpers/wait.ts";
import { api, e2e, freePort, TEST_ADMIN } from "./helpers/stack.ts";
import { GOOD_PASSWORD, login, uniqueEmail } from "./helpers/users.ts";
import { startFakeSlack } from "./fakes/slack.ts";

/**
 * Crash recovery: the service runs as its own process (`deno run -A main.ts`)
 * so it can be killed with SIGKILL mid-delivery, then started again on the same DATA_DIR. The
 * DMs go to a loopback Slack that hangs until the kill, so the kill always finds DMs in the
 * middle of their delivery (the case the native KV queue redelivered only after 60 s) and
 * others still waiting in the queue.
 */

const DMS = 50;
const RESTART_BUDGET_MS = 30_000;
const SLACK_TOKEN = "xoxb-crash-test";

Deno.test(
  "every DM queued before kill -9 goes out within 30 s of the restart",
  e2e,
  async () => {
    const dataDir = await Deno.makeTempDir({ prefix: "cps-crash-" });
    const port = await freePort();
    const outboxFile = `${dataDir}/outbox.jsonl`;
    const slack = startFakeSlack({ token: SLACK_TOKEN });
    const env = processEnv(dataDir, port, {
      AI_CALLS_PER_MINUTE: "0",
      OUTBOX_FILE: outboxFile,
      SLACK_BOT_TOKEN: SLACK_TOKEN,
      SLACK_API_URL: slack.apiUrl,
    });
    let service: ServiceProcess | undefined = await startServiceProcess(env);
    try {
      // An admin's workspace with one approved member, who is assigned every action.
      const adminToken = (await login(service, TEST_ADMIN.email, TEST_ADMIN.password)).access_token;
      const member = uniqueEmail("crash");
      slack.users[member] = "U0CRASHMEMBER";
      const signup = await api(service, "POST", "/api/auth/signup", {
        body: { email: member, password: GOOD_PASSWORD, name: "Mo Member", recaptcha_token: "t" },
      });
      assert.equal(signup.status, 200, JSON.stringify(signup.body));
      const code = await waitFor(
        async () =>
          (await readOutbox(outboxFile)).find((l) =>
            l.template === "confirm_email" && l.to === member
          )?.data.code,
        "the confirmation code",
        10_000,
      );
      const confirm = await api(service, "POST", "/api/auth/confirm", {
        body: { email: member, code },
      });
      assert.equal(confirm.status, 200, JSON.stringify(confirm.body));
      const memberToken = (await login(service, member, GOOD_PASSWORD)).access_token;
      const me = await api(service, "GET", "/api/auth/me", { token: memberToken });
      const memberId = me.body.user_id as string;
      const approve = await api(service, "POST", `/api/admin/users/${memberId}/approve`, {
        token: adminToken,
      });
      assert.equal(approve.status, 200, JSON.stringify(approve.body));
      const ws = await api(service, "POST", "/api/workspaces", {
        token: adminToken,
        body: { name: "Crash WS" },
      });
      assert.equal(ws.status, 201, JSON.stringify(ws.body));
      const workspaceId = ws.body.workspace_id as string;
      const add = await api(service, "POST", `/api/workspaces/${workspaceId}/members`, {
        token: adminToken,
        body: { email: member, role: "editor" },
      });
      assert.equal(add.status, 201, JSON.stringify(add.body));

      // Under load: actions created ten at a time, each queueing an action_created DM, while
      // Slack hangs; the process is killed once the last one is answered and DMs are in flight.
      slack.holdPosts = true;
      const actionIds: string[] = [];
      const titles: string[] = [];
      for (let batch = 0; batch < DMS; batch += 10) {
        const answers = await Promise.all(
          Array.from({ length: 10 }, (_, i) =>
            api(service!, "POST", "/api/actions", {
              token: adminToken,
              body: {
                workspace_id: workspaceId,
                title: `Crash action ${batch + i}`,
                assignee_id: memberId,
              },
            })),
        );
        for (const res of answers) {
          assert.equal(res.status, 201, JSON.stringify(res.body));
          actionIds.push(res.body.action_id);
          titles.push(res.body.title);
        }
      }
      const slackPosted = () =>
        titles.filter((title) =>
          slack.posts.some((p) => p.text.includes(`New action for you: ${title}*`))
        );
      const inFlight = () =>
        slack.calls.filter((c) =>
          c.method === "chat.postMessage" && String(c.params.text).includes("New action for you")
        ).length;
      await waitFor(
        () => Promise.resolve(inFlight() > 0 ? true : undefined),
        "a job in flight",
        10_000,
      );
      service.process.kill("SIGKILL");
      await service.process.status;
      service = undefined;
      const heldAtKill = inFlight();
      assert.deepEqual(slackPosted(), [], "no DM reached Slack before the kill");
      slack.holdPosts = false;

      const sent = async () =>
        new Set(
          (await readOutbox(outboxFile))
            .filter((l) => l.channel === "dm" && l.template === "action_created")
            .map((l) => l.data.action_id as string),
        );
      const before = await sent();

      const restartedAt = Date.now();
      service = await startServiceProcess(env);
      let missing: string[] = actionIds;
      let unposted: string[] = titles;
      while (Date.now() - restartedAt < RESTART_BUDGET_MS) {
        const now = await sent();
        missing = actionIds.filter((id) => !now.has(id));
        const posted = new Set(slackPosted());
        unposted = titles.filter((title) => !posted.has(title));
        if (missing.length === 0 && unposted.length === 0) break;
        await new Promise((r) => setTimeout(r, 100));
      }
      assert.deepEqual(
        missing,
        [],
        `${missing.length} of ${DMS} DMs missing from the outbox 30 s after the restart ` +
          `(${DMS - before.size} had not reached it at the kill)`,
      );
      assert.deepEqual(
        unposted,
        [],
        `${unposted.length} of ${DMS} DMs not sent to Slack 30 s after the restart ` +
          `(${heldAtKill} were in the middle of their delivery at the kill)`,
      );
    } finally {
      if (service) await killServiceProcesses([service]);
      await slack.close();
      await Deno.remove(dataDir, { recursive: true }).catch(() => {});
    }
  },
);
