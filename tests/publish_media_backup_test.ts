import assert from "node:assert/strict";
import { api, e2e, startTestStack } from "./helpers/stack.ts";
import { createUser, loginAdmin } from "./helpers/users.ts";
import { createWorkspace } from "./helpers/workspaces.ts";
import { PDF, PNG } from "./helpers/media_files.ts";
import { waitFor } from "./helpers/wait.ts";

Deno.test("a post's media are in a backup and come back with a restore", e2e, async () => {
  const stack = await startTestStack();
  try {
    const admin = await loginAdmin(stack);
    const author = await createUser(stack);
    const wsId = await createWorkspace(stack, author, "Media backup");
    const post = await api(stack, "POST", "/api/posts", {
      token: author.access_token,
      body: { workspace_id: wsId, content: "Backed up" },
    });
    const id = post.body.post_id;
    for (const [name, type, bytes] of [["a.png", "image/png", PNG]] as const) {
      const media = await api(stack, "POST", `/api/posts/${id}/media`, {
        token: author.access_token,
        body: { workspace_id: wsId, filename: name, contentType: type, size: bytes.length },
      });
      const put = await fetch(media.body.uploadUrl, {
        method: "PUT",
        headers: { "content-type": type },
        body: bytes,
      });
      assert.equal(put.status, 200);
    }
    const backup = await api(stack, "POST", "/api/admin/backups", { token: admin.access_token });
    assert.equal(backup.status, 201);
    assert.equal(backup.body.asset_count, 1);
    // After the backup: the image removed, a document added in its place.
    const before = await api(stack, "GET", `/api/posts/${id}?workspaceId=${wsId}`, {
      token: author.access_token,
    });
    const mediaId = before.body.media[0].media_id;
    await api(stack, "DELETE", `/api/posts/${id}/media/${mediaId}?workspaceId=${wsId}`, {
      token: author.access_token,
    });
    const doc = await api(stack, "POST", `/api/posts/${id}/media`, {
      token: author.access_token,
      body: {
        workspace_id: wsId,
        filename: "d.pdf",
        contentType: "application/pdf",
        size: PDF.length,
      },
    });
    assert.equal(doc.status, 201);
    const restore = await api(stack, "POST", "/api/admin/backups/restore", {
      token: admin.access_token,
      body: { key: backup.body.key },
    });
    assert.equal(restore.status, 200);
    await waitFor(
      async () => {
        const job = await api(stack, "GET", `/api/admin/restores/${restore.body.job_id}`, {
          token: admin.access_token,
        });
        return job.body.status === "succeeded";
      },
      "the restore",
      30_000,
    );
    const again = await api(stack, "POST", "/api/auth/login", {
      body: { email: author.email, password: author.password },
    });
    const after = await api(stack, "GET", `/api/posts/${id}?workspaceId=${wsId}`, {
      token: again.body.access_token,
    });
    assert.deepEqual(after.body.media.map((m: { media_id: string }) => m.media_id), [mediaId]);
    const bytes = new Uint8Array(
      await (await fetch(after.body.media[0].downloadUrl)).arrayBuffer(),
    );
    assert.deepEqual(bytes, PNG);
  } finally {
    await stack.close();
  }
});
