import assert from "node:assert/strict";
import { api, e2e, startTestStack, type TestStack } from "./helpers/stack.ts";
import { createUser, loginAdmin, type TestUser } from "./helpers/users.ts";
import { createWorkspace } from "./helpers/workspaces.ts";
import { ticketFor } from "./helpers/ws.ts";
import { waitFor } from "./helpers/wait.ts";

async function backup(stack: TestStack, admin: TestUser): Promise<string> {
  const res = await api(stack, "POST", "/api/admin/backups", { token: admin.access_token });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body.key;
}

async function restore(stack: TestStack, admin: TestUser, key: string): Promise<void> {
  const res = await api(stack, "POST", "/api/admin/backups/restore", {
    token: admin.access_token,
    body: { key },
  });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const job = await waitFor(
    async () => {
      const r = await api(stack, "GET", `/api/admin/restores/${res.body.job_id}`, {
        token: admin.access_token,
      });
      return (r.body.status === "succeeded" || r.body.status === "failed") && r.body;
    },
    "the restore job to finish",
    20_000,
  );
  assert.equal(job.status, "succeeded", job.error);
}

async function content(stack: TestStack, user: TestUser, ws: string, postId: string) {
  const res = await api(stack, "GET", `/api/posts/${postId}?workspaceId=${ws}`, {
    token: user.access_token,
  });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.content as string;
}

Deno.test(
  "a restore brings back the backup's post text even where the document was just in use",
  e2e,
  async (t) => {
    const stack = await startTestStack();
    try {
      const admin = await loginAdmin(stack);
      const owner = await createUser(stack, { name: "Olga Owner" });
      const ws = await createWorkspace(stack, owner, "Restore texts");
      const created = await api(stack, "POST", "/api/posts", {
        token: owner.access_token,
        body: { workspace_id: ws, title: "T", content: "Text in the backup" },
      });
      assert.equal(created.status, 201);
      const postId = created.body.post_id as string;

      await t.step("a text written over REST just before the restore is replaced", async () => {
        const key = await backup(stack, admin);
        const put = await api(stack, "PUT", `/api/posts/${postId}`, {
          token: owner.access_token,
          body: { workspace_id: ws, content: "Written after the backup" },
        });
        assert.equal(put.status, 200);
        assert.equal(await content(stack, owner, ws, postId), "Written after the backup");
        await restore(stack, admin, key);
        assert.equal(await content(stack, owner, ws, postId), "Text in the backup");
      });

      await t.step(
        "an editor open during the restore is closed and the text is the backup's",
        async () => {
          const key = await backup(stack, admin);
          const ticket = await ticketFor(stack, owner);
          const socket = new WebSocket(
            `${
              stack.url.replace(/^http/, "ws")
            }/ws?ticket=${ticket}&docId=${postId}&workspaceId=${ws}`,
          );
          socket.binaryType = "arraybuffer";
          const closed = new Promise<number>((resolve) => socket.onclose = (e) => resolve(e.code));
          await new Promise((resolve, reject) => {
            socket.onopen = resolve;
            socket.onerror = reject;
          });
          const put = await api(stack, "PUT", `/api/posts/${postId}`, {
            token: owner.access_token,
            body: { workspace_id: ws, content: "Edited while the editor is open" },
          });
          assert.equal(put.status, 200);
          await restore(stack, admin, key);
          assert.equal(await content(stack, owner, ws, postId), "Text in the backup");
          const code = await Promise.race([
            closed,
            new Promise<null>((r) => setTimeout(() => r(null), 5_000)),
          ]);
          assert.equal(code, 4409, "the open socket was closed by the restore, for good");
          socket.close();
        },
      );
    } finally {
      await stack.close();
    }
  },
);
