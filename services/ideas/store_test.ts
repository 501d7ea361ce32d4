import assert from "node:assert/strict";
import { IdeasStore } from "./store.ts";

async function withStore(fn: (store: IdeasStore) => Promise<void>) {
  const kv = await Deno.openKv(":memory:");
  try {
    await fn(new IdeasStore(kv));
  } finally {
    kv.close();
  }
}

const input = (over: Partial<Parameters<IdeasStore["create"]>[0]> = {}) => ({
  workspace_id: "ws1",
  title: "A title",
  description: "Some text",
  tags: [] as string[],
  source_url: "",
  created_by: "u1",
  ...over,
});

Deno.test("ideas store lists newest first with status, tags and author filters ANDed", async () => {
  await withStore(async (store) => {
    const a = await store.create(input({ tags: ["x", "y"], created_by: "u1" }));
    const b = await store.create(input({ tags: ["x"], created_by: "u2" }));
    const c = await store.create(input({ tags: ["y"], created_by: "u1" }));
    await store.create(input({ workspace_id: "ws2" }));
    assert.deepEqual((await store.list("ws1")).map((i) => i.idea_id), [
      c.idea_id,
      b.idea_id,
      a.idea_id,
    ]);
    assert.deepEqual((await store.list("ws1", { tags: ["x", "y"] })).map((i) => i.idea_id), [
      a.idea_id,
    ]);
    assert.deepEqual(
      (await store.list("ws1", { tags: ["y"], authorId: "u1" })).map((i) => i.idea_id),
      [c.idea_id, a.idea_id],
    );
    await store.changeStatus("ws1", c.idea_id, "converted");
    assert.deepEqual(
      (await store.list("ws1", { status: "new", authorId: "u1" })).map((i) => i.idea_id),
      [a.idea_id],
    );
  });
});

Deno.test("ideas store keeps the total count across creates and deletes", async () => {
  await withStore(async (store) => {
    const a = await store.create(input());
    await store.create(input({ workspace_id: "ws2" }));
    assert.equal(await store.totalIdeas(), 2);
    assert.equal(await store.delete("ws1", a.idea_id), true);
    assert.equal(await store.delete("ws1", a.idea_id), false);
    assert.equal(await store.totalIdeas(), 1);
    assert.equal(await store.getById(a.idea_id), null);
  });
});

Deno.test("ideas store allows only new to converted and converts idempotently", async () => {
  await withStore(async (store) => {
    const idea = await store.create(input());
    assert.deepEqual(await store.changeStatus("ws1", idea.idea_id, "new"), {
      kind: "conflict",
      current: "new",
    });
    const converted = await store.convert("ws1", idea.idea_id, "post1");
    assert.equal(converted.kind, "changed");
    const again = await store.convert("ws1", idea.idea_id, "post1");
    assert.equal(again.kind === "changed" && again.idea.linked_post_id, "post1");
    assert.deepEqual(await store.convert("ws1", idea.idea_id, "post2"), {
      kind: "conflict",
      current: "converted",
    });
    assert.deepEqual(await store.changeStatus("ws1", "nope", "converted"), { kind: "not_found" });
  });
});

Deno.test("ideas store refuses an idea too large for one KV value with a 400", async () => {
  await withStore(async (store) => {
    await assert.rejects(
      () => store.create(input({ description: "€".repeat(20_000), tags: ["a".repeat(200)] })),
      (err: Error & { status?: number }) => err.status === 400,
    );
    assert.equal(await store.totalIdeas(), 0);
  });
});

Deno.test("deleting the active capture token leaves older tokens and clears both pointers", async () => {
  await withStore(async (store) => {
    await store.createCaptureToken("h1", "ws1", "u1");
    await store.createCaptureToken("h2", "ws1", "u1");
    assert.equal(await store.activeTokenHash("u1"), "h2");
    assert.equal(await store.deleteActiveCaptureToken("u1"), true);
    assert.equal(await store.findCaptureToken("h2"), null);
    assert.equal((await store.findCaptureToken("h1"))?.user_id, "u1");
    assert.equal(await store.activeTokenHash("u1"), null);
    assert.equal(await store.deleteActiveCaptureToken("u1"), false);
  });
});

Deno.test("a capture token's last use is written at most once a minute", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    let now = Date.parse("2026-01-01T10:00:00Z");
    const store = new IdeasStore(kv, () => now);
    await store.createCaptureToken("h1", "ws1", "u1");
    await store.touchCaptureToken(await store.findCaptureTokenEntry("h1"));
    const first = await store.findCaptureTokenEntry("h1");
    assert.equal(first.value?.last_used_at, "2026-01-01T10:00:00.000+00:00");
    now += 59_000;
    await store.touchCaptureToken(first);
    const same = await store.findCaptureTokenEntry("h1");
    assert.equal(same.versionstamp, first.versionstamp, "nothing written within the minute");
    now += 1_000;
    await store.touchCaptureToken(same);
    assert.equal(
      (await store.findCaptureToken("h1"))?.last_used_at,
      "2026-01-01T10:01:00.000+00:00",
    );
    // A note read before a revoke never brings the token back.
    now += 120_000;
    const stale = await store.findCaptureTokenEntry("h1");
    const [listed] = await store.listCaptureTokens("u1");
    assert.equal(await store.revokeCaptureToken("u1", listed.token_id), true);
    await store.touchCaptureToken(stale);
    assert.equal(await store.findCaptureToken("h1"), null);
  } finally {
    kv.close();
  }
});

Deno.test("tokens stored before token ids get one and can be listed and revoked", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const store = new IdeasStore(kv);
    const legacy = {
      token_hash: "old",
      workspace_id: "ws1",
      user_id: "u1",
      revoked: false,
      created_at: "2025-01-01T00:00:00.000Z",
    };
    await kv.set(["qc_tokens", "old"], legacy);
    await kv.set(["qc_active_by_user", "u1"], "old");
    await store.createCaptureToken("new", "ws1", "u1");
    assert.equal(await store.indexCaptureTokens(), 1);
    assert.equal(await store.indexCaptureTokens(), 0, "running it again changes nothing");
    const listed = await store.listCaptureTokens("u1");
    assert.equal(listed.length, 2);
    // An older record's `Z` time is answered in wire form.
    const old = listed.find((t) => t.created_at === "2025-01-01T00:00:00.000+00:00");
    assert.ok(old?.token_id);
    assert.equal(old.last_used_at, null);
    assert.equal(await store.revokeCaptureToken("u2", old.token_id), false);
    assert.equal(await store.revokeCaptureToken("u1", old.token_id), true);
    assert.equal(await store.findCaptureToken("old"), null);
    assert.deepEqual((await store.listCaptureTokens("u1")).map((t) => t.active), [true]);
  } finally {
    kv.close();
  }
});

/** Every page of a filtered list, `limit` at a time. */
async function allPages(
  store: IdeasStore,
  filters: Parameters<IdeasStore["list"]>[1],
  limit: number,
): Promise<string[]> {
  const ids: string[] = [];
  let after: string | undefined;
  for (;;) {
    const page = await store.listPage("ws1", filters ?? {}, { limit, after });
    assert.ok(page.items.length <= limit);
    ids.push(...page.items.map((i) => i.idea_id));
    if (page.next === null) return ids;
    after = page.next;
  }
}

Deno.test("ideas store pages give the whole filtered list once, in order, for every filter", async () => {
  await withStore(async (store) => {
    for (let n = 0; n < 30; n++) {
      const idea = await store.create(input({
        tags: [n % 2 ? "odd" : "even", ...(n % 3 ? [] : ["three"])],
        created_by: n % 4 ? "u1" : "u2",
      }));
      if (n % 5 === 0) await store.convert("ws1", idea.idea_id);
    }
    await store.create(input({ workspace_id: "ws2", tags: ["odd"] }));
    const cases = [
      {},
      { status: "new" as const },
      { status: "converted" as const },
      { authorId: "u2" },
      { tags: ["odd"] },
      { tags: ["three", "even"] },
      { tags: ["odd"], status: "converted" as const, authorId: "u1" },
      { tags: ["missing"] },
    ];
    for (const filters of cases) {
      const whole = (await store.list("ws1", filters)).map((i) => i.idea_id);
      for (const limit of [1, 4, 200]) {
        assert.deepEqual(await allPages(store, filters, limit), whole, JSON.stringify(filters));
      }
    }
  });
});

Deno.test("ideas store indexes follow updates, conversions and deletes", async () => {
  await withStore(async (store) => {
    const a = await store.create(input({ tags: ["x"] }));
    const b = await store.create(input({ tags: ["x"] }));
    await store.update("ws1", a.idea_id, { tags: ["y"] });
    await store.convert("ws1", b.idea_id, "post1");
    assert.deepEqual(await allPages(store, { tags: ["x"] }, 5), [b.idea_id]);
    assert.deepEqual(await allPages(store, { tags: ["y"] }, 5), [a.idea_id]);
    assert.deepEqual(await allPages(store, { status: "new" }, 5), [a.idea_id]);
    await store.delete("ws1", b.idea_id);
    assert.deepEqual(await allPages(store, { status: "converted" }, 5), []);
    await store.mcpUpdate("ws1", a.idea_id, { status: "converted", tags: [] });
    assert.deepEqual(await allPages(store, { tags: ["y"] }, 5), []);
    assert.deepEqual(await allPages(store, { status: "converted" }, 5), [a.idea_id]);
  });
});

Deno.test("ideas stored before the list's indexes existed are paged once the indexes are built", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const store = new IdeasStore(kv);
    const made = [];
    for (let n = 0; n < 5; n++) made.push(await store.create(input({ tags: ["t"] })));
    // as an older version stored them: the ideas alone
    for await (const e of kv.list({ prefix: [] })) {
      if (String(e.key[0]).startsWith("ideas_by_") || e.key[0] === "index_builds") {
        await kv.delete(e.key);
      }
    }
    assert.deepEqual(await allPages(store, { tags: ["t"] }, 2), []);
    assert.equal(await store.buildListIndexes(), 5);
    const newest = made.map((i) => i.idea_id).reverse();
    assert.deepEqual(await allPages(store, { tags: ["t"] }, 2), newest);
    assert.deepEqual(await allPages(store, { status: "new", authorId: "u1" }, 2), newest);
    assert.equal(await store.buildListIndexes(), 0, "built once");
  } finally {
    kv.close();
  }
});
