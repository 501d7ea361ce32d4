import assert from "node:assert/strict";
import { newId } from "../../shared/crypto/ids.ts";
import { nowIso } from "../../shared/time.ts";
import {
  type Action,
  addAttachmentBody,
  createActionBody,
  MAX_ATTACHMENTS,
  MAX_DESCRIPTION,
  MAX_TITLE,
} from "./schemas.ts";
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
  using kv = await Deno.openKv(":memory:");
  const store = new ActionStore(kv);
  const a = await store.create(makeAction("w1"));
  const b = await store.create(makeAction("w1"));
  await store.create(makeAction("w2"));
  assert.deepEqual((await store.list("w1")).map((x) => x.action_id), [b.action_id, a.action_id]);
  assert.equal(await store.get("w2", a.action_id), null);
});

Deno.test("update applies the change atomically with what it adds to the commit", async () => {
  using kv = await Deno.openKv(":memory:");
  const store = new ActionStore(kv);
  const a = await store.create(makeAction("w1"));
  const seen: string[] = [];
  const outcome = await store.update("w1", a.action_id, (x) => ({ ...x, status: "completed" }), (
    op,
    before,
    after,
  ) => {
    seen.push(`${before.status}->${after.status}`);
    op.set(["marker"], true);
  });
  assert.equal(outcome.kind, "updated");
  assert.equal(outcome.kind === "updated" && outcome.after.status, "completed");
  assert.deepEqual(seen, ["open->completed"]);
  assert.equal((await kv.get(["marker"])).value, true);
  assert.equal((await store.get("w1", a.action_id))?.status, "completed");
});

Deno.test("update answers missing, unchanged, and writes nothing when the change refuses", async () => {
  using kv = await Deno.openKv(":memory:");
  const store = new ActionStore(kv);
  const a = await store.create(makeAction("w1"));
  const also = () => assert.fail("also must not run without a write");
  assert.deepEqual(await store.update("w1", "missing", (x) => x, also), { kind: "missing" });
  assert.deepEqual(await store.update("w1", a.action_id, () => null, also), {
    kind: "unchanged",
    action: a,
  });
  await assert.rejects(
    store.update("w1", a.action_id, () => {
      throw new Error("refused");
    }, also),
    /refused/,
  );
  assert.deepEqual(await store.get("w1", a.action_id), a);
});

Deno.test("delete removes the action once; a second delete finds nothing", async () => {
  using kv = await Deno.openKv(":memory:");
  const store = new ActionStore(kv);
  const a = await store.create(makeAction("w1"));
  assert.equal((await store.delete("w1", a.action_id))?.action_id, a.action_id);
  assert.equal(await store.delete("w1", a.action_id), null);
  assert.deepEqual(await store.list("w1"), []);
});

Deno.test("an action at every size limit still fits in one KV value", async () => {
  // A character outside Latin-1 makes V8 (and so KV) store the whole string at two bytes per
  // UTF-16 unit: the most a string of a given length can take.
  const wide = (length: number) => "\u0105".repeat(length);
  const input = {
    workspace_id: wide(100),
    title: wide(MAX_TITLE),
    assignee_id: wide(100),
    description: wide(MAX_DESCRIPTION),
    linked_post_id: wide(100),
    priority: wide(200),
    due_date: wide(200),
  };
  const filename = (i: number) => `${String(i).padStart(2, "0")}${wide(249)}.png`;
  // The fixture is at each limit the schemas enforce: one unit more is refused.
  assert.ok(createActionBody.safeParse(input).success);
  for (const [field, value] of Object.entries(input)) {
    const longer = createActionBody.safeParse({ ...input, [field]: value + wide(1) });
    assert.equal(longer.success, false, `${field} is not at its limit`);
  }
  assert.ok(addAttachmentBody.safeParse({ ...input, filename: filename(0) }).success);
  assert.equal(
    addAttachmentBody.safeParse({ ...input, filename: filename(0) + "x" }).success,
    false,
  );

  using kv = await Deno.openKv(":memory:");
  const store = new ActionStore(kv);
  const action = makeAction(input.workspace_id, {
    ...input,
    assignee_name: wide(200),
    created_by: wide(100),
    attachments: [],
  });
  action.attachments = Array.from({ length: MAX_ATTACHMENTS }, (_, i) => ({
    key: `workspaces/${action.workspace_id}/actions/${action.action_id}/${filename(i)}`,
    filename: filename(i),
    uploaded_at: nowIso(),
    uploaded_by: wide(100),
  }));
  // KV refuses a value over 64 KiB when the commit is made: `create` would throw here.
  await store.create(action);
  assert.deepEqual(await store.get(action.workspace_id, action.action_id), action);
});

Deno.test("action pages give the whole filtered list once, newest first, following changes and deletes", async () => {
  using kv = await Deno.openKv(":memory:");
  const store = new ActionStore(kv);
  const made: Action[] = [];
  const statuses = ["open", "in_progress", "completed"] as const;
  for (let n = 0; n < 14; n++) {
    made.push(
      await store.create(makeAction("w1", {
        status: statuses[n % 3],
        assignee_id: n % 2 ? "u2" : "u3",
        created_by: n % 4 ? "u1" : "u4",
        linked_post_id: n % 5 ? null : "p1",
      })),
    );
  }
  await store.create(makeAction("w2"));
  await store.update(
    "w1",
    made[0].action_id,
    (a) => ({ ...a, status: "cancelled", linked_post_id: null }),
  );
  await store.update("w1", made[1].action_id, (a) => ({ ...a, assignee_id: "u3" }));
  await store.delete("w1", made[2].action_id);
  const all = await store.list("w1");
  const pages = async (filters: Parameters<ActionStore["listPage"]>[1]) => {
    const ids: string[] = [];
    let after: string | undefined;
    for (;;) {
      const page = await store.listPage("w1", filters, { limit: 3, after });
      assert.ok(page.items.length <= 3);
      ids.push(...page.items.map((a) => a.action_id));
      if (page.next === null) return ids;
      after = page.next;
    }
  };
  for (
    const f of [
      {},
      { status: "open" },
      { status: "cancelled" },
      { assigneeId: "u3" },
      { linkedPostId: "p1" },
      { createdBy: "u4" },
      { assigneeId: "u2", status: "in_progress" },
      { status: "nonsense" },
      { assigneeId: "x".repeat(500) },
    ]
  ) {
    const expected = all.filter((a) =>
      (f.status === undefined || a.status === f.status) &&
      (f.assigneeId === undefined || a.assignee_id === f.assigneeId) &&
      (f.linkedPostId === undefined || a.linked_post_id === f.linkedPostId) &&
      (f.createdBy === undefined || a.created_by === f.createdBy)
    ).map((a) => a.action_id);
    assert.deepEqual(await pages(f), expected, JSON.stringify(f).slice(0, 80));
  }
  assert.deepEqual(await pages({ status: "cancelled" }), [made[0].action_id]);
});
