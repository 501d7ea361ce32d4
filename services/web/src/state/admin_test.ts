/// <reference lib="deno.ns" />
import assert from "node:assert/strict";
import { Hono } from "hono";
import { serve } from "./test_server.ts";
import {
  approveUser,
  backupDownloadUrl,
  backupUploadTarget,
  createBackup,
  deleteAdminWorkspace,
  loadAdminWorkspaces,
  loadBackups,
  loadMetrics,
  loadPendingAccounts,
  loadRestoreJob,
  loadUsers,
  pendingAccounts,
  recoverAdminWorkspace,
  rejectUser,
  setUserEnabled,
  setUserRole,
  startRestore,
  watchRestoreJob,
} from "./admin.ts";

Deno.test("admin store: users are listed (all or pending) and changed one by one", async () => {
  pendingAccounts.value = null;
  using server = serve(
    new Hono()
      .get("/api/admin/users", (c) => c.json({ users: [] }))
      .post("/api/admin/users/:id/:what", (c) => c.json({}))
      .put("/api/admin/users/:id/:what", (c) => c.json({})),
  );
  await loadUsers();
  await loadUsers("pending");
  await approveUser("u1");
  await rejectUser("u2");
  await setUserRole("u1", "admin");
  await setUserEnabled("u1", false);
  assert.deepEqual(server.seen.map((s) => [s.method, s.path, s.body ?? s.query]), [
    ["GET", "/api/admin/users", {}],
    ["GET", "/api/admin/users", { status: "pending" }],
    ["POST", "/api/admin/users/u1/approve", {}],
    // the badge of accounts awaiting approval follows each decision
    ["GET", "/api/admin/users", { status: "pending" }],
    ["POST", "/api/admin/users/u2/reject", {}],
    ["GET", "/api/admin/users", { status: "pending" }],
    ["PUT", "/api/admin/users/u1/role", { role: "admin" }],
    ["PUT", "/api/admin/users/u1/status", { enabled: false }],
  ]);
});

Deno.test("admin store: workspaces, backups, restores and metrics", async () => {
  using server = serve(
    new Hono()
      .get("/api/admin/workspaces", (c) => c.json({ workspaces: [] }))
      .delete("/api/admin/workspaces/:id", (c) => c.body(null, 204))
      .post("/api/admin/workspaces/:id/recover", (c) => c.json({}))
      .get("/api/admin/backups", (c) => c.json({ backups: [] }))
      .post("/api/admin/backups", (c) => c.json({ key: "b1" }, 201))
      .get("/api/admin/backups/download", (c) => c.json({ url: `http://s3/${c.req.query("key")}` }))
      .post("/api/admin/backups/upload-url", (c) => c.json({ url: "http://s3/up", key: "b2" }))
      .post("/api/admin/backups/restore", (c) => c.json({ job_id: "j1" }, 202))
      .get(
        "/api/admin/restores/:id",
        (c) => c.json({ job_id: c.req.param("id"), status: "running" }),
      )
      .get("/api/admin/metrics", (c) => c.json({ users: 1 })),
  );
  await loadAdminWorkspaces();
  await deleteAdminWorkspace("ws1");
  await recoverAdminWorkspace("ws1");
  await loadBackups();
  assert.equal((await createBackup()).key, "b1");
  assert.equal(await backupDownloadUrl("b1"), "http://s3/b1");
  assert.equal((await backupUploadTarget()).url, "http://s3/up");
  assert.equal((await startRestore("b2")).job_id, "j1");
  assert.equal((await loadRestoreJob("j1")).status, "running");
  await loadMetrics();
  assert.deepEqual(server.seen.map((s) => `${s.method} ${s.path}`), [
    "GET /api/admin/workspaces",
    "DELETE /api/admin/workspaces/ws1",
    "POST /api/admin/workspaces/ws1/recover",
    "GET /api/admin/backups",
    "POST /api/admin/backups",
    "GET /api/admin/backups/download",
    "POST /api/admin/backups/upload-url",
    "POST /api/admin/backups/restore",
    "GET /api/admin/restores/j1",
    "GET /api/admin/metrics",
  ]);
  assert.deepEqual(server.seen[7].body, { key: "b2" });
});

Deno.test("admin store: a restore job is polled until it has finished", async () => {
  const states = ["queued", "running", "succeeded"];
  using server = serve(
    new Hono().get(
      "/api/admin/restores/:id",
      (c) => c.json({ job_id: "j1", status: states.shift() }),
    ),
  );
  const seen: string[] = [];
  await new Promise<void>((finished) => {
    watchRestoreJob("j1", 5, {
      onJob: (job) => seen.push(job.status),
      onError: (err) => seen.push(`error ${err}`),
      onFinished: finished,
    });
  });
  assert.deepEqual(seen, ["queued", "running", "succeeded"]);
  await new Promise((r) => setTimeout(r, 30));
  assert.equal(server.seen.length, 3, "no read after the job finished");
});

Deno.test("admin store: an unknown restore job stops the polling", async () => {
  using server = serve(
    new Hono().get(
      "/api/admin/restores/:id",
      (c) => c.json({ error: "Restore job not found" }, 404),
    ),
  );
  const errors: unknown[] = [];
  const stop = watchRestoreJob("gone", 5, {
    onJob: () => {},
    onError: (err) => errors.push(err),
    onFinished: () => {},
  });
  await new Promise((r) => setTimeout(r, 40));
  stop();
  assert.equal(errors.length, 1);
  assert.equal(server.seen.length, 1);
});

Deno.test("admin store: the pending list sets the count of accounts awaiting approval", async () => {
  pendingAccounts.value = null;
  using _server = serve(
    new Hono().get("/api/admin/users", (c) =>
      c.json({
        users: [
          { user_id: "u1", status: "pending" },
          { user_id: "u2", status: "pending" },
          { user_id: "u3", status: "approved" },
        ],
      })),
  );
  await loadPendingAccounts();
  assert.equal(pendingAccounts.value, 2);
});
