/**
 * The all-in-one service for bench:proofread, on a fresh DATA_DIR and without an AI backend:
 * logs in the bootstrapped admin, creates a workspace and a post, and prints one JSON line with
 * the port, the token, the ids and `ready_ms`, the milliseconds from the process's start to a
 * ready service. `PROOFREAD_CHECKER_PRELOAD` is passed through (the first argument).
 */
import { startAllInOne } from "../all_in_one.ts";

const preload = Deno.args[0] ?? "false";
const dataDir = await Deno.makeTempDir({ prefix: "cps-bench-" });
const admin = { email: "bench-admin@example.test", password: "Bench-Passw0rd!" };
const stack = await startAllInOne({
  PORT: "0",
  HOST: "127.0.0.1",
  // Quiet unless LOG_LEVEL is given: the first stdout line is read as the answer.
  LOG_LEVEL: Deno.env.get("LOG_LEVEL") ?? "warn",
  DATA_DIR: dataDir,
  PUBLIC_URL: "http://127.0.0.1:8000",
  ADMIN_EMAIL: admin.email,
  ADMIN_PASSWORD: admin.password,
  ADMIN_NAME: "Bench Admin",
  AI_CALLS_PER_MINUTE: "0",
  PROOFREAD_CHECKER_PRELOAD: preload,
}, { quiet: true });
const readyMs = performance.now();
const url = `http://127.0.0.1:${stack.port}`;
const json = async (path: string, body: unknown, token?: string) =>
  await (await fetch(`${url}${path}`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    body: JSON.stringify(body),
  })).json();
const { access_token: token } = await json("/api/auth/login", admin);
const { workspace_id } = await json("/api/workspaces", { name: "Bench" }, token);
const { post_id } = await json("/api/posts", { workspace_id, title: "Bench post" }, token);
console.log(JSON.stringify({ port: stack.port, token, workspace_id, post_id, ready_ms: readyMs }));
