/**
 * The tool interface in distributed mode (CONTRACT 9): the gateway, auth, workspaces, ideas,
 * posts and mcp as six processes, each on its own port and KV, finding each other through
 * `<NAME>_URL`. An MCP client reaches the tools through the gateway only.
 */
import assert from "node:assert/strict";
import { api, e2e, freePort } from "./helpers/stack.ts";
import { waitFor } from "./helpers/wait.ts";

const SECRET = "distributed-mcp-secret-0123456789";
const ADMIN = { email: "dist-mcp@example.test", password: "Dist-Passw0rd!", name: "Dist Admin" };
const SERVICES = ["gateway", "auth", "workspaces", "ideas", "posts", "mcp"] as const;

function spawnService(task: string, env: Record<string, string>) {
  return new Deno.Command(Deno.execPath(), {
    args: ["task", "--quiet", task],
    cwd: new URL("..", import.meta.url).pathname,
    env: { LOG_LEVEL: "warn", ...env },
    stdout: "null",
    stderr: "piped",
  }).spawn();
}

async function waitHealthy(url: string) {
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
    60_000,
  );
}

Deno.test("MCP tools in distributed mode, through the gateway only", e2e, async (t) => {
  const dataDir = await Deno.makeTempDir({ prefix: "cps-dist-mcp-" });
  const urls = {} as Record<(typeof SERVICES)[number], string>;
  for (const name of SERVICES) urls[name] = `http://127.0.0.1:${await freePort()}`;
  const common: Record<string, string> = {
    INTERNAL_SECRET: SECRET,
    PUBLIC_URL: urls.gateway,
    OUTBOX_FILE: `${dataDir}/outbox.jsonl`,
  };
  for (const name of SERVICES.slice(1)) common[`${name.toUpperCase()}_URL`] = urls[name];
  const children = SERVICES.map((name) =>
    spawnService(`start:${name}`, {
      ...common,
      PORT: new URL(urls[name]).port,
      DATA_DIR: `${dataDir}/${name}`,
      ...(name === "auth"
        ? { ADMIN_EMAIL: ADMIN.email, ADMIN_PASSWORD: ADMIN.password, ADMIN_NAME: ADMIN.name }
        : {}),
    })
  );
  try {
    await Promise.all(SERVICES.map((name) => waitHealthy(urls[name])));
    const gateway = { url: urls.gateway };
    const login = await api(gateway, "POST", "/api/auth/login", {
      body: { email: ADMIN.email, password: ADMIN.password },
    });
    assert.equal(login.status, 200, JSON.stringify(login.body));
    const token = login.body.access_token;
    const ws = await api(gateway, "POST", "/api/workspaces", { token, body: { name: "Dist" } });
    assert.equal(ws.status, 201, JSON.stringify(ws.body));
    const workspaceId = ws.body.workspace_id;
    let id = 0;
    const call = (base: string, name: string, args: Record<string, unknown>) =>
      api({ url: base }, "POST", "/mcp", {
        token,
        headers: { accept: "application/json, text/event-stream" },
        body: { jsonrpc: "2.0", id: ++id, method: "tools/call", params: { name, arguments: args } },
      });

    await t.step("the tools answer through the gateway", async () => {
      const listed = await call(urls.gateway, "list_workspaces", {});
      assert.equal(listed.status, 200, JSON.stringify(listed.body));
      assert.deepEqual(listed.body.result.structuredContent, {
        workspaces: [{ workspace_id: workspaceId, name: "Dist", member_role: "owner" }],
      });
      const created = await call(urls.gateway, "create_idea", {
        workspace_id: workspaceId,
        title: "A distributed idea",
      });
      assert.equal(created.body.result.isError, undefined, JSON.stringify(created.body));
      const ideas = await call(urls.gateway, "list_ideas", { workspace_id: workspaceId });
      assert.deepEqual(
        ideas.body.result.structuredContent.ideas.map((i: { title: string }) => i.title),
        ["A distributed idea"],
      );
      const rest = await api(gateway, "GET", `/api/ideas?workspaceId=${workspaceId}`, { token });
      assert.equal(rest.body.items[0].idea_id, created.body.result.structuredContent.idea_id);
      const posts = await call(urls.gateway, "list_posts", { workspace_id: workspaceId });
      assert.deepEqual(posts.body.result.structuredContent, { posts: [] });
    });

    await t.step("the mcp service refuses a request that did not pass the gateway", async () => {
      const direct = await call(urls.mcp, "list_workspaces", {});
      assert.equal(direct.status, 401);
      assert.deepEqual(direct.body, { error: "Unauthorized" });
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
});
