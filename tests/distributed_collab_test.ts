/**
 * Live editing deployed apart: gateway, auth, workspaces, posts and collab as five processes.
 * The gateway checks nothing of a WebSocket upgrade itself: collab admits it (its ticket used
 * once) and the gateway relays the socket collab accepted, or answers collab's refusal as is.
 * Posts tells collab each post's workspace across processes.
 */
import assert from "node:assert/strict";
import { api, e2e, freePort } from "./helpers/stack.ts";
import { ticketFor, upgradeStatus } from "./helpers/ws.ts";

const SECRET = "distributed-collab-secret-0123456789";
const ADMIN = { email: "dist-collab@example.test", password: "Dist-Passw0rd!", name: "Admin" };

function spawnService(task: string, env: Record<string, string>) {
  return new Deno.Command(Deno.execPath(), {
    args: ["task", "--quiet", task],
    cwd: new URL("..", import.meta.url).pathname,
    env: { LOG_LEVEL: "warn", ...env },
    stdout: "null",
    stderr: "piped",
  }).spawn();
}

async function waitHealthy(url: string, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      const res = await fetch(`${url}/healthz`);
      await res.body?.cancel();
      if (res.ok) return;
    } catch { /* not listening yet */ }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${url} did not become healthy`);
}

/** Opens a socket through the gateway and waits for collab's first frame (its sync step 1). */
async function firstFrame(gatewayUrl: string, query: string): Promise<Uint8Array> {
  const socket = new WebSocket(`${gatewayUrl.replace(/^http/, "ws")}/ws?${query}`);
  socket.binaryType = "arraybuffer";
  try {
    return await new Promise<Uint8Array>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error("no frame within 10 s")), 10_000);
      socket.onmessage = (e) => {
        clearTimeout(timer);
        resolve(new Uint8Array(e.data as ArrayBuffer));
      };
      socket.onerror = () => reject(new Error("the socket failed"));
    });
  } finally {
    const closed = new Promise((r) => socket.onclose = r);
    socket.close();
    await closed;
  }
}

Deno.test(
  "deployed apart, the gateway relays a socket collab admitted and answers collab's refusals",
  e2e,
  async (t) => {
    const dataDir = await Deno.makeTempDir({ prefix: "cps-dist-collab-" });
    const names = ["gateway", "auth", "workspaces", "posts", "collab"] as const;
    const ports = Object.fromEntries(
      await Promise.all(names.map(async (n) => [n, await freePort()] as const)),
    ) as Record<(typeof names)[number], number>;
    const url = (n: (typeof names)[number]) => `http://127.0.0.1:${ports[n]}`;
    const common = {
      INTERNAL_SECRET: SECRET,
      PUBLIC_URL: url("gateway"),
      AUTH_URL: url("auth"),
      WORKSPACES_URL: url("workspaces"),
      POSTS_URL: url("posts"),
      COLLAB_URL: url("collab"),
      OUTBOX_FILE: `${dataDir}/outbox.jsonl`,
    };
    const children = names.map((n) =>
      spawnService(`start:${n}`, {
        ...common,
        PORT: String(ports[n]),
        DATA_DIR: `${dataDir}/${n}`,
        ...(n === "auth"
          ? { ADMIN_EMAIL: ADMIN.email, ADMIN_PASSWORD: ADMIN.password, ADMIN_NAME: ADMIN.name }
          : {}),
      })
    );
    try {
      await Promise.all(names.map((n) => waitHealthy(url(n))));
      const stack = { url: url("gateway") };
      const login = await api(stack, "POST", "/api/auth/login", {
        body: { email: ADMIN.email, password: ADMIN.password },
      });
      assert.equal(login.status, 200, JSON.stringify(login.body));
      const user = { access_token: login.body.access_token as string };
      const ws = await api(stack, "POST", "/api/workspaces", {
        token: user.access_token,
        body: { name: "Apart" },
      });
      const workspaceId = ws.body.workspace_id as string;
      const other = await api(stack, "POST", "/api/workspaces", {
        token: user.access_token,
        body: { name: "Elsewhere" },
      });
      // No text: collab has no document, only the workspace posts told it.
      const post = await api(stack, "POST", "/api/posts", {
        token: user.access_token,
        body: { workspace_id: workspaceId, title: "Empty post" },
      });
      assert.equal(post.status, 201, JSON.stringify(post.body));
      const query = (ticket: string, wsId = workspaceId) =>
        new URLSearchParams({ ticket, docId: post.body.post_id, workspaceId: wsId }).toString();

      await t.step(
        "a socket collab admitted is relayed; its ticket opens no second one",
        async () => {
          const ticket = await ticketFor(stack, user);
          const frame = await firstFrame(stack.url, query(ticket));
          assert.ok(frame.byteLength > 0, "collab's sync step 1 came through the gateway");
          assert.equal(await upgradeStatus(stack.url, query(ticket)), 401, "the ticket is used up");
        },
      );

      await t.step("collab's refusals reach the client as collab answered them", async () => {
        assert.equal(await upgradeStatus(stack.url, query("not-a-ticket")), 401);
        const ticket = await ticketFor(stack, user);
        assert.equal(
          await upgradeStatus(stack.url, query(ticket, other.body.workspace_id)),
          404,
          "a post of another workspace is not found",
        );
        assert.equal(
          await upgradeStatus(stack.url, `docId=${post.body.post_id}&workspaceId=${workspaceId}`),
          400,
        );
      });
    } finally {
      for (const child of children) {
        try {
          child.kill("SIGTERM");
        } catch { /* already gone */ }
        await child.stderr.cancel().catch(() => {});
        await child.status;
      }
      await Deno.remove(dataDir, { recursive: true }).catch(() => {});
    }
  },
);
