/**
 * Client-given file names never leave their place in the asset store: an action attachment's
 * key is its action's prefix plus the name's last part, a post's media is stored under its
 * media id, and a name that is no file name (control characters, over-long) is refused 400
 * naming the rule. Driven over HTTP, bytes through the presigned URLs.
 */
import assert from "node:assert/strict";
import { api, e2e, startTestStack } from "./helpers/stack.ts";
import { createUser } from "./helpers/users.ts";
import { createWorkspace } from "./helpers/workspaces.ts";
import { PNG } from "./helpers/media_files.ts";

Deno.test("file names stay inside their store or are refused", e2e, async (t) => {
  const stack = await startTestStack();
  try {
    const owner = await createUser(stack, { name: "Name Tester" });
    const ws = await createWorkspace(stack, owner, "Upload names");
    const token = owner.access_token;
    const action = await api(stack, "POST", "/api/actions", {
      token,
      body: { workspace_id: ws, title: "Names", assignee_id: owner.user_id },
    });
    assert.equal(action.status, 201);
    const actionId = action.body.action_id as string;
    const post = await api(stack, "POST", "/api/posts", {
      token,
      body: { workspace_id: ws, title: "Names", content: "Text" },
    });
    assert.equal(post.status, 201);
    const postId = post.body.post_id as string;
    const prefix = `workspaces/${ws}/actions/${actionId}/`;

    await t.step("an attachment named with ../ or %2e%2e is kept under its action", async () => {
      const names: [string, string][] = [
        ["../../../etc/passwd.png", "passwd.png"],
        ["..\\..\\win.png", "win.png"],
        ["%2e%2e%2fenc.png", "%2e%2e%2fenc.png"],
        ["ü🙂名.png", "ü🙂名.png"],
      ];
      for (const [filename, stored] of names) {
        const res = await api(stack, "POST", `/api/actions/${actionId}/attachments`, {
          token,
          body: { workspace_id: ws, filename, contentType: "image/png" },
        });
        assert.equal(res.status, 201, `${filename}: ${JSON.stringify(res.body)}`);
        assert.equal(res.body.key, prefix + stored, filename);
        const put = await fetch(res.body.uploadUrl, {
          method: "PUT",
          headers: { "content-type": "image/png" },
          body: PNG as Uint8Array<ArrayBuffer>,
        });
        await put.body?.cancel();
        assert.equal(put.status, 200, filename);
      }
      const list = await api(
        stack,
        "GET",
        `/api/actions/${actionId}/attachments?workspaceId=${ws}`,
        {
          token,
        },
      );
      assert.equal(list.status, 200);
      for (const item of list.body.items) {
        assert.ok(item.key.startsWith(prefix), item.key);
        const got = await fetch(item.downloadUrl);
        assert.deepEqual(new Uint8Array(await got.arrayBuffer()), PNG, item.key);
      }
    });

    await t.step("a name with a control character or over 255 characters is 400", async () => {
      for (const filename of ["a\u0000b.png", "a\nb.png", `${"x".repeat(300)}.png`]) {
        const res = await api(stack, "POST", `/api/actions/${actionId}/attachments`, {
          token,
          body: { workspace_id: ws, filename, contentType: "image/png" },
        });
        assert.equal(res.status, 400, JSON.stringify(filename.slice(0, 20)));
        assert.ok(typeof res.body.error === "string" && res.body.error.includes("filename"));
      }
    });

    await t.step("a key that names no attachment of the action deletes nothing (404)", async () => {
      for (const key of ["../../x.png", `${prefix}../../../x.png`, `${prefix}%00.png`]) {
        const res = await api(
          stack,
          "DELETE",
          `/api/actions/${actionId}/attachments?workspaceId=${ws}&key=${encodeURIComponent(key)}`,
          { token },
        );
        assert.equal(res.status, 404, key);
      }
    });

    await t.step("post media is stored under its id, whatever the name", async () => {
      const res = await api(stack, "POST", `/api/posts/${postId}/media`, {
        token,
        body: {
          workspace_id: ws,
          filename: "../../../etc/evil.png",
          contentType: "image/png",
          size: PNG.length,
        },
      });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      const path = decodeURIComponent(new URL(res.body.uploadUrl).pathname);
      assert.equal(path, `/assets/workspaces/${ws}/posts/${postId}/media/${res.body.media_id}.png`);
      const got = await api(stack, "GET", `/api/posts/${postId}?workspaceId=${ws}`, { token });
      assert.equal(got.body.media[0].filename, "evil.png");
    });

    await t.step("a media name with a control character is 400 naming the rule", async () => {
      for (const filename of ["a\u0000b.png", "a\nb.png", "tab\there.png"]) {
        const res = await api(stack, "POST", `/api/posts/${postId}/media`, {
          token,
          body: { workspace_id: ws, filename, contentType: "image/png", size: PNG.length },
        });
        assert.equal(res.status, 400, JSON.stringify(filename));
        assert.deepEqual(res.body, { error: "filename must not contain control characters" });
      }
    });
  } finally {
    await stack.close();
  }
});
