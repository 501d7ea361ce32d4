/**
 * The all-in-one service for bench:api, on a fresh DATA_DIR: logs in the bootstrapped admin,
 * creates a workspace, and prints the port, a token and the workspace's JSON on one line.
 */
import { startAllInOne } from "../all_in_one.ts";

// Ends on SIGTERM through Deno.exit, so a profile asked for (--cpu-prof) is written.
Deno.addSignalListener("SIGTERM", () => Deno.exit(0));

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
}, { quiet: true });
const url = `http://127.0.0.1:${stack.port}`;
const login = await (await fetch(`${url}/api/auth/login`, {
  method: "POST",
  headers: { "content-type": "application/json" },
  body: JSON.stringify(admin),
})).json();
const token = login.access_token as string;
const created = await (await fetch(`${url}/api/workspaces`, {
  method: "POST",
  headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
  body: JSON.stringify({ name: "Bench workspace", description: "bench:api" }),
})).json();
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
