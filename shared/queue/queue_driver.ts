/**
 * What a queue needs from its storage: enqueue inside an atomic commit, and one listener.
 * Services use `queueDriver` (plain KV atomics, `shared/queue/kv_queue.ts`); `nativeKvQueue`
 * (`shared/queue/queue.ts`) remains for comparison and tests.
 */
export interface QueueDriver {
  enqueue(
    op: Deno.AtomicOperation,
    value: QueueEnvelope,
    options: { delay?: number; keysIfUndelivered: Deno.KvKey[] },
  ): Deno.AtomicOperation;
  listen(handler: (value: unknown) => Promise<void>): Promise<void>;
  /**
   * Runs what is due now and returns (for `Deno.cron` where no process stays alive to listen):
   * answers how many messages it ran. A driver whose storage delivers by itself answers 0.
   */
  drainDue(
    handler: (value: unknown) => Promise<void>,
    options: { budgetMs: number },
  ): Promise<number>;
}

export interface QueueEnvelope {
  id: string;
  body: unknown;
}
