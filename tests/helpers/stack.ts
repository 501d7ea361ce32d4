// deno-lint-ignore-file no-explicit-any require-await
import { startAllInOne } from "../../infra/all_in_one.ts";
import type { ServiceInstance } from "../../shared/service/service.ts";

export const TEST_INTERNAL_SECRET = "test-internal-secret-0123456789";
export const TEST_ADMIN = {
  email: "admin@example.test",
  password: "Admin-Passw0rd!",
  name: "Test Admin",
};

export interface TestStack {
  url: string;
  dataDir: string;
  outboxFile: string;
  env: Record<string, string>;
  services: ServiceInstance[];
  /** Calls a service's `/internal/...` route in process, with the internal secret. */
  internal(service: string, method: string, path: string, body?: unknown): Promise<Response>;
  close(): Promise<void>;
}

/** What every test stack is started with: loopback, its DATA_DIR, the test secret and admin. */
export function testServiceEnv(dataDir: string, port: number): Record<string, string> {
  return {
    PORT: String(port),
    HOST: "127.0.0.1",
    DATA_DIR: dataDir,
    PUBLIC_URL: `http://127.0.0.1:${port}`,
    STAGE: "dev",
    INTERNAL_SECRET: TEST_INTERNAL_SECRET,
    ADMIN_EMAIL: TEST_ADMIN.email,
    ADMIN_PASSWORD: TEST_ADMIN.password,
    ADMIN_NAME: TEST_ADMIN.name,
    // Most stacks never proofread: the grammar checker loads on first use, not in every test.
    PROOFREAD_CHECKER_PRELOAD: "false",
  };
}

/**
 * Starts every service in one process on a free loopback port with a fresh DATA_DIR, as
 * `deno task start` does, and waits until /healthz answers 200.
 */
export async function startTestStack(env: Record<string, string> = {}): Promise<TestStack> {
  const dataDir = await Deno.makeTempDir({ prefix: "cps-test-" });
  const port = await freePort();
  const fullEnv: Record<string, string> = {
    ...testServiceEnv(dataDir, port),
    AI_CALLS_PER_MINUTE: "0",
    // The stack runs in this process: a LOG_LEVEL given to it (benches set "warn") applies.
    ...(Deno.env.get("LOG_LEVEL") ? { LOG_LEVEL: Deno.env.get("LOG_LEVEL")! } : {}),
    ...env,
  };
  const stack = await startAllInOne(fullEnv, { quiet: true });
  const url = `http://127.0.0.1:${stack.port}`;
  for (let i = 0; i < 200; i++) {
    const res = await fetch(`${url}/healthz`);
    await res.body?.cancel();
    if (res.ok) break;
    await new Promise((r) => setTimeout(r, 25));
  }
  return {
    url,
    dataDir,
    outboxFile: fullEnv.OUTBOX_FILE ?? `${dataDir}/outbox.jsonl`,
    env: fullEnv,
    services: stack.services,
    internal(service, method, path, body) {
      const target = stack.services.find((s) => s.name === service);
      if (!target) throw new Error(`no service ${service}`);
      const headers = new Headers({ "x-cp-internal": TEST_INTERNAL_SECRET });
      if (body !== undefined) headers.set("content-type", "application/json");
      return Promise.resolve(target.fetch(
        new Request(`http://internal.invalid${path}`, {
          method,
          headers,
          body: body === undefined ? undefined : JSON.stringify(body),
        }),
      ));
    },
    async close() {
      await stack.close();
      await Deno.remove(dataDir, { recursive: true }).catch(() => {});
    },
  };
}

export async function freePort(): Promise<number> {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  return port;
}

/** A JSON request to the stack; answers status and parsed body (null when empty). */
export async function api(
  stack: { url: string },
  method: string,
  path: string,
  options: { token?: string; body?: unknown; headers?: Record<string, string> } = {},
): Promise<{ status: number; body: any; headers: Headers }> {
  const headers = new Headers(options.headers);
  if (options.token) headers.set("authorization", `Bearer ${options.token}`);
  let body: string | undefined;
  if (options.body !== undefined) {
    headers.set("content-type", "application/json");
    body = typeof options.body === "string" ? options.body : JSON.stringify(options.body);
  }
  const res = await fetch(stack.url + path, { method, headers, body, redirect: "manual" });
  const text = await res.text();
  let parsed: any = null;
  if (text) {
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = text;
    }
  }
  return { status: res.status, body: parsed, headers: res.headers };
}

/** Options for Deno.test on end-to-end tests: servers and KV queues outlive single steps. */
export const e2e = { sanitizeOps: false, sanitizeResources: false } as const;
