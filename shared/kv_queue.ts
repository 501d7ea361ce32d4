import type { QueueDriver, QueueEnvelope } from "./queue.ts";

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
  const leaseMs = options.leaseMs ?? LEASE_MS;
  const schedule = options.backoffSchedule;
  const onError = options.onError ?? (() => {});

  return {
    enqueue(op, value, { delay, keysIfUndelivered }) {
      const record: QueuedRecord = { envelope: value, attempts: 0, keysIfUndelivered };
      return op
        .set(dueKey(Date.now() + Math.max(0, delay ?? 0), value.id), record)
        .sum(SIGNAL_KEY, 1n);
    },

    async listen(handler) {
      let stopped = false;
      let timer: ReturnType<typeof setTimeout> | undefined;
      let draining = false;
      let again = false;
      const running = new Set<string>();

      const stop = () => {
        stopped = true;
        clearTimeout(timer);
      };

      /** Moves a held entry to `at`; answers the new entry, or null when it is no longer ours. */
      const move = async (
        entry: Deno.KvEntry<QueuedRecord>,
        at: number,
        value: QueuedRecord,
      ): Promise<Deno.KvEntry<QueuedRecord> | null> => {
        const key = dueKey(at, value.envelope.id);
        const res = await kv.atomic().check(entry).delete(entry.key).set(key, value).commit();
        return res.ok ? { key, value, versionstamp: res.versionstamp } : null;
      };

      const run = async (claimed: Deno.KvEntry<QueuedRecord>) => {
        let held: Deno.KvEntry<QueuedRecord> | null = claimed;
        let renewing: Promise<void> = Promise.resolve();
        const renewal = setInterval(() => {
          renewing = renewing.then(async () => {
            if (!held || stopped) return;
            held = await move(held, Date.now() + leaseMs, held.value).catch(() => null);
          });
        }, Math.max(10, Math.floor(leaseMs / 3)));
        let failed = false;
        try {
          await handler(claimed.value.envelope);
        } catch {
          failed = true;
        } finally {
          clearInterval(renewal);
        }
        await renewing;
        if (!held || stopped) return; // someone else holds it now (at least once), or closing
        const { attempts, keysIfUndelivered, envelope } = held.value;
        if (!failed) {
          await kv.atomic().check(held).delete(held.key).commit();
        } else if (attempts <= schedule.length) {
          await move(held, Date.now() + schedule[attempts - 1], held.value);
        } else {
          const op = kv.atomic().check(held).delete(held.key);
          for (const key of keysIfUndelivered) op.set(key, envelope);
          await op.commit();
        }
      };

      const drain = async () => {
        if (stopped) return;
        if (draining) {
          again = true;
          return;
        }
        draining = true;
        clearTimeout(timer);
        let next = Date.now() + IDLE_SCAN_MS;
        try {
          do {
            again = false;
            const now = Date.now();
            const due = kv.list<QueuedRecord>({
              start: [QUEUE_PREFIX, "due"],
              end: [QUEUE_PREFIX, "due", now + 1],
            }, { limit: CONCURRENCY * 2 });
            for await (const entry of due) {
              if (stopped || running.size >= CONCURRENCY) break;
              const id = entry.value.envelope.id;
              if (running.has(id)) continue;
              const value = { ...entry.value, attempts: entry.value.attempts + 1 };
              const claimed = await move(entry, Date.now() + leaseMs, value);
              if (!claimed) continue; // another consumer got it first
              running.add(id);
              run(claimed)
                .catch((err) => {
                  if (!isClosed(err)) onError("queue message bookkeeping failed", err);
                })
                .finally(() => {
                  running.delete(id);
                  void drain();
                });
            }
          } while (again && !stopped);
          // Sleep until the earliest entry is due (a delay, a backoff or someone's lease).
          for await (const first of kv.list({ prefix: [QUEUE_PREFIX, "due"] }, { limit: 1 })) {
            next = Math.min(next, first.key[2] as number);
          }
        } catch (err) {
          if (isClosed(err)) return stop();
          onError("queue scan failed", err);
        } finally {
          draining = false;
        }
        // With every slot busy, the next finishing handler scans again; otherwise sleep (never
        // spin: an entry that is due but not claimable waits a moment).
        if (stopped || running.size >= CONCURRENCY) return;
        clearTimeout(timer);
        timer = setTimeout(() => void drain(), Math.max(MIN_SCAN_GAP_MS, next - Date.now()));
      };

      try {
        // The watch answers once at once (a first scan) and then on every enqueue; it ends when
        // the KV closes, which ends this listener as `listenQueue` does.
        for await (const _ of kv.watch([SIGNAL_KEY])) await drain();
      } catch (err) {
        if (!isClosed(err)) throw err;
      } finally {
        stop();
      }
    },
  };
}
