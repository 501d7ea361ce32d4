import assert from "node:assert/strict";
import { AppError } from "../../shared/http/app_error.ts";
import { DEFAULT_LISTS } from "./schemas.ts";
import { WorkspacesStore } from "./store.ts";

async function withStore(fn: (store: WorkspacesStore, kv: Deno.Kv) => Promise<void>) {
  const kv = await Deno.openKv(":memory:");
  try {
    await fn(new WorkspacesStore(kv), kv);
  } finally {
    kv.close();
  }
}

async function rejectsWith(p: Promise<unknown>, status: number, message?: string) {
  await assert.rejects(p, (err: unknown) => {
    assert.ok(err instanceof AppError, `expected AppError, got ${err}`);
    assert.equal(err.status, status);
    if (message) assert.equal(err.message, message);
    return true;
  });
}

Deno.test("create stores the workspace, an owner membership, a count of 1 and the total", async () => {
  await withStore(async (store) => {
    const ws = await store.create({ ownerId: "u1", name: "Team" });
    assert.equal(ws.status, "active");
    assert.equal(ws.description, "");
    assert.equal(ws.default_prompt_id, null);
    assert.deepEqual(ws.publishing_slots, []);
    assert.ok(!("deleted_at" in ws));
    const view = await store.getForMember(ws.workspace_id, "u1");
    assert.equal(view.membership?.role, "owner");
    assert.equal(view.memberCount, 1);
    assert.deepEqual(await store.stats(), { total_workspaces: 1 });
  });
});

Deno.test("member count follows adds, removes and accepted invites", async () => {
  await withStore(async (store) => {
    const ws = await store.create({ ownerId: "o", name: "W" });
    const id = ws.workspace_id;
    await store.addMember({ workspaceId: id, callerId: "o", userId: "a", role: "editor" });
    await store.addMember({ workspaceId: id, callerId: "a", userId: "b", role: "viewer" });
    assert.equal((await store.getForMember(id, "o")).memberCount, 3);
    await store.removeMember(id, "o", "a");
    assert.equal((await store.getForMember(id, "o")).memberCount, 2);
    await store.invites.record({
      workspaceId: id,
      callerId: "o",
      email: "new@x.test",
      role: "editor",
    });
    assert.deepEqual(await store.invites.accept("new@x.test", "n"), [
      { workspace_id: id, role: "editor", invited_by: "o" },
    ]);
    assert.deepEqual(
      await store.invites.accept("new@x.test", "n"),
      [],
      "accepting twice is a no-op",
    );
    const view = await store.getForMember(id, "n");
    assert.equal(view.membership?.role, "editor");
    assert.equal(view.memberCount, 3);
    assert.deepEqual(await store.invites.list(id), []);
  });
});

Deno.test("add member refuses a duplicate (409), a viewer (403) and a non-member (403); re-invite replaces", async () => {
  await withStore(async (store) => {
    const { workspace_id: id } = await store.create({ ownerId: "o", name: "W" });
    await store.addMember({ workspaceId: id, callerId: "o", userId: "v", role: "viewer" });
    await rejectsWith(
      store.addMember({ workspaceId: id, callerId: "o", userId: "v", role: "editor" }),
      409,
      "User is already a member of the workspace",
    );
    await rejectsWith(
      store.addMember({ workspaceId: id, callerId: "v", userId: "x", role: "viewer" }),
      403,
      "Only the owner or an editor can add members",
    );
    await rejectsWith(
      store.addMember({ workspaceId: id, callerId: "stranger", userId: "x", role: "viewer" }),
      403,
      "Not a workspace member",
    );
    await store.invites.record({
      workspaceId: id,
      callerId: "o",
      email: "p@x.test",
      role: "viewer",
    });
    await store.invites.record({
      workspaceId: id,
      callerId: "o",
      email: "p@x.test",
      role: "editor",
    });
    const invites = await store.invites.list(id);
    assert.deepEqual(
      invites.map((i) => [i.email, i.role]),
      [["p@x.test", "editor"]],
      "a second invite replaces the first",
    );
  });
});

Deno.test("transfer swaps owner and editor; non-owner transfer 403; non-member target 400", async () => {
  await withStore(async (store) => {
    const { workspace_id: id } = await store.create({ ownerId: "o", name: "W" });
    await store.addMember({ workspaceId: id, callerId: "o", userId: "e", role: "editor" });
    await rejectsWith(store.update(id, "e", { owner_id: "o2" }), 403);
    await rejectsWith(
      store.update(id, "o", { owner_id: "nobody" }),
      400,
      "owner_id is not a member of the workspace",
    );
    const ws = await store.update(id, "o", { owner_id: "e", name: "Renamed" });
    assert.equal(ws.owner_id, "e");
    assert.equal(ws.name, "Renamed");
    assert.equal((await store.membership(id, "o")).membership?.role, "editor");
    assert.equal((await store.membership(id, "e")).membership?.role, "owner");
    // An editor sending the current owner back is not a transfer.
    const same = await store.update(id, "o", { owner_id: "e", description: "d" });
    assert.equal(same.description, "d");
  });
});

Deno.test("update and delete check role before existence", async () => {
  await withStore(async (store) => {
    const { workspace_id: id } = await store.create({ ownerId: "o", name: "W" });
    await store.addMember({ workspaceId: id, callerId: "o", userId: "v", role: "viewer" });
    await store.deleteByOwner(id, "o");
    await rejectsWith(store.update(id, "v", { name: "x" }), 403);
    await rejectsWith(store.update(id, "o", { name: "x" }), 404, "Workspace not found");
    await rejectsWith(store.deleteByOwner(id, "v"), 403);
    await rejectsWith(store.deleteByOwner(id, "o"), 404);
    await rejectsWith(store.update("missing", "o", { name: "x" }), 403);
  });
});

Deno.test("soft delete and recover by the admin path", async () => {
  await withStore(async (store) => {
    const { workspace_id: id } = await store.create({ ownerId: "o", name: "W" });
    await rejectsWith(store.recover(id), 400, "Workspace is not deleted");
    const deleted = await store.softDelete(id);
    assert.equal(deleted.status, "deleted");
    assert.ok(deleted.deleted_at);
    await rejectsWith(store.softDelete(id), 400, "Workspace is already deleted");
    assert.deepEqual(await store.listForUser("o"), []);
    assert.equal((await store.listAll()).length, 1);
    const recovered = await store.recover(id);
    assert.equal(recovered.status, "active");
    assert.ok(!("deleted_at" in recovered));
    assert.equal((await store.getWorkspace(id))?.deleted_at, undefined);
    await rejectsWith(store.softDelete("nope"), 404, "Workspace not found");
    await rejectsWith(store.recover("nope"), 404);
  });
});

Deno.test("remove member: owner cannot leave, others can; non-owner cannot remove others", async () => {
  await withStore(async (store) => {
    const { workspace_id: id } = await store.create({ ownerId: "o", name: "W" });
    await store.addMember({ workspaceId: id, callerId: "o", userId: "e", role: "editor" });
    await store.addMember({ workspaceId: id, callerId: "o", userId: "v", role: "viewer" });
    await rejectsWith(store.removeMember(id, "o", "o"), 400);
    await rejectsWith(store.removeMember(id, "e", "v"), 403);
    await rejectsWith(store.removeMember(id, "e", "o"), 403);
    await rejectsWith(store.removeMember(id, "x", "v"), 403, "Not a workspace member");
    await rejectsWith(
      store.removeMember(id, "o", "x"),
      404,
      "User is not a member of the workspace",
    );
    await store.removeMember(id, "v", "v");
    await store.removeMember(id, "o", "e");
    assert.deepEqual((await store.listMembers(id)).map((m) => m.user_id), ["o"]);
    assert.deepEqual(await store.listForUser("e"), []);
  });
});

Deno.test("lists default until saved and are returned as saved, even empty", async () => {
  await withStore(async (store) => {
    const { workspace_id: id } = await store.create({ ownerId: "o", name: "W" });
    assert.deepEqual(await store.getList("audiences", id, "o"), DEFAULT_LISTS.audiences);
    assert.deepEqual(await store.getList("languages", id, "o"), DEFAULT_LISTS.languages);
    await store.saveList("audiences", id, "o", []);
    assert.deepEqual(await store.getList("audiences", id, "o"), []);
    assert.deepEqual(await store.getList("languages", id, "o"), DEFAULT_LISTS.languages);
    await rejectsWith(store.getList("audiences", id, "x"), 403);
    await rejectsWith(store.saveList("languages", id, "x", []), 403);
  });
});

Deno.test("concurrent transfers, adds and removes leave one owner and a true count", async () => {
  await withStore(async (store) => {
    const { workspace_id: id } = await store.create({ ownerId: "u0", name: "W" });
    const users = Array.from({ length: 8 }, (_, i) => `u${i + 1}`);
    for (const u of users.slice(0, 4)) {
      await store.addMember({ workspaceId: id, callerId: "u0", userId: u, role: "editor" });
    }
    const ops: Promise<unknown>[] = [];
    for (let i = 0; i < 20; i++) {
      const target = users[i % 4];
      ops.push(store.update(id, "u0", { owner_id: target }));
      ops.push(store.update(id, target, { owner_id: "u0" }));
      ops.push(
        store.addMember({
          workspaceId: id,
          callerId: "u0",
          userId: users[4 + (i % 4)],
          role: "viewer",
        }),
      );
      ops.push(store.removeMember(id, "u0", users[4 + ((i + 1) % 4)]));
    }
    const results = await Promise.allSettled(ops);
    for (const r of results) {
      if (r.status === "rejected") assert.ok(r.reason instanceof AppError, String(r.reason));
    }
    const members = await store.listMembers(id);
    const owners = members.filter((m) => m.role === "owner");
    assert.equal(owners.length, 1);
    assert.equal((await store.getWorkspace(id))?.owner_id, owners[0].user_id);
    assert.equal(new Set(members.map((m) => m.user_id)).size, members.length);
    assert.equal((await store.getForMember(id, "u0")).memberCount, members.length);
  });
});
