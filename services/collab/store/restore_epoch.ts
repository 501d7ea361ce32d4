import { nowIso } from "../../../shared/time.ts";
import { RESTORE_EPOCH_KEY } from "../keys.ts";
import type { Epoch } from "./common.ts";

/**
 * The restore epoch: `["collab_restore_epoch"]` (backup class local: neither exported nor
 * written by a restore), moved by a restore's import before it writes the restored records
 * and again once it wrote them. Several instances may serve from this KV, and only the one
 * that ran the import knows of it at once: so each room remembers the epoch it was loaded in,
 * and every commit of what it stores (a shared append commit, a chunked append, each commit of
 * a compaction) checks the record is still at that versionstamp. A room held from before a
 * restore can then store nothing on the restored records, on any instance; its failed commit
 * (a RestoredError, never retried) tells its instance of the restore. Only a restore writes
 * the record, so the check never fails otherwise.
 */
export class RestoreEpochs {
  constructor(private readonly kv: Deno.Kv) {}

  /** The epoch now. */
  async current(): Promise<Epoch> {
    return (await this.kv.get(RESTORE_EPOCH_KEY)).versionstamp;
  }

  /** Moves the epoch: every room loaded before can store nothing more. */
  async move(): Promise<void> {
    await this.kv.set(RESTORE_EPOCH_KEY, { moved_at: nowIso() });
  }

  /** Whether a restore moved the epoch since `epoch` (after a commit checking it failed). */
  async movedSince(epoch: Epoch): Promise<boolean> {
    return (await this.current()) !== epoch;
  }
}

/** The check a commit of a room loaded in `epoch` makes. */
export function epochCheck(epoch: Epoch): Deno.AtomicCheck {
  return { key: RESTORE_EPOCH_KEY, versionstamp: epoch };
}
