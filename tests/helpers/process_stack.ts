import { testServiceEnv } from "./stack.ts";
import { waitFor } from "./wait.ts";

/**
 * The whole service as its own process (`deno run -A main.ts`), for tests that kill it with
 * SIGKILL and start it again on the same DATA_DIR.
 */

const ROOT = new URL("../..", import.meta.url).pathname;

export interface ServiceProcess {
  url: string;
  process: Deno.ChildProcess;
}

/** The environment `tests/helpers/stack.ts` gives the in-process stack, plus `extra`. */
export function processEnv(
  dataDir: string,
  port: number,
  extra: Record<string, string> = {},
): Record<string, string> {
  const env: Record<string, string> = {
    PATH: Deno.env.get("PATH") ?? "",
    HOME: Deno.env.get("HOME") ?? "",
    ...testServiceEnv(dataDir, port),
    LOG_LEVEL: "error",
    ...extra,
  };
  const denoDir = Deno.env.get("DENO_DIR");
  if (denoDir) env.DENO_DIR = denoDir;
  return env;
}

/** Starts the service with `env` and waits (up to 60 s) until `/healthz` answers 200. */
export async function startServiceProcess(env: Record<string, string>): Promise<ServiceProcess> {
  const process = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "main.ts"],
    cwd: ROOT,
    env,
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  const url = `http://127.0.0.1:${env.PORT}`;
  let exited: Deno.CommandStatus | null = null;
  process.status.then((status) => exited = status);
  // The end of what it wrote to stderr (errors only), drained so the pipe never fills.
  let errors = "";
  (async () => {
    for await (const chunk of process.stderr.pipeThrough(new TextDecoderStream())) {
      errors = (errors + chunk).slice(-2000);
    }
  })().catch(() => {});
  const healthy = await waitFor(
    async () => {
      if (exited) throw new Error("exited");
      try {
        const res = await fetch(`${url}/healthz`);
        await res.body?.cancel();
        return res.ok;
      } catch {
        return false; // not listening yet
      }
    },
    "the service to become healthy",
    60_000,
  ).catch(() => false);
  if (healthy) return { url, process };
  if (!exited) process.kill("SIGKILL");
  const status = await process.status;
  throw new Error(
    (exited
      ? `the service exited (code ${status.code}) before it became healthy`
      : "the service did not become healthy within 60 s") + (errors ? `; it wrote: ${errors}` : ""),
  );
}

/** Kills each process with SIGKILL (one already gone is fine) and waits for it to end. */
export async function killServiceProcesses(processes: ServiceProcess[]): Promise<void> {
  for (const p of processes) {
    try {
      p.process.kill("SIGKILL");
    } catch { /* already gone */ }
    await p.process.status;
  }
}
