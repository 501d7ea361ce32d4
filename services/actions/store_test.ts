import assert from "node:assert/strict";
import { newId } from "../../shared/ids.ts";
import { nowIso } from "../../shared/time.ts";
import { type Action, MAX_ATTACHMENTS, MAX_DESCRIPTION, MAX_TITLE } from "./schemas.ts";
import { ActionStore } from "./store.ts";

function makeAction(workspaceId: string, extra: Partial<Action> = {}): Action {
  const now = nowIso();
  return {
    action_id: newId(),
    workspace_id: workspaceId,
    title: "T",
    description: "",
    assignee_id: "u2",
    assignee_name: "U2",
    assignee_response: "pending",
    linked_post_id: null,
    status: "open",
    priority: null,
    due_date: null,
    attachments: [],
    created_by: "u1",
    created_at: now,
    updated_at: now,
    completed_at: null,
    ...extra,
  };
}

Deno.test("the store lists a workspace's actions newest first, and only that workspace's", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const store = new ActionStore(kv);
    const a = await store.create(makeAction("w1"));
    const b = await store.create(makeAction("w1"));
    await store.create(makeAction("w2"));
    assert.deepEqual((await store.list("w1")).map((x) => x.action_id), [b.action_id, a.action_id]);
    assert.equal(await store.get("w2", a.action_id), null);
  } finally {
    kv.close();
  }
});

Deno.test("update applies the change atomically with what it adds to the commit", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const store = new ActionStore(kv);
    const a = await store.create(makeAction("w1"));
    const result = await store.update("w1", a.action_id, (x) => ({ ...x, status: "completed" }), (
      op,
      before,
      after,
    ) => {
      assert.equal(before?.status, "open");
      assert.equal(after?.status, "completed");
      op.set(["marker"], true);
    });
    assert.equal(result?.after.status, "completed");
    assert.equal((await kv.get(["marker"])).value, true);
    assert.equal((await store.get("w1", a.action_id))?.status, "completed");
    assert.equal(await store.update("w1", "missing", (x) => x), null);
    const unchanged = await store.update("w1", a.action_id, () => null);
    assert.equal(unchanged?.before, unchanged?.after);
  } finally {
    kv.close();
  }
});

Deno.test("delete removes the action once; a second delete finds nothing", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const store = new ActionStore(kv);
    const a = await store.create(makeAction("w1"));
    assert.equal((await store.delete("w1", a.action_id))?.action_id, a.action_id);
    assert.equal(await store.delete("w1", a.action_id), null);
    assert.deepEqual(await store.list("w1"), []);
  } finally {
    kv.close();
  }
});

Deno.test("an action at every size limit still fits in one KV value", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const store = new ActionStore(kv);
    const wide = "\u{1F600}";
    const attachments = Array.from({ length: MAX_ATTACHMENTS }, (_, i) => ({
      key: `workspaces/${"w".repeat(100)}/actions/${"a".repeat(100)}/${i}${"é".repeat(250)}.png`,
      filename: `${i}${"é".repeat(250)}.png`,
      uploaded_at: nowIso(),
      uploaded_by: "u".repeat(100),
    }));
    await store.create(makeAction("w1", {
      title: wide.repeat(MAX_TITLE / 2),
      description: wide.repeat(MAX_DESCRIPTION / 2),
      priority: "p".repeat(200),
      due_date: "d".repeat(200),
      linked_post_id: "l".repeat(100),
      attachments,
    }));
  } finally {
    kv.close();
  }
});
