/**
 * The all-in-one service in the bench process, on a fresh DATA_DIR, with the bootstrapped admin
 * logged in: for the benches whose service child prints one JSON line of what the bench needs.
 */
import { type RunningStack, startAllInOne } from "../all_in_one.ts";

export interface BenchStack {
  stack: RunningStack;
  url: string;
  /** performance.now() when the service was ready, before the login */
  readyMs: number;
  /** the admin's access token */
  token: string;
  /** POSTs JSON to `path` as the admin and answers the parsed body */
  post(path: string, body: unknown): Promise<Record<string, unknown>>;
}

export async function startBenchStack(
  extraEnv: Record<string, string> = {},
): Promise<BenchStack> {
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
    ...extraEnv,
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
    })).json() as Record<string, unknown>;
  const token = (await json("/api/auth/login", admin)).access_token as string;
  return { stack, url, readyMs, token, post: (path, body) => json(path, body, token) };
}
