import {
  postReviewLinkKey,
  postReviewLinksPrefix,
  reviewLinkHitsKey,
  reviewLinkKey,
} from "../keys.ts";

/** A review link for a reviewer without an account; its token is kept only as a hash. */
export interface ReviewLinkRecord {
  link_id: string;
  post_id: string;
  workspace_id: string;
  reviewer_name: string;
  expires_at: string;
  created_at: string;
  created_by: string;
  /** what the post held when the link was made (`approvalKey`): the link dies with a change */
  content: string;
  decided_at: string | null;
  decision: "approve" | "request_changes" | null;
  note: string | null;
}

/** Review links: `["review_links", sha256(token)]` and a per-post index of their ids. */
export class ReviewLinkStore {
  constructor(private readonly kv: Deno.Kv) {}

  async create(tokenHash: string, link: ReviewLinkRecord): Promise<void> {
    const key = reviewLinkKey(tokenHash);
    const expireIn = Math.max(1, Date.parse(link.expires_at) - Date.now()) + 86_400_000;
    const res = await this.kv.atomic().check({ key, versionstamp: null })
      .set(key, link, { expireIn })
      .set(postReviewLinkKey(link.post_id, link.link_id), tokenHash, { expireIn })
      .commit();
    if (!res.ok) throw new Error("review link token collision");
  }

  async get(tokenHash: string): Promise<Deno.KvEntryMaybe<ReviewLinkRecord>> {
    return await this.kv.get<ReviewLinkRecord>(reviewLinkKey(tokenHash));
  }

  /** The post's links, oldest first. */
  async list(postId: string): Promise<ReviewLinkRecord[]> {
    const hashes: string[] = [];
    for await (const e of this.kv.list<string>({ prefix: postReviewLinksPrefix(postId) })) {
      hashes.push(e.value);
    }
    const out: ReviewLinkRecord[] = [];
    for (let i = 0; i < hashes.length; i += 10) {
      const entries = await this.kv.getMany<ReviewLinkRecord[]>(
        hashes.slice(i, i + 10).map(reviewLinkKey),
      );
      for (const e of entries) if (e.value) out.push(e.value);
    }
    return out;
  }

  /** Removes the link `linkId` of `postId`; false when there is none. */
  async revoke(postId: string, linkId: string): Promise<boolean> {
    const index = await this.kv.get<string>(postReviewLinkKey(postId, linkId));
    if (!index.value) return false;
    await this.kv.atomic().check(index).delete(index.key).delete(reviewLinkKey(index.value))
      .commit();
    return true;
  }

  /** Adds the link's decision to `op`, checked against the entry read. */
  decide(
    op: Deno.AtomicOperation,
    entry: Deno.KvEntry<ReviewLinkRecord>,
    decided: Pick<ReviewLinkRecord, "decided_at" | "decision" | "note">,
  ): void {
    op.check(entry).set(entry.key, { ...entry.value, ...decided }, {
      expireIn: Math.max(1, Date.parse(entry.value.expires_at) - Date.now()) + 86_400_000,
    });
  }

  /** Counts one request to the link; answers the count in this minute. */
  async hit(tokenHash: string): Promise<number> {
    const minute = Math.floor(Date.now() / 60_000);
    const key = reviewLinkHitsKey(tokenHash, minute);
    await this.kv.atomic().sum(key, 1n).commit();
    const count = (await this.kv.get<Deno.KvU64>(key)).value;
    // The window's counter is not needed once the minute is over.
    if (count && count.value === 1n) {
      await this.kv.set(key, count, { expireIn: 120_000 });
    }
    return count ? Number(count.value) : 0;
  }

  /** Removes every link of a deleted post. */
  async purge(postId: string): Promise<void> {
    for await (const e of this.kv.list<string>({ prefix: postReviewLinksPrefix(postId) })) {
      await this.kv.atomic().delete(e.key).delete(reviewLinkKey(e.value)).commit();
    }
  }
}
