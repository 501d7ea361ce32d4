import type { z } from "zod";
import { newId } from "../crypto/ids.ts";
import { kvQueue, QUEUE_PREFIX } from "./kv_queue.ts";
import type { KeyFamilies } from "../kv/kv_keys.ts";
import type { QueueDriver, QueueEnvelope } from "./queue_driver.ts";
import { errorMessage, type Logger } from "../log.ts";
import { settlesWithin } from "../runtime/deadline.ts";

export type { QueueDriver, QueueEnvelope } from "./queue_driver.ts";

/** Where a message that exhausted its retries is kept: `["dead_letters", id]`. */
const DEAD_LETTERS = "dead_letters";

/**
 * The key families a service's queue writes into its KV: pending messages and the dead
 * letters of exhausted ones belong to this deployment, so a backup neither takes nor restores
 * them.
 */
export const QUEUE_KEYS: KeyFamilies = {
  [QUEUE_PREFIX]: "local",
  [DEAD_LETTERS]: "local",
};

/** Retry delays, in milliseconds, before a message becomes a dead letter. */
export const BACKOFF_SCHEDULE = [1_000, 5_000, 15_000, 60_000, 300_000];

/**
 * The driver every service uses: the queue on plain KV atomic operations. It re-runs a message
 * whose consumer died within its 10-second lease (the native queue takes 60 s), and it works on
 * KV Connect and Deno Deploy, which have no native queue.
 */
export function queueDriver(kv: Deno.Kv, logger?: Logger): QueueDriver {
  return kvQueue(kv, {
    backoffSchedule: BACKOFF_SCHEDULE,
    onError: (message, err) => logger?.error(message, { error: errorMessage(err) }),
  });
}

/**
 * How long a closing service waits for its queue handlers in flight before its KV closes: well
 * under the 4-second stop budget (`stopWithin`, shared/runtime/lifecycle.ts: Deno Deploy kills 5 s
 * after the signal), leaving a second for the server's shutdown, and under the 10-second lease,
 * so no other consumer takes a message while its handler is still finishing here. Handlers
 * take milliseconds unless a peer or an external API hangs; one that outlives this runs again.
 */
export const QUEUE_CLOSE_GRACE_MS = 3_000;

/** The native KV queue (`kv.enqueue` / `listenQueue`); SQLite redelivers after 60 s. */
export function nativeKvQueue(kv: Deno.Kv): QueueDriver {
  const inFlight = new Set<Promise<void>>();
  let closing = false;
  return {
    enqueue(op, value, options) {
      return op.enqueue(value, {
        delay: options.delay,
        keysIfUndelivered: options.keysIfUndelivered,
        backoffSchedule: BACKOFF_SCHEDULE,
      });
    },
    listen(handler) {
      return kv.listenQueue((value: unknown) => {
        // The native listener cannot stop taking messages while its KV is open: one handed out
        // after close began is not run; it stays in flight and is delivered again after the
        // in-flight timeout, as a message that was running when a process died.
        if (closing) return new Promise<void>(() => {});
        const running = handler(value);
        const tracked = running.then(() => {}, () => {}).finally(() => inFlight.delete(tracked));
        inFlight.add(tracked);
        return running;
      });
    },
    drainDue() {
      return Promise.resolve(0); // the native queue delivers on its own
    },
    async close({ graceMs }) {
      closing = true;
      return await settlesWithin(Promise.all([...inFlight]), graceMs);
    },
  };
}

export type QueueHandlers<M extends { type: string }> = {
  [K in M["type"]]: (message: Extract<M, { type: K }>, id: string) => Promise<void>;
};

/**
 * One service's queue: messages are a discriminated union on `type`, validated on enqueue and
 * again on receipt; handlers must be idempotent (delivery is at least once). A message that
 * exhausts its retries is kept under `["dead_letters", id]`.
 */
export class ServiceQueue<M extends { type: string }> {
  constructor(
    private readonly driver: QueueDriver,
    private readonly schema: z.ZodType<M>,
    private readonly logger: Logger,
  ) {}

  /** Adds `message` to `op`, so it is sent only if the write that causes it commits. */
  enqueue(op: Deno.AtomicOperation, message: M, options: { delay?: number } = {}) {
    const body = this.schema.parse(message);
    const id = newId();
    return this.driver.enqueue(op, { id, body }, {
      delay: options.delay,
      keysIfUndelivered: [[DEAD_LETTERS, id]],
    });
  }

  listen(handlers: QueueHandlers<M>): Promise<void> {
    const deliver = this.#deliverTo(handlers);
    this.#deliver = deliver;
    LISTENING.add(this);
    return this.driver.listen(deliver).finally(() => LISTENING.delete(this));
  }

  /**
   * Stops taking messages and waits (at most QUEUE_CLOSE_GRACE_MS) for the handlers running, so
   * they finish against an open KV and their messages are completed; the service closes its KV
   * after this. A handler still running then is left to its lease and runs again later.
   */
  async close(graceMs = QUEUE_CLOSE_GRACE_MS): Promise<void> {
    if (await this.driver.close({ graceMs })) return;
    this.logger.warn(
      "queue handlers still running at close; they run again when their leases end",
      {
        grace_ms: graceMs,
      },
    );
  }

  /** Runs the messages due now with the handlers `listen` was given (0 before `listen`). */
  drainDue(budgetMs: number): Promise<number> {
    return this.#deliver ? this.driver.drainDue(this.#deliver, { budgetMs }) : Promise.resolve(0);
  }

  #deliver: ((value: unknown) => Promise<void>) | undefined;

  #deliverTo(handlers: QueueHandlers<M>): (value: unknown) => Promise<void> {
    return async (value) => {
      const envelope = value as Partial<QueueEnvelope>;
      const parsed = this.schema.safeParse(envelope?.body);
      if (!parsed.success || typeof envelope.id !== "string") {
        this.logger.error("dropped malformed queue message", { value: JSON.stringify(value) });
        return;
      }
      const message = parsed.data;
      const handler = (handlers as unknown as Record<string, (m: M, id: string) => Promise<void>>)[
        message.type
      ];
      if (!handler) {
        this.logger.error("no handler for queue message", { type: message.type });
        return;
      }
      try {
        await handler(message, envelope.id);
      } catch (err) {
        this.logger.warn("queue handler failed; will retry", {
          type: message.type,
          id: envelope.id,
          error: errorMessage(err),
        });
        throw err;
      }
    };
  }
}

/** The queues this process listens to, for `drainListeningQueues`. */
const LISTENING = new Set<ServiceQueue<{ type: string }>>();

/**
 * Runs what is due on every queue this process listens to, within `budgetMs` (each queue in
 * turn): the `Deno.cron` safety net on Deno Deploy, where an isolate may be evicted while
 * messages wait and the next request may never come.
 */
export async function drainListeningQueues(budgetMs: number): Promise<number> {
  const deadline = Date.now() + budgetMs;
  let total = 0;
  for (const queue of [...LISTENING]) {
    const left = deadline - Date.now();
    if (left <= 0) break;
    total += await queue.drainDue(left);
  }
  return total;
}
