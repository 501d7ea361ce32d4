import assert from "node:assert/strict";
import { createLogger } from "../../shared/log.ts";
import type { LiveDocs } from "./live_docs.ts";
import { LiveTextCheck } from "./live_text_check.ts";
import type { ReviewOperations } from "./review.ts";
import { PostsStore } from "./store.ts";
import { record } from "./_test_records.ts";

Deno.test("posts asks collab for live texts only while a post is approved, and acts on a changed one", async () => {
  const kv = await Deno.openKv(":memory:");
  const store = new PostsStore(kv);
  const asked: string[][] = [];
  const live = new Map<string, string>();
  const liveDocs = {
    available: () => true,
    fingerprints: (ids: string[]) => {
      asked.push(ids);
      return Promise.resolve(
        new Map(ids.filter((id) => live.has(id)).map((id) => [id, live.get(id)!])),
      );
    },
  } as unknown as LiveDocs;
  const told: [string, string][] = [];
  const review = {
    textChanged: (postId: string, fingerprint: string) => {
      told.push([postId, fingerprint]);
      return Promise.resolve(null);
    },
  } as unknown as ReviewOperations;
  const check = new LiveTextCheck({ store, liveDocs, review, logger: createLogger("posts") });
  try {
    const post = record("w1");
    await store.createPost(post, "Approved words.");
    assert.equal(await check.runOnce(), 0);
    assert.deepEqual(asked, [], "no post approved: collab is not asked");

    await store.modifyPost("w1", post.post_id, (current) => ({
      ...current,
      status: "approved",
      approved_fingerprint: "fp-approved",
    }));
    live.set(post.post_id, "fp-approved");
    await check.runOnce();
    assert.deepEqual(asked, [[post.post_id]]);
    assert.deepEqual(told, [], "the same text: nothing to withdraw");

    live.set(post.post_id, "fp-edited");
    await check.runOnce();
    assert.deepEqual(told, [[post.post_id, "fp-edited"]]);

    await store.modifyPost("w1", post.post_id, (current) => ({
      ...current,
      status: "in_review",
      approved_fingerprint: null,
    }));
    asked.length = 0;
    await check.runOnce();
    assert.deepEqual(asked, [], "back in review: collab is not asked again");
  } finally {
    kv.close();
  }
});
