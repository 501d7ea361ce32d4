import type { PostVersion } from "../schemas.ts";
import { postVersionKey, postVersionsPrefix } from "../keys.ts";

/** Snapshots of what a post would publish: at approvals, publications, saves and restores. */
export class VersionStore {
  constructor(private readonly kv: Deno.Kv) {}

  /** Adds `version` to the commit `op` (the write that causes it). */
  add(op: Deno.AtomicOperation, version: PostVersion): void {
    op.set(postVersionKey(version.post_id, version.version_id), version);
  }

  async get(postId: string, versionId: string): Promise<PostVersion | null> {
    return (await this.kv.get<PostVersion>(postVersionKey(postId, versionId))).value;
  }

  /** The post's versions, newest first (ULID ids). */
  async list(postId: string): Promise<PostVersion[]> {
    const out: PostVersion[] = [];
    for await (
      const e of this.kv.list<PostVersion>({ prefix: postVersionsPrefix(postId) }, {
        reverse: true,
      })
    ) out.push(e.value);
    return out;
  }

  /** Removes every version of a deleted post (a page per commit). */
  async purge(postId: string): Promise<void> {
    while (true) {
      const keys: Deno.KvKey[] = [];
      for await (const e of this.kv.list({ prefix: postVersionsPrefix(postId) }, { limit: 500 })) {
        keys.push(e.key);
      }
      if (keys.length === 0) return;
      for (let i = 0; i < keys.length; i += 100) {
        const op = this.kv.atomic();
        for (const key of keys.slice(i, i + 100)) op.delete(key);
        await op.commit();
      }
    }
  }
}
