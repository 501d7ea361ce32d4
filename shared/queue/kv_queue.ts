import { settlesWithin } from "../runtime/deadline.ts";
import type { QueueDriver, QueueEnvelope } from "./queue_driver.ts";

/**
 * A queue on plain KV atomic operations (no `kv.enqueue` / `listenQueue`), for two reasons:
 * the native SQLite queue redelivers a message that was being handled when the process died
 * only after a 60-second in-flight timeout (measured: 60.5 s), and KV Connect and Deno Deploy
 * have no native queue at all.
 *
 * Each message is one entry `["queue", "due", dueAt, id]`: the key's time is when it may next
 * run, so `list` returns due messages in order. Enqueueing is a `set` inside the caller's atomic
 * operation, plus a `sum` on `["queue", "signal"]` that wakes listeners through `kv.watch`.
 * Claiming a message moves its entry to `now + LEASE_MS` with a `check` on the entry, so exactly
 * one consumer runs it; a running handler renews its lease; when a consumer dies, the lease runs
 * out and any listener claims the message again. A failed handler moves the entry to its
 * backoff time; after the last retry the envelope is written to the message's
 * `keysIfUndelivered` (the dead letters). Delivery is at least once: handlers are idempotent.
 *
 * `close` stops claiming and waits, up to its grace, for the handlers already running, so their
 * messages are completed (or rescheduled) before the KV closes; one still running after the grace
 * keeps its lease, which runs out once the KV is closed, and runs again.
 */

/** Key prefix of every queue entry; kept out of backups and restores. */
export const QUEUE_PREFIX = "queue";

/** How long a claimed message stays invisible to other consumers without a renewal. */
export const LEASE_MS = 10_000;

/** At most this many handlers run at once per listener. */
const CONCURRENCY = 10;

/** Longest sleep between scans when nothing is due (a safety net under the watch). */
const IDLE_SCAN_MS = 5_000;

/** Shortest sleep between timer-driven scans. */
const MIN_SCAN_GAP_MS = 20;

interface QueuedRecord {
  envelope: QueueEnvelope;
  /** Attempts started so far (incremented when claimed). */
  attempts: number;
  keysIfUndelivered: Deno.KvKey[];
}

const SIGNAL_KEY: Deno.KvKey = [QUEUE_PREFIX, "signal"];

function dueKey(at: number, id: string): Deno.KvKey {
  return [QUEUE_PREFIX, "due", at, id];
}

function isClosed(err: unknown): boolean {
  return err instanceof Deno.errors.BadResource ||
    (err instanceof Error && /closed|Bad resource/i.test(err.message));
}

export interface KvQueueOptions {
  /** Retry delays in milliseconds; after the last one a message is a dead letter. */
  backoffSchedule: number[];
  leaseMs?: number;
  /** Where errors of the queue itself go (not handler failures: the handler logs those). */
  onError?: (message: string, err: unknown) => void;
}

export function kvQueue(kv: Deno.Kv, options: KvQueueOptions): QueueDriver {
  /** The consumers of `listen` and `drainDue` still running, for `close`. */
  const consumers = new Set<Consumer>();
  let closing = false;
  return {
    enqueue(op, value, { delay, keysIfUndelivered }) {
      const record: QueuedRecord = { envelope: value, attempts: 0, keysIfUndelivered };
      return op
        .set(dueKey(Date.now() + Math.max(0, delay ?? 0), value.id), record)
        .sum(SIGNAL_KEY, 1n);
    },

    async listen(handler) {
      const consumer = new Consumer(kv, options, handler);
      if (closing) consumer.stop();
      consumers.add(consumer);
      try {
        // The watch answers once at once (a first scan) and then on every enqueue; it ends when
        // the KV closes, which ends this listener as `listenQueue` does. Where the watch does not
        // see other processes' enqueues (local SQLite shared by processes), the timer does.
        for await (const _ of kv.watch([SIGNAL_KEY])) await consumer.drain();
      } catch (err) {
        if (!isClosed(err)) throw err;
      } finally {
        consumer.stop();
        consumers.delete(consumer);
      }
    },

    async drainDue(handler, { budgetMs }) {
      const consumer = new Consumer(kv, options, handler, { rescan: false });
      if (closing) consumer.stop();
      consumers.add(consumer);
      const deadline = Date.now() + budgetMs;
      let total = 0;
      try {
        while (Date.now() < deadline) {
          const claimed = await consumer.claimDue();
          if (claimed === 0) {
            if (consumer.idle) break;
            await consumer.settled();
            continue;
          }
          total += claimed;
          await consumer.settled();
        }
        await consumer.settled();
      } finally {
        consumer.stop();
        consumers.delete(consumer);
      }
      return total;
    },

    async close({ graceMs }) {
      closing = true;
      const running = [...consumers];
      for (const consumer of running) consumer.stop();
      return await settlesWithin(Promise.all(running.map((c) => c.settled())), graceMs);
    },
  };
}

/**
 * Claims due messages and runs them, at most CONCURRENCY at once. A listener keeps one alive
 * (rescanning on a timer); a one-shot drain (`Deno.cron`) uses one for its budget.
 */
class Consumer {
  readonly #kv: Deno.Kv;
  readonly #leaseMs: number;
  readonly #schedule: number[];
  readonly #onError: (message: string, err: unknown) => void;
  readonly #handler: (value: unknown) => Promise<void>;
  readonly #rescan: boolean;
  readonly #running = new Map<string, Promise<void>>();
  /** The claiming scan in progress (settled), so `settled` waits for a claim being handed back. */
  #claiming: Promise<unknown> = Promise.resolve();
  #stopped = false;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #draining = false;
  #again = false;

  constructor(
    kv: Deno.Kv,
    options: KvQueueOptions,
    handler: (value: unknown) => Promise<void>,
    { rescan = true }: { rescan?: boolean } = {},
  ) {
    this.#kv = kv;
    this.#leaseMs = options.leaseMs ?? LEASE_MS;
    this.#schedule = options.backoffSchedule;
    this.#onError = options.onError ?? (() => {});
    this.#handler = handler;
    this.#rescan = rescan;
  }

  get idle(): boolean {
    return this.#running.size === 0;
  }

  /** Claims nothing more; handlers already running go on and complete their messages. */
  stop(): void {
    this.#stopped = true;
    clearTimeout(this.#timer);
  }

  /** Resolves when the scan in progress and every handler started so far have finished. */
  async settled(): Promise<void> {
    await this.#claiming;
    while (this.#running.size > 0) await Promise.all(this.#running.values());
  }

  /** Moves a held entry to `at`; answers the new entry, or null when it is no longer ours. */
  async #move(
    entry: Deno.KvEntry<QueuedRecord>,
    at: number,
    value: QueuedRecord,
  ): Promise<Deno.KvEntry<QueuedRecord> | null> {
    const key = dueKey(at, value.envelope.id);
    const res = await this.#kv.atomic().check(entry).delete(entry.key).set(key, value).commit();
    return res.ok ? { key, value, versionstamp: res.versionstamp } : null;
  }

  async #run(claimed: Deno.KvEntry<QueuedRecord>): Promise<void> {
    let held: Deno.KvEntry<QueuedRecord> | null = claimed;
    let renewing: Promise<void> = Promise.resolve();
    const renewal = setInterval(() => {
      renewing = renewing.then(async () => {
        if (!held) return;
        held = await this.#move(held, Date.now() + this.#leaseMs, held.value).catch(() => null);
      });
    }, Math.max(10, Math.floor(this.#leaseMs / 3)));
    let failed = false;
    try {
      await this.#handler(claimed.value.envelope);
    } catch {
      failed = true;
    } finally {
      clearInterval(renewal);
    }
    await renewing;
    // Someone else holds it now (at least once). A handler that outlived its queue's close
    // fails below on the closed KV and leaves its lease to run out.
    if (!held) return;
    const { attempts, keysIfUndelivered, envelope } = held.value;
    if (!failed) {
      await this.#kv.atomic().check(held).delete(held.key).commit();
    } else if (attempts <= this.#schedule.length) {
      await this.#move(held, Date.now() + this.#schedule[attempts - 1], held.value);
    } else {
      const op = this.#kv.atomic().check(held).delete(held.key);
      for (const key of keysIfUndelivered) op.set(key, envelope);
      await op.commit();
    }
  }

  /** Claims what is due now (up to the free slots) and starts it; answers how many it claimed. */
  claimDue(): Promise<number> {
    const claiming = this.#claimDue();
    this.#claiming = claiming.catch(() => {});
    return claiming;
  }

  async #claimDue(): Promise<number> {
    let claimedCount = 0;
    const due = this.#kv.list<QueuedRecord>({
      start: [QUEUE_PREFIX, "due"],
      end: [QUEUE_PREFIX, "due", Date.now() + 1],
    }, { limit: CONCURRENCY * 2 });
    for await (const entry of due) {
      if (this.#stopped || this.#running.size >= CONCURRENCY) break;
      const id = entry.value.envelope.id;
      if (this.#running.has(id)) continue;
      const value = { ...entry.value, attempts: entry.value.attempts + 1 };
      const claimed = await this.#move(entry, Date.now() + this.#leaseMs, value);
      if (!claimed) continue; // another consumer got it first
      if (this.#stopped) {
        // Closing began during the claim: the message goes back as it was, not run here.
        await this.#move(claimed, entry.key[2] as number, entry.value);
        break;
      }
      claimedCount++;
      const done = this.#run(claimed)
        .catch((err) => {
          if (!isClosed(err)) this.#onError("queue message bookkeeping failed", err);
        })
        .finally(() => {
          this.#running.delete(id);
          if (this.#rescan) void this.drain();
        });
      this.#running.set(id, done);
    }
    return claimedCount;
  }

  /** Claims what is due, then sleeps until the earliest entry is due (listener mode). */
  async drain(): Promise<void> {
    if (this.#stopped) return;
    if (this.#draining) {
      this.#again = true;
      return;
    }
    this.#draining = true;
    clearTimeout(this.#timer);
    let next = Date.now() + IDLE_SCAN_MS;
    try {
      do {
        this.#again = false;
        await this.claimDue();
      } while (this.#again && !this.#stopped);
      // Sleep until the earliest entry is due (a delay, a backoff or someone's lease).
      for await (
        const first of this.#kv.list({ prefix: [QUEUE_PREFIX, "due"] }, { limit: 1 })
      ) {
        next = Math.min(next, first.key[2] as number);
      }
    } catch (err) {
      if (isClosed(err)) return this.stop();
      this.#onError("queue scan failed", err);
    } finally {
      this.#draining = false;
    }
    // With every slot busy, the next finishing handler scans again; otherwise sleep (never
    // spin: an entry that is due but not claimable waits a moment).
    if (this.#stopped || this.#running.size >= CONCURRENCY) return;
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => void this.drain(), Math.max(MIN_SCAN_GAP_MS, next - Date.now()));
  }
}
