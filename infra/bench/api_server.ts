/**
 * The all-in-one service for bench:api, on a fresh DATA_DIR: logs in the bootstrapped admin,
 * creates a workspace, and prints the port, a token and the workspace's JSON on one line.
 */
import { startBenchStack } from "./bench_stack.ts";

// Ends on SIGTERM through Deno.exit, so a profile asked for (--cpu-prof) is written.
Deno.addSignalListener("SIGTERM", () => Deno.exit(0));

const { stack, url, token, post } = await startBenchStack();
const created = await post("/api/workspaces", {
  name: "Bench workspace",
  description: "bench:api",
});
const answer = await fetch(`${url}/api/workspaces/${created.workspace_id}`, {
  headers: { authorization: `Bearer ${token}` },
});
const got = await answer.text();
// The answer's own headers, for a reference that sends the same bytes (Deno.serve adds the
// length and the date itself).
const headers = Object.fromEntries(
  [...answer.headers].filter(([name]) => name !== "content-length" && name !== "date"),
);
console.log(
  JSON.stringify({
    port: stack.port,
    token,
    path: `/api/workspaces/${created.workspace_id}`,
    body: got,
    headers,
  }),
);
