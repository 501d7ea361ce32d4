import * as Y from "yjs";
import { newId } from "../../../shared/crypto/ids.ts";
import { nowIso } from "../../../shared/time.ts";
import { headKey, snapshotKey, updateKey } from "../keys.ts";
import {
  COMMIT_BYTES,
  deleteAll,
  type DocHead,
  type Epoch,
  type HeadEntry,
  PART_BYTES,
  RestoredError,
  split,
} from "./common.ts";
import type { DocumentRecords } from "./documents.ts";
import { epochCheck, type RestoreEpochs } from "./restore_epoch.ts";

/** Folding a document's stored updates into a new snapshot. */
export class Compaction {
  constructor(
    private readonly kv: Deno.Kv,
    private readonly docs: DocumentRecords,
    /** the restore epoch each of a compaction's commits checks */
    private readonly epochs: RestoreEpochs,
  ) {}

  /**
   * Replaces the snapshot and the updates up to `throughSeq` with `snapshot`, which must hold
   * at least everything in them. Safe against updates arriving meanwhile: the head flip is
   * checked (retried while only appends moved it) and never touches records past
   * `throughSeq`. Answers the new head, or null when another compaction got there first.
   * `epoch`: the restore epoch the snapshot is from, which each of its commits checks (a
   * snapshot from before a restore must not land on the restored records): a RestoredError
   * once a restore moved it.
   */
  async compact(
    postId: string,
    snapshot: Uint8Array,
    throughSeq: number,
    baseSnapshotId: string | null,
    epoch: Epoch,
  ): Promise<HeadEntry | null> {
    const id = newId();
    const parts = split(snapshot);
    const perCommit = Math.floor(COMMIT_BYTES / PART_BYTES);
    const epochHolds = epochCheck(epoch);
    const restored = async () => {
      await deleteAll(this.kv, this.kv.list({ prefix: ["doc_snapshots", postId, id] }));
      return new RestoredError();
    };
    for (let i = 0; i < parts.length; i += perCommit) {
      const op = this.kv.atomic().check(epochHolds);
      for (let j = i; j < Math.min(parts.length, i + perCommit); j++) {
        op.set(snapshotKey(postId, id, j), parts[j]);
      }
      if (!(await op.commit()).ok) throw await restored();
    }
    let flipped: HeadEntry | null = null;
    for (let attempt = 0; attempt < 50 && !flipped; attempt++) {
      const entry = await this.kv.get<DocHead>(headKey(postId));
      const head = entry.value;
      if (!head || head.snapshot_id !== baseSnapshotId || head.seq < throughSeq) break;
      const next: DocHead = {
        ...head,
        snapshot_id: id,
        snapshot_seq: throughSeq,
        snapshot_parts: parts.length,
        snapshot_bytes: snapshot.length,
        compactions: head.compactions + 1,
        compacted_at: nowIso(),
      };
      const res = await this.kv.atomic().check(entry).check(epochHolds)
        .set(headKey(postId), next).commit();
      if (res.ok) flipped = { head: next, versionstamp: res.versionstamp };
      else if (await this.epochs.movedSince(epoch)) throw await restored();
    }
    if (!flipped) {
      await deleteAll(this.kv, this.kv.list({ prefix: ["doc_snapshots", postId, id] }));
      return null;
    }
    // The old snapshot and the updates it replaced are unreachable now: clear them away (unless
    // a restore came in between: then these keys are the restored document's).
    const cleared = (!baseSnapshotId ||
      await deleteAll(
        this.kv,
        this.kv.list({ prefix: ["doc_snapshots", postId, baseSnapshotId] }),
        epochHolds,
      )) &&
      await deleteAll(
        this.kv,
        this.kv.list({ prefix: ["doc_updates", postId], end: updateKey(postId, throughSeq + 1) }),
        epochHolds,
      ) &&
      await deleteAll(
        this.kv,
        this.kv.list({
          prefix: ["doc_update_chunks", postId],
          end: ["doc_update_chunks", postId, throughSeq + 1],
        }),
        epochHolds,
      );
    if (!cleared) throw new RestoredError();
    return flipped;
  }

  /**
   * Compacts from what is stored (when the caller has no complete state in memory): the
   * snapshot and updates are applied to a fresh document, whose state becomes the snapshot.
   */
  async compactFromStorage(postId: string): Promise<HeadEntry | null> {
    const epoch = await this.epochs.current();
    const loaded = await this.docs.load(postId);
    if (!loaded) return null;
    if (loaded.head.seq === loaded.head.snapshot_seq) {
      return { head: loaded.head, versionstamp: loaded.versionstamp };
    }
    const doc = new Y.Doc();
    try {
      for (const u of loaded.updates) Y.applyUpdate(doc, u);
      return await this.compact(
        postId,
        Y.encodeStateAsUpdate(doc),
        loaded.head.seq,
        loaded.head.snapshot_id,
        epoch,
      );
    } finally {
      doc.destroy();
    }
  }
}
