import { headKey, signalHeadKey, signalKey } from "../keys.ts";
import { AppendBatch } from "./append_batch.ts";
import type { DocHead, Epoch, FollowedHeads, Signal } from "./common.ts";

/** How long a signal stays readable: longer than a provider's awareness renewal (15 s). */
export const SIGNAL_TTL_MS = 30_000;
/** Bytes of signals per log entry (an estimate): under KV's 64 KiB value limit. */
const SIGNAL_ENTRY_BYTES = 48_000;

/**
 * What instances tell each other about a post besides its text (awareness changes, comment
 * events): a short-lived log each instance with the post open follows, beside the doc head.
 */
export class SignalLog {
  constructor(
    private readonly kv: Deno.Kv,
    /** the commits appends share (with other documents', and updates') */
    private readonly batch = new AppendBatch(kv),
  ) {}

  /** The doc heads and signal sequences of several posts, five posts to a read. */
  async followedHeads(postIds: string[]): Promise<Map<string, FollowedHeads>> {
    const out = new Map<string, FollowedHeads>();
    for (let i = 0; i < postIds.length; i += 5) {
      const ids = postIds.slice(i, i + 5);
      const entries = await this.kv.getMany<unknown[]>(
        ids.flatMap((id) => [headKey(id), signalHeadKey(id)]),
      );
      ids.forEach((id, j) => out.set(id, toFollowed(entries[2 * j], entries[2 * j + 1])));
    }
    return out;
  }

  /** Every change of the post's head or signal log, as `kv.watch` delivers it. */
  watch(postId: string): ReadableStream<FollowedHeads> {
    return this.kv.watch([headKey(postId), signalHeadKey(postId)]).pipeThrough(
      new TransformStream<Deno.KvEntryMaybe<unknown>[], FollowedHeads>({
        transform: ([doc, signals], out) => out.enqueue(toFollowed(doc, signals)),
      }),
    );
  }

  /**
   * Appends signals to the post's log (grouped into entries under the value limit, in one
   * checked commit); a signal too large for one entry is dropped. Answers the sequence
   * numbers taken. `epoch`: the restore epoch of the room they are from (a RestoredError once a
   * restore moved it).
   */
  async appendSignals(
    postId: string,
    signals: Signal[],
    epoch?: Epoch,
  ): Promise<{ first: number; last: number }> {
    const groups: Signal[][] = [];
    let bytes = SIGNAL_ENTRY_BYTES;
    for (const signal of signals) {
      const size = signalBytes(signal);
      if (size > SIGNAL_ENTRY_BYTES) continue;
      if (bytes + size > SIGNAL_ENTRY_BYTES) {
        groups.push([]);
        bytes = 0;
      }
      groups[groups.length - 1].push(signal);
      bytes += size;
    }
    if (groups.length === 0) return { first: 0, last: 0 };
    for (let attempt = 0; attempt < 50; attempt++) {
      const entry = await this.kv.get<{ seq: number }>(signalHeadKey(postId));
      const first = (entry.value?.seq ?? 0) + 1;
      const last = first + groups.length - 1;
      const stored = await this.batch.submit(
        `signals:${postId}`,
        groups.reduce((n, g) => n + g.reduce((m, signal) => m + signalBytes(signal), 0), 0),
        entry,
        (op) => {
          groups.forEach((group, i) =>
            op.set(signalKey(postId, first + i), group, { expireIn: SIGNAL_TTL_MS })
          );
          op.set(signalHeadKey(postId), { seq: last });
        },
        epoch,
      );
      if (stored !== null) return { first, last };
      await new Promise((r) => setTimeout(r, Math.random() * 2 * (attempt + 1)));
    }
    throw new Error(`Storing a signal of document ${postId} kept conflicting`);
  }

  /** The signals stored as `fromSeq..toSeq` that have not expired, in order. */
  async readSignals(postId: string, fromSeq: number, toSeq: number): Promise<Signal[]> {
    const out: Signal[] = [];
    for await (
      const e of this.kv.list<Signal[]>({
        start: signalKey(postId, fromSeq),
        end: signalKey(postId, toSeq + 1),
      })
    ) out.push(...e.value);
    return out;
  }
}

function toFollowed(
  doc: Deno.KvEntryMaybe<unknown>,
  signals: Deno.KvEntryMaybe<unknown>,
): FollowedHeads {
  return {
    doc: doc.value ? { head: doc.value as DocHead, versionstamp: doc.versionstamp! } : null,
    signalSeq: (signals.value as { seq: number } | null)?.seq ?? 0,
  };
}

/** A signal's stored size, roughly (its JSON, or its bytes plus a margin). */
function signalBytes(signal: Signal): number {
  return signal.kind === "awareness"
    ? signal.update.byteLength + signal.user.length + 64
    : JSON.stringify(signal.message).length * 3 + 64;
}
