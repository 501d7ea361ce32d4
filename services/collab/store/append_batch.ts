import { COMMIT_BYTES } from "./common.ts";

/** Appends per batch: each brings one check and a few mutations (KV allows 100 checks). */
const MAX_APPENDS = 50;

interface Pending {
  id: string;
  bytes: number;
  /** the head this append expects (checked in the commit) */
  check: Deno.AtomicCheck;
  /** adds this append's mutations to the batch's commit */
  add(op: Deno.AtomicOperation): void;
  resolve(versionstamp: string | null): void;
  reject(err: unknown): void;
}

/**
 * Group commit across documents: appends (of updates, of signals) of several documents stored in
 * one KV commit. The first append while nothing is in flight commits at once; those that arrive
 * meanwhile wait and go together in the next commit (up to MAX_APPENDS appends and
 * COMMIT_BYTES). On a
 * local SQLite file each commit is a disk sync, and one commit per update and document would
 * queue those syncs behind each other as the number of open documents grows.
 *
 * An append's answer is the commit's versionstamp, or null when the head it expects moved.
 * When a batch's commit fails its checks, the heads are read again: the appends whose head did
 * not move go in the next batch, the others are answered null.
 */
export class AppendBatch {
  #queue: Pending[] = [];
  #running = false;

  constructor(private readonly kv: Deno.Kv) {}

  /**
   * Stores `add`'s mutations in the next batch, checked against `check` (the head the caller
   * read: a document's, or its signal log's); answers the commit's versionstamp, or null when
   * that head moved. `id` names what the head is of: one append per id goes in a batch.
   */
  submit(
    id: string,
    bytes: number,
    check: Deno.AtomicCheck,
    add: (op: Deno.AtomicOperation) => void,
  ) {
    return new Promise<string | null>((resolve, reject) => {
      this.#queue.push({ id, bytes, check, add, resolve, reject });
      if (!this.#running) void this.#run();
    });
  }

  async #run(): Promise<void> {
    this.#running = true;
    try {
      while (this.#queue.length > 0) {
        const batch = this.#take();
        const op = this.kv.atomic();
        for (const p of batch) {
          op.check(p.check);
          p.add(op);
        }
        try {
          const res = await op.commit();
          if (res.ok) { for (const p of batch) p.resolve(res.versionstamp); }
          else await this.#sortOut(batch);
        } catch (err) {
          for (const p of batch) p.reject(err);
        }
      }
    } finally {
      this.#running = false;
    }
  }

  /**
   * After a batch failed its checks: the appends whose head moved are answered null, the
   * others go first in the next batch.
   */
  async #sortOut(batch: Pending[]): Promise<void> {
    const again: Pending[] = [];
    for (let i = 0; i < batch.length; i += 10) {
      const group = batch.slice(i, i + 10);
      const heads = await this.kv.getMany(group.map((p) => p.check.key));
      group.forEach((p, j) => {
        if (heads[j].versionstamp === p.check.versionstamp) again.push(p);
        else p.resolve(null);
      });
    }
    this.#queue.unshift(...again);
  }

  /** The next batch: in arrival order, one append per document, within the limits. */
  #take(): Pending[] {
    const batch: Pending[] = [];
    const rest: Pending[] = [];
    const ids = new Set<string>();
    let bytes = 0;
    for (const p of this.#queue) {
      const fits = batch.length < MAX_APPENDS && !ids.has(p.id) &&
        (batch.length === 0 || bytes + p.bytes <= COMMIT_BYTES);
      if (!fits) {
        rest.push(p);
        continue;
      }
      batch.push(p);
      ids.add(p.id);
      bytes += p.bytes;
    }
    this.#queue = rest;
    return batch;
  }
}
