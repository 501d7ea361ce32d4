/**
 * The all-in-one service for bench:proofread, on a fresh DATA_DIR and without an AI backend:
 * logs in the bootstrapped admin, creates a workspace and a post, and prints one JSON line with
 * the port, the token, the ids and `ready_ms`, the milliseconds from the process's start to a
 * ready service. `PROOFREAD_CHECKER_PRELOAD` is passed through (the first argument).
 */
import { startBenchStack } from "./bench_stack.ts";

const preload = Deno.args[0] ?? "false";
const { stack, token, post, readyMs } = await startBenchStack({
  AI_CALLS_PER_MINUTE: "0",
  PROOFREAD_CHECKER_PRELOAD: preload,
});
const { workspace_id } = await post("/api/workspaces", { name: "Bench" });
const { post_id } = await post("/api/posts", { workspace_id, title: "Bench post" });
console.log(JSON.stringify({ port: stack.port, token, workspace_id, post_id, ready_ms: readyMs }));
