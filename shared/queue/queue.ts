import type { z } from "zod";
import { newId } from "../crypto/ids.ts";
import { kvQueue, QUEUE_PREFIX } from "./kv_queue.ts";
import type { KeyFamilies } from "../kv/kv_keys.ts";
import type { QueueDriver, QueueEnvelope } from "./queue_driver.ts";
import { errorMessage, type Logger } from "../log.ts";

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

/** The native KV queue (`kv.enqueue` / `listenQueue`); SQLite redelivers after 60 s. */
export function nativeKvQueue(kv: Deno.Kv): QueueDriver {
  return {
    enqueue(op, value, options) {
      return op.enqueue(value, {
        delay: options.delay,
        keysIfUndelivered: options.keysIfUndelivered,
        backoffSchedule: BACKOFF_SCHEDULE,
      });
    },
    listen(handler) {
      return kv.listenQueue(handler);
    },
    drainDue() {
      return Promise.resolve(0); // the native queue delivers on its own
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
