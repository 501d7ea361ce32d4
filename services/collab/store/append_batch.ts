import { RESTORE_EPOCH_KEY } from "../keys.ts";
import { COMMIT_BYTES, type Epoch, RestoredError } from "./common.ts";
import { epochCheck } from "./restore_epoch.ts";

/**
 * Appends per batch: each brings one check and a few mutations, plus one check of the restore
 * epoch per batch (KV allows 100 checks).
 */
const MAX_APPENDS = 50;

interface Pending {
  id: string;
  bytes: number;
  /** the head this append expects (checked in the commit) */
  check: Deno.AtomicCheck;
  /** the restore epoch its writer's state is from (checked in the commit); undefined: none */
  epoch: Epoch | undefined;
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
 * not move go in the next batch, the others are answered null. The appends of a batch are all
 * from one restore epoch (restore_epoch.ts), which the commit checks once; when a restore moved
 * it, they fail with a RestoredError (not retried: the epoch does not come back).
 */
export class AppendBatch {
  #queue: Pending[] = [];
  #inFlight = 0;

  constructor(private readonly kv: Deno.Kv) {}

  /**
   * Stores `add`'s mutations in the next batch, checked against `check` (the head the caller
   * read: a document's, or its signal log's); answers the commit's versionstamp, or null when
   * that head moved. `id` names what the head is of: one append per id goes in a batch.
   * `epoch`: the restore epoch the caller's state is from (rejects with a RestoredError once a
   * restore moved it); undefined: not checked.
   */
  submit(
    id: string,
    bytes: number,
    check: Deno.AtomicCheck,
    add: (op: Deno.AtomicOperation) => void,
    epoch?: Epoch,
  ) {
    return new Promise<string | null>((resolve, reject) => {
      this.#queue.push({ id, bytes, check, epoch, add, resolve, reject });
      this.#startCommits();
    });
  }

  /** Starts a commit of what waits while fewer than MAX_IN_FLIGHT are in flight. */
  #startCommits(): void {
    while (this.#inFlight < MAX_IN_FLIGHT && this.#queue.length > 0) {
      this.#inFlight++;
      const [batch, epoch] = this.#take();
      void this.#commit(batch, epoch).finally(() => {
        this.#inFlight--;
        this.#startCommits();
      });
    }
  }

  async #commit(batch: Pending[], epoch: Epoch | undefined): Promise<void> {
    try {
      const op = this.kv.atomic();
      if (epoch !== undefined) op.check(epochCheck(epoch));
      for (const p of batch) {
        op.check(p.check);
        p.add(op);
      }
      const res = await op.commit();
      if (res.ok) { for (const p of batch) p.resolve(res.versionstamp); }
      else await this.#sortOut(batch, epoch);
    } catch (err) {
      for (const p of batch) p.reject(err);
    }
  }

  /**
   * After a batch failed its checks: when the restore epoch it checked moved, its appends that
   * checked it fail; of the others, those whose head moved are answered null, the rest go
   * first in the next batch.
   */
  async #sortOut(batch: Pending[], epoch: Epoch | undefined): Promise<void> {
    const keys = batch.map((p) => p.check.key);
    if (epoch !== undefined) keys.push(RESTORE_EPOCH_KEY);
    const now: Deno.KvEntryMaybe<unknown>[] = [];
    for (let i = 0; i < keys.length; i += 10) {
      now.push(...await this.kv.getMany(keys.slice(i, i + 10)));
    }
    const restored = epoch !== undefined && now[batch.length].versionstamp !== epoch;
    const again: Pending[] = [];
    batch.forEach((p, j) => {
      if (restored && p.epoch !== undefined) p.reject(new RestoredError());
      else if (now[j].versionstamp === p.check.versionstamp) again.push(p);
      else p.resolve(null);
    });
    this.#queue.unshift(...again);
  }

  /**
   * The next batch and the restore epoch it checks: in arrival order, one append per
   * document, of one epoch (those of another wait: only around a restore), within the limits.
   */
  #take(): [Pending[], Epoch | undefined] {
    const batch: Pending[] = [];
    const rest: Pending[] = [];
    const ids = new Set<string>();
    let bytes = 0;
    let epoch: Epoch | undefined;
    for (const p of this.#queue) {
      const fits = batch.length < MAX_APPENDS && !ids.has(p.id) &&
        (batch.length === 0 || bytes + p.bytes <= COMMIT_BYTES) &&
        (p.epoch === undefined || epoch === undefined || p.epoch === epoch);
      if (!fits) {
        rest.push(p);
        continue;
      }
      batch.push(p);
      ids.add(p.id);
      bytes += p.bytes;
      if (p.epoch !== undefined) epoch = p.epoch;
    }
    this.#queue = rest;
    return [batch, epoch];
  }
}
