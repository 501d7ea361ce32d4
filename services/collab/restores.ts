import { errorMessage, type Logger } from "../../shared/log.ts";
import type { DocStore, Epoch } from "./store.ts";

/** How often an instance reads the restore epoch: one read, however many rooms it holds. */
export const RESTORE_CHECK_MS = 1_000;

/**
 * How an instance learns that a restore replaced the documents, whichever instance ran the
 * import. It keeps the restore epoch (store/restore_epoch.ts) as it last read it; each room
 * takes that one when it starts loading, and whatever the room stores is checked against it.
 * The epoch is read again every RESTORE_CHECK_MS while the hub holds rooms (a timer: on a local
 * SQLite file `kv.watch` does not see another process's write), and at once when a room's
 * commit failed on it or a followed head vanished. When it moved, the new one is taken and
 * `onRestored` takes every room out of the hub in the same turn, so the rooms dropped are
 * exactly those from before.
 */
export class RestoreWatch {
  #known: Promise<Epoch> | null = null;
  /** the checks in flight, one after the other */
  #checks: Promise<void> = Promise.resolve();
  #inFlight = 0;

  constructor(
    private readonly store: DocStore,
    private readonly logger: Logger,
    /** drops every room the hub holds (synchronously takes them out, then ends them) */
    private readonly onRestored: () => Promise<void>,
  ) {}

  /** The epoch a room loading now is from (read from the KV the first time it is asked). */
  epoch(): Promise<Epoch> {
    this.#known ??= this.store.restoreEpoch().catch((err) => {
      this.#known = null;
      throw err;
    });
    return this.#known;
  }

  /** Reads the epoch, unless a read is in flight already (the timer, a failed commit). */
  poke(): void {
    if (this.#inFlight === 0) void this.check();
  }

  /**
   * With no room held there is nothing to drop: instead of reading the epoch, the one known is
   * forgotten, and the next room to load reads it.
   */
  forget(): void {
    if (this.#inFlight === 0) this.#known = null;
  }

  /**
   * Reads the epoch after any check in flight; when a restore moved it, every room goes.
   * Resolves once they are closed.
   */
  check(): Promise<void> {
    this.#inFlight++;
    this.#checks = this.#checks.then(() => this.#check()).catch((err) => {
      this.logger.warn("reading the restore epoch failed", { error: errorMessage(err) });
    }).finally(() => this.#inFlight--);
    return this.#checks;
  }

  async #check(): Promise<void> {
    const known = await this.epoch();
    const now = await this.store.restoreEpoch();
    if (now === known) return;
    this.#known = Promise.resolve(now);
    await this.onRestored();
  }
}
