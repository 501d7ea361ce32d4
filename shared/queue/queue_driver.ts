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
  /**
   * Before the KV closes: stops claiming messages, then waits up to `graceMs` for the handlers
   * already running, so each finishes and its message is completed against an open KV. Answers
   * whether all finished; one that did not is left to its lease (delivered again later).
   */
  close(options: { graceMs: number }): Promise<boolean>;
}

export interface QueueEnvelope {
  id: string;
  body: unknown;
}
