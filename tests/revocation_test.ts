import assert from "node:assert/strict";
import { api, e2e, startTestStack, type TestStack } from "./helpers/stack.ts";
import { assertRetryAfter } from "./helpers/retry_after.ts";
import { createUser, loginAdmin, type TestUser } from "./helpers/users.ts";
import { upgradeStatus } from "./helpers/ws.ts";
import { waitFor } from "./helpers/wait.ts";

/** What takes rights away lands within 5 seconds, without a new token. */
const REVOCATION_DEADLINE_MS = 5_000;
const CAPTURES_PER_MINUTE = 4;

/**
 * Polls `probe` until it answers `status`, failing when that takes longer than the deadline
 * counted from `since` (the moment the change was made). Answers the last response.
 */
async function refusedWithin(
  since: number,
  what: string,
  status: number,
  probe: () => Promise<{ status: number; body: unknown }>,
) {
  let last: { status: number; body: unknown } = { status: 0, body: null };
  return await waitFor(
    async () => {
      last = await probe();
      return last.status === status && last;
    },
    what,
    since + REVOCATION_DEADLINE_MS - Date.now(),
  ).catch(() => {
    throw new Error(
      `${what}: still ${last.status} ${JSON.stringify(last.body)} ${REVOCATION_DEADLINE_MS} ms ` +
        `after the change, expected ${status}`,
    );
  });
}

async function workspaceOf(stack: TestStack, owner: TestUser, name: string): Promise<string> {
  const res = await api(stack, "POST", "/api/workspaces", {
    token: owner.access_token,
    body: { name },
  });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body.workspace_id;
}

async function addMember(stack: TestStack, owner: TestUser, ws: string, member: TestUser) {
  const res = await api(stack, "POST", `/api/workspaces/${ws}/members`, {
    token: owner.access_token,
    body: { email: member.email, role: "editor" },
  });
  assert.equal(res.status, 201, JSON.stringify(res.body));
}

async function captureToken(stack: TestStack, user: TestUser, ws: string): Promise<string> {
  const res = await api(stack, "POST", "/api/quick-capture/token", {
    token: user.access_token,
    body: { workspace_id: ws },
  });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body.token;
}

const capture = (stack: TestStack, token: string, title = "An idea") =>
  api(stack, "POST", "/api/quick-capture", {
    body: { title },
    headers: { "X-Capture-Token": token },
  });

/** A raw MCP `initialize` over Streamable HTTP: the first call any MCP client makes. */
const mcpInitialize = (stack: TestStack, user: TestUser) =>
  api(stack, "POST", "/mcp", {
    token: user.access_token,
    headers: { accept: "application/json, text/event-stream" },
    body: {
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: {
        protocolVersion: "2025-03-26",
        capabilities: {},
        clientInfo: { name: "revocation-test", version: "1.0.0" },
      },
    },
  });

Deno.test(
  "revoked users, members and capture tokens are refused within 5 s; capture tokens are rate limited",
  e2e,
  async (t) => {
    const stack = await startTestStack({ CAPTURES_PER_MINUTE: String(CAPTURES_PER_MINUTE) });
    try {
      const admin = await loginAdmin(stack);
      const owner = await createUser(stack, { name: "Owner" });
      const ws = await workspaceOf(stack, owner, "Revocation");

      await t.step(
        "a disabled user's token is refused (401) within 5 s on a workspace route, " +
          "POST /api/ws/ticket, POST /mcp and an earlier WebSocket ticket",
        async () => {
          const user = await createUser(stack, { name: "To disable" });
          await addMember(stack, owner, ws, user);
          const post = await api(stack, "POST", "/api/posts", {
            token: owner.access_token,
            body: { workspace_id: ws, title: "Live post", content: "Text" },
          });
          assert.equal(post.status, 201, JSON.stringify(post.body));
          const socketQuery = (ticket: string) =>
            new URLSearchParams({ ticket, docId: post.body.post_id, workspaceId: ws }).toString();
          // Everything works before the change.
          const before = await api(stack, "GET", `/api/workspaces/${ws}`, {
            token: user.access_token,
          });
          assert.equal(before.status, 200, JSON.stringify(before.body));
          const ticket = await api(stack, "POST", "/api/ws/ticket", { token: user.access_token });
          assert.equal(ticket.status, 200, JSON.stringify(ticket.body));
          assert.equal(await upgradeStatus(stack.url, socketQuery(ticket.body.ticket)), 101);
          assert.equal((await mcpInitialize(stack, user)).status, 200);
          // A ticket opens one socket: this one is minted before the change and used after it.
          const unused = await api(stack, "POST", "/api/ws/ticket", { token: user.access_token });
          assert.equal(unused.status, 200, JSON.stringify(unused.body));

          const disabled = await api(stack, "PUT", `/api/admin/users/${user.user_id}/status`, {
            token: admin.access_token,
            body: { enabled: false },
          });
          assert.equal(disabled.status, 200, JSON.stringify(disabled.body));
          const since = Date.now();

          const ws401 = await refusedWithin(
            since,
            "GET /api/workspaces/{id}",
            401,
            () => api(stack, "GET", `/api/workspaces/${ws}`, { token: user.access_token }),
          );
          assert.deepEqual(ws401.body, { error: "Unauthorized" });
          await refusedWithin(
            since,
            "POST /api/ws/ticket",
            401,
            () => api(stack, "POST", "/api/ws/ticket", { token: user.access_token }),
          );
          await refusedWithin(since, "POST /mcp", 401, () => mcpInitialize(stack, user));
          await refusedWithin(
            since,
            "GET /api/auth/me",
            401,
            () => api(stack, "GET", "/api/auth/me", { token: user.access_token }),
          );
          await refusedWithin(since, "a WebSocket ticket minted before", 401, async () => ({
            status: await upgradeStatus(stack.url, socketQuery(unused.body.ticket)),
            body: null,
          }));
        },
      );

      await t.step(
        "a rejected user's token is refused (401) within 5 s, without a new token",
        async () => {
          const user = await createUser(stack, { name: "Rejected later" });
          await addMember(stack, owner, ws, user);
          const before = await api(stack, "GET", `/api/workspaces/${ws}`, {
            token: user.access_token,
          });
          assert.equal(before.status, 200, JSON.stringify(before.body));
          const rejected = await api(stack, "POST", `/api/admin/users/${user.user_id}/reject`, {
            token: admin.access_token,
          });
          assert.equal(rejected.status, 200, JSON.stringify(rejected.body));
          const since = Date.now();
          const refused = await refusedWithin(
            since,
            "GET /api/workspaces/{id}",
            401,
            () => api(stack, "GET", `/api/workspaces/${ws}`, { token: user.access_token }),
          );
          assert.deepEqual(refused.body, { error: "Unauthorized" });
          await refusedWithin(
            since,
            "POST /api/ws/ticket",
            401,
            () => api(stack, "POST", "/api/ws/ticket", { token: user.access_token }),
          );
          await refusedWithin(since, "POST /mcp", 401, () => mcpInitialize(stack, user));
          await refusedWithin(
            since,
            "GET /api/auth/me",
            401,
            () => api(stack, "GET", "/api/auth/me", { token: user.access_token }),
          );
        },
      );

      await t.step(
        "a demoted admin gets 403 Admin access required within 5 s, without a new token, " +
          "and loses the admin claim's privileges in workspaces",
        async () => {
          const user = await createUser(stack, { name: "Short-lived admin" });
          const promoted = await api(stack, "PUT", `/api/admin/users/${user.user_id}/role`, {
            token: admin.access_token,
            body: { role: "admin" },
          });
          assert.equal(promoted.status, 200, JSON.stringify(promoted.body));
          // Promotion needs a new token (the spec's rule), so the new admin signs in again.
          const tokens = await api(stack, "POST", "/api/auth/login", {
            body: { email: user.email, password: user.password },
          });
          const asAdmin = { ...user, access_token: tokens.body.access_token as string };
          const listed = await api(stack, "GET", "/api/admin/users", {
            token: asAdmin.access_token,
          });
          assert.equal(listed.status, 200, JSON.stringify(listed.body));
          // The admin claim's privilege in a workspace they belong to: deleting others' posts.
          await addMember(stack, owner, ws, user);
          const ownersPost = async () => {
            const res = await api(stack, "POST", "/api/posts", {
              token: owner.access_token,
              body: { workspace_id: ws, title: "Owner's", content: "Text" },
            });
            assert.equal(res.status, 201, JSON.stringify(res.body));
            return res.body.post_id as string;
          };
          const deletePost = (postId: string) =>
            api(stack, "DELETE", `/api/posts/${postId}?workspaceId=${ws}`, {
              token: asAdmin.access_token,
            });
          const asPlatformAdmin = await deletePost(await ownersPost());
          assert.equal(asPlatformAdmin.status, 200, JSON.stringify(asPlatformAdmin.body));
          const kept = await ownersPost();

          const demoted = await api(stack, "PUT", `/api/admin/users/${user.user_id}/role`, {
            token: admin.access_token,
            body: { role: "member" },
          });
          assert.equal(demoted.status, 200, JSON.stringify(demoted.body));
          const since = Date.now();
          const refused = await refusedWithin(
            since,
            "GET /api/admin/users",
            403,
            () => api(stack, "GET", "/api/admin/users", { token: asAdmin.access_token }),
          );
          assert.deepEqual(refused.body, { error: "Admin access required" });
          const backup = await api(stack, "POST", "/api/admin/backups", {
            token: asAdmin.access_token,
          });
          assert.equal(backup.status, 403, JSON.stringify(backup.body));
          assert.deepEqual(backup.body, { error: "Admin access required" });
          const notDeleted = await refusedWithin(
            since,
            "DELETE /api/posts/{id} as a platform admin",
            403,
            () => deletePost(kept),
          );
          assert.deepEqual(notDeleted.body, { error: "Not authorized to delete this post" });
          // Still an approved member: the ordinary routes keep working.
          const me = await api(stack, "GET", "/api/auth/me", { token: asAdmin.access_token });
          assert.equal(me.status, 200, JSON.stringify(me.body));
          assert.equal(me.body.role, "member");
        },
      );

      await t.step(
        "promotion still needs a new token (an old member token stays a member's)",
        async () => {
          const user = await createUser(stack, { name: "Promoted later" });
          const promoted = await api(stack, "PUT", `/api/admin/users/${user.user_id}/role`, {
            token: admin.access_token,
            body: { role: "admin" },
          });
          assert.equal(promoted.status, 200, JSON.stringify(promoted.body));
          // Past the access cache's lifetime, the old token is still a member's.
          await new Promise((r) => setTimeout(r, 2_200));
          const res = await api(stack, "GET", "/api/admin/users", { token: user.access_token });
          assert.equal(res.status, 403, JSON.stringify(res.body));
        },
      );

      await t.step(
        "a rejected user's capture token is refused (401) within 5 s",
        async () => {
          const user = await createUser(stack, { name: "To reject" });
          await addMember(stack, owner, ws, user);
          const token = await captureToken(stack, user, ws);
          const ok = await capture(stack, token);
          assert.equal(ok.status, 201, JSON.stringify(ok.body));

          const rejected = await api(stack, "POST", `/api/admin/users/${user.user_id}/reject`, {
            token: admin.access_token,
          });
          assert.equal(rejected.status, 200, JSON.stringify(rejected.body));
          const refused = await refusedWithin(
            Date.now(),
            "POST /api/quick-capture",
            401,
            () => capture(stack, token),
          );
          assert.deepEqual(refused.body, { error: "Invalid or revoked capture token" });
        },
      );

      await t.step(
        "a disabled user's capture token is refused (401) within 5 s",
        async () => {
          const user = await createUser(stack, { name: "To disable (capture)" });
          await addMember(stack, owner, ws, user);
          const token = await captureToken(stack, user, ws);
          assert.equal((await capture(stack, token)).status, 201);
          const disabled = await api(stack, "PUT", `/api/admin/users/${user.user_id}/status`, {
            token: admin.access_token,
            body: { enabled: false },
          });
          assert.equal(disabled.status, 200, JSON.stringify(disabled.body));
          await refusedWithin(
            Date.now(),
            "POST /api/quick-capture",
            401,
            () => capture(stack, token),
          );
        },
      );

      await t.step(
        "a removed member's capture token is refused with 403 (held already; a guard)",
        async () => {
          const user = await createUser(stack, { name: "To remove" });
          await addMember(stack, owner, ws, user);
          const token = await captureToken(stack, user, ws);
          assert.equal((await capture(stack, token)).status, 201);
          const removed = await api(
            stack,
            "DELETE",
            `/api/workspaces/${ws}/members/${user.user_id}`,
            {
              token: owner.access_token,
            },
          );
          assert.equal(removed.status, 204, JSON.stringify(removed.body));
          const refused = await refusedWithin(
            Date.now(),
            "POST /api/quick-capture",
            403,
            () => capture(stack, token),
          );
          assert.deepEqual(refused.body, { error: "Not a workspace member" });
        },
      );

      await t.step(
        `one capture token makes at most ${CAPTURES_PER_MINUTE} captures a minute (429)`,
        async () => {
          const user = await createUser(stack, { name: "Busy capturer" });
          await addMember(stack, owner, ws, user);
          const token = await captureToken(stack, user, ws);
          const other = await captureToken(stack, user, ws);
          // A minute boundary may fall inside the burst and reset the count once, so the limit
          // must bite within two windows' worth of captures.
          const statuses: number[] = [];
          let limited: { status: number; body: { error: string }; headers: Headers } | null = null;
          for (let i = 0; i < 2 * CAPTURES_PER_MINUTE + 1; i++) {
            const res = await capture(stack, token, `Idea ${i}`);
            statuses.push(res.status);
            if (res.status === 429) {
              limited = res;
              break;
            }
            assert.equal(res.status, 201, JSON.stringify(res.body));
          }
          assert.ok(limited, `no 429 after ${statuses.length} captures: ${statuses}`);
          assert.ok(statuses.length > CAPTURES_PER_MINUTE, `429 too early: ${statuses}`);
          assert.match(limited.body.error, /^Too many captures with this token/);
          assertRetryAfter(limited.headers, 60);
          // The limit is per token: another token of the same user still captures.
          const fresh = await capture(stack, other);
          assert.equal(fresh.status, 201, JSON.stringify(fresh.body));
        },
      );
    } finally {
      await stack.close();
    }
  },
);
