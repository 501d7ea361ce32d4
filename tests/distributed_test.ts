/**
 * Distributed mode: gateway, auth and workspaces as three separate
 * processes, each with its own port and KV, finding each other through `<NAME>_URL`.
 */
import assert from "node:assert/strict";
import { api, e2e, freePort } from "./helpers/stack.ts";
import { waitFor } from "./helpers/wait.ts";

const SECRET = "distributed-test-secret-0123456789";
const ADMIN = { email: "dist-admin@example.test", password: "Dist-Passw0rd!", name: "Dist Admin" };

function spawnService(task: string, env: Record<string, string>) {
  return new Deno.Command(Deno.execPath(), {
    args: ["task", "--quiet", task],
    cwd: new URL("..", import.meta.url).pathname,
    env: { LOG_LEVEL: "warn", ...env },
    stdout: "null",
    stderr: "piped",
  }).spawn();
}

async function waitHealthy(url: string, timeoutMs = 30_000) {
  await waitFor(
    async () => {
      try {
        const res = await fetch(`${url}/healthz`);
        await res.body?.cancel();
        return res.ok;
      } catch {
        return false; // not listening yet
      }
    },
    `${url} to become healthy`,
    timeoutMs,
  );
}

Deno.test(
  "gateway, auth and workspaces run as three processes and serve the API together",
  e2e,
  async (t) => {
    const dataDir = await Deno.makeTempDir({ prefix: "cps-dist-" });
    const [gw, auth, ws] = [await freePort(), await freePort(), await freePort()];
    const gatewayUrl = `http://127.0.0.1:${gw}`;
    const authUrl = `http://127.0.0.1:${auth}`;
    const workspacesUrl = `http://127.0.0.1:${ws}`;
    const common = {
      INTERNAL_SECRET: SECRET,
      PUBLIC_URL: gatewayUrl,
      AUTH_URL: authUrl,
      WORKSPACES_URL: workspacesUrl,
      OUTBOX_FILE: `${dataDir}/outbox.jsonl`,
    };
    const children = [
      spawnService("start:auth", {
        ...common,
        PORT: String(auth),
        DATA_DIR: `${dataDir}/auth`,
        ADMIN_EMAIL: ADMIN.email,
        ADMIN_PASSWORD: ADMIN.password,
        ADMIN_NAME: ADMIN.name,
      }),
      spawnService("start:workspaces", { ...common, PORT: String(ws), DATA_DIR: `${dataDir}/ws` }),
      spawnService("start:gateway", { ...common, PORT: String(gw), DATA_DIR: `${dataDir}/gw` }),
    ];
    try {
      await Promise.all([
        waitHealthy(authUrl),
        waitHealthy(workspacesUrl),
        waitHealthy(gatewayUrl),
      ]);
      const stack = { url: gatewayUrl };

      let token = "";
      let workspaceId = "";
      await t.step("a user logs in and manages a workspace through the gateway", async () => {
        const login = await api(stack, "POST", "/api/auth/login", {
          body: { email: ADMIN.email, password: ADMIN.password },
        });
        assert.equal(login.status, 200, JSON.stringify(login.body));
        token = login.body.access_token;
        const created = await api(stack, "POST", "/api/workspaces", {
          token,
          body: { name: "Distributed" },
        });
        assert.equal(created.status, 201, JSON.stringify(created.body));
        workspaceId = created.body.workspace_id;
        const got = await api(stack, "GET", `/api/workspaces/${workspaceId}`, { token });
        assert.equal(got.status, 200);
        assert.equal(got.body.member_role, "owner");
        assert.equal(got.body.member_count, 1);
        // The member list joins names and emails from the auth process.
        const members = await api(stack, "GET", `/api/workspaces/${workspaceId}/members`, {
          token,
        });
        assert.equal(members.status, 200);
        assert.equal(members.body.members[0].email, ADMIN.email);
      });

      await t.step(
        "a request that reaches a service without passing the gateway gets 401",
        async () => {
          for (const base of [workspacesUrl, authUrl]) {
            const direct = await api({ url: base }, "GET", `/api/workspaces/${workspaceId}`, {
              token,
            });
            assert.equal(direct.status, 401);
            const forged = await api({ url: base }, "GET", `/api/auth/me`, {
              headers: {
                "x-cp-caller": encodeURIComponent(JSON.stringify({
                  user_id: "someone",
                  email: "x@y.z",
                  name: "X",
                  role: "admin",
                  approved: true,
                })),
              },
            });
            assert.equal(forged.status, 401);
            const internal = await api({ url: base }, "GET", "/internal/health");
            assert.equal(internal.status, 401);
          }
        },
      );

      await t.step("the gateway never routes /internal", async () => {
        const res = await api(stack, "GET", "/internal/health", { token });
        assert.equal(res.status, 404);
      });
    } finally {
      for (const child of children) {
        try {
          child.kill("SIGTERM");
        } catch { /* already gone */ }
        await child.stderr.cancel();
        await child.status;
      }
      await Deno.remove(dataDir, { recursive: true }).catch(() => {});
    }
  },
);
