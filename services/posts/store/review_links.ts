import { nowIso } from "../../../shared/time.ts";
import {
  allPostReviewLinksPrefix,
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
  /**
   * When the post was seen holding other content than `content`: the link is dead for good from
   * then on, even if the content later goes back to what it was (absent on older links)
   */
  outdated_at?: string | null;
}

/** Whether a link can still be opened and decided (it may yet be outdated by a change). */
export function isLive(link: ReviewLinkRecord, now = Date.now()): boolean {
  return !link.decided_at && !link.outdated_at && Date.parse(link.expires_at) > now;
}

/** The time a link's records are kept: until a day after it expires. */
function keepFor(link: ReviewLinkRecord): number {
  return Math.max(1, Date.parse(link.expires_at) - Date.now()) + 86_400_000;
}

/** Review links: `["review_links", sha256(token)]` and a per-post index of their ids. */
export class ReviewLinkStore {
  constructor(private readonly kv: Deno.Kv) {}

  async create(tokenHash: string, link: ReviewLinkRecord): Promise<void> {
    const key = reviewLinkKey(tokenHash);
    const expireIn = keepFor(link);
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
    return (await this.entries(postId)).map((e) => e.value);
  }

  /** The post's links as stored (for a checked change), oldest first. */
  async entries(postId: string): Promise<Deno.KvEntry<ReviewLinkRecord>[]> {
    const hashes: string[] = [];
    for await (const e of this.kv.list<string>({ prefix: postReviewLinksPrefix(postId) })) {
      hashes.push(e.value);
    }
    return await this.#read(hashes);
  }

  /**
   * The live links of every post (see `isLive`), by post, in pages of about `page` links: what
   * the live-text check compares with the posts' live texts.
   */
  async *livePages(page = 500): AsyncGenerator<Map<string, ReviewLinkRecord[]>> {
    let hashes: string[] = [];
    const flush = async () => {
      const byPost = new Map<string, ReviewLinkRecord[]>();
      for (const { value } of await this.#read(hashes)) {
        if (!isLive(value)) continue;
        const links = byPost.get(value.post_id) ?? [];
        links.push(value);
        byPost.set(value.post_id, links);
      }
      hashes = [];
      return byPost;
    };
    for await (const e of this.kv.list<string>({ prefix: allPostReviewLinksPrefix })) {
      hashes.push(e.value);
      if (hashes.length >= page) {
        const byPost = await flush();
        if (byPost.size > 0) yield byPost;
      }
    }
    const byPost = await flush();
    if (byPost.size > 0) yield byPost;
  }

  async #read(hashes: string[]): Promise<Deno.KvEntry<ReviewLinkRecord>[]> {
    const out: Deno.KvEntry<ReviewLinkRecord>[] = [];
    for (let i = 0; i < hashes.length; i += 10) {
      const entries = await this.kv.getMany<ReviewLinkRecord[]>(
        hashes.slice(i, i + 10).map(reviewLinkKey),
      );
      for (const e of entries) if (e.value) out.push(e as Deno.KvEntry<ReviewLinkRecord>);
    }
    return out;
  }

  /**
   * The link was seen outdated (its post holds other content now): it dies for good. Checked
   * against the entry read; answers whether this call ended it.
   */
  async outdate(entry: Deno.KvEntry<ReviewLinkRecord>): Promise<boolean> {
    if (!isLive(entry.value)) return false;
    const res = await this.kv.atomic().check(entry)
      .set(entry.key, { ...entry.value, outdated_at: nowIso() }, { expireIn: keepFor(entry.value) })
      .commit();
    return res.ok;
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
      expireIn: keepFor(entry.value),
    });
  }

  /**
   * Counts one request to the link; answers the count in this minute and how long until the
   * minute (the window the count is kept in) is over.
   */
  async hit(tokenHash: string): Promise<{ count: number; windowEndsInMs: number }> {
    const now = Date.now();
    const minute = Math.floor(now / 60_000);
    const key = reviewLinkHitsKey(tokenHash, minute);
    await this.kv.atomic().sum(key, 1n).commit();
    const count = (await this.kv.get<Deno.KvU64>(key)).value;
    // The window's counter is not needed once the minute is over.
    if (count && count.value === 1n) {
      await this.kv.set(key, count, { expireIn: 120_000 });
    }
    return { count: count ? Number(count.value) : 0, windowEndsInMs: (minute + 1) * 60_000 - now };
  }

  /** Removes every link of a deleted post. */
  async purge(postId: string): Promise<void> {
    for await (const e of this.kv.list<string>({ prefix: postReviewLinksPrefix(postId) })) {
      await this.kv.atomic().delete(e.key).delete(reviewLinkKey(e.value)).commit();
    }
  }
}
