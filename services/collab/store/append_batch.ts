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
 * Commits in flight at once. The KV runs them one after the other, so a second one waiting
 * behind the first starts the moment the first is durable, not once this process's event loop
 * has taken the first's answer (under load that took milliseconds, with the disk idle).
 */
const MAX_IN_FLIGHT = 2;

/**
 * Group commit across documents: appends (of updates, of signals) of several documents stored in
 * one KV commit. An append commits at once while fewer than MAX_IN_FLIGHT commits are in
 * flight; those that arrive meanwhile wait and go together in the next commit, started as one
 * in flight resolves (up to MAX_APPENDS appends and COMMIT_BYTES). On a local SQLite file each
 * commit is a disk sync, and one commit per update and document would queue those syncs behind
 * each other as the number of open documents grows.
 *
 * An append's answer is the commit's versionstamp, or null when the head it expects moved.
 * When a batch's commit fails its checks, the heads are read again: the appends whose head did
 * not move go in the next batch, the others are answered null.
 */
export class AppendBatch {
  #queue: Pending[] = [];
  #inFlight = 0;

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
      this.#startCommits();
    });
  }

  /** Starts a commit of what waits while fewer than MAX_IN_FLIGHT are in flight. */
  #startCommits(): void {
    while (this.#inFlight < MAX_IN_FLIGHT && this.#queue.length > 0) {
      this.#inFlight++;
      void this.#commit(this.#take()).finally(() => {
        this.#inFlight--;
        this.#startCommits();
      });
    }
  }

  async #commit(batch: Pending[]): Promise<void> {
    try {
      const op = this.kv.atomic();
      for (const p of batch) {
        op.check(p.check);
        p.add(op);
      }
      const res = await op.commit();
      if (res.ok) { for (const p of batch) p.resolve(res.versionstamp); }
      else await this.#sortOut(batch);
    } catch (err) {
      for (const p of batch) p.reject(err);
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
