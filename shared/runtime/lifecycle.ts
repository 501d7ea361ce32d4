/** What a running process does around its services: the queue cron and a bounded stop. */
import { drainListeningQueues } from "../queue/queue.ts";
import { settlesWithin } from "./deadline.ts";

/** How long a cron drain may run: under the one-minute schedule, so two never overlap much. */
const CRON_DRAIN_BUDGET_MS = 50_000;

/** How long a stopping service waits for in-flight work before it exits anyway. */
const SHUTDOWN_TIMEOUT_MS = 4_000;

/**
 * Deno Deploy evicts idle isolates, so a queued message may wait for the next request; where
 * `Deno.cron` exists (Deploy; locally with --unstable-cron) a one-minute cron runs what is due.
 * Crons must be registered before the first `await` of the entry module.
 */
export function registerQueueCron(cronName: string, ready: Promise<unknown>) {
  if (typeof Deno.cron !== "function") return;
  Deno.cron(cronName, "* * * * *", async () => {
    await ready;
    await drainListeningQueues(CRON_DRAIN_BUDGET_MS);
  });
}

/**
 * Runs `close` (server shutdown, service close), but exits its wait after SHUTDOWN_TIMEOUT_MS:
 * Deno Deploy sends SIGKILL 5 s after SIGINT, and a stuck WebSocket must not hang a stop.
 */
export async function stopWithin(close: () => Promise<void>): Promise<void> {
  await settlesWithin(close(), SHUTDOWN_TIMEOUT_MS);
}
