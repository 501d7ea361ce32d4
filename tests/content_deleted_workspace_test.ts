import assert from "node:assert/strict";
import { api, e2e, startTestStack } from "./helpers/stack.ts";
import { createUser } from "./helpers/users.ts";
import { createWorkspace } from "./helpers/workspaces.ts";

Deno.test(
  "the lists and creates of a soft-deleted workspace answer 404, as the OpenAPI document says",
  e2e,
  async () => {
    const stack = await startTestStack();
    try {
      const owner = await createUser(stack, { name: "Olga Owner" });
      const ws = await createWorkspace(stack, owner, "Soon deleted");
      const token = owner.access_token;
      const capture = await api(stack, "POST", "/api/quick-capture/token", {
        token,
        body: { workspace_id: ws },
      });
      assert.equal(capture.status, 201, JSON.stringify(capture.body));
      const deleted = await api(stack, "DELETE", `/api/workspaces/${ws}`, { token });
      assert.equal(deleted.status, 204);

      const doc = (await api(stack, "GET", "/api/openapi.json")).body;
      const calls: [string, string, string, Record<string, unknown>?, Record<string, string>?][] = [
        ["POST", "/api/ideas", "/api/ideas", { workspace_id: ws, title: "An idea" }],
        ["GET", "/api/ideas", `/api/ideas?workspaceId=${ws}`],
        ["POST", "/api/prompts", "/api/prompts", {
          workspace_id: ws,
          name: "Prompt",
          system_instruction: "You write posts",
          user_template: "About {idea_title}",
        }],
        ["GET", "/api/prompts", `/api/prompts?workspaceId=${ws}`],
        ["POST", "/api/actions", "/api/actions", {
          workspace_id: ws,
          title: "An action",
          assignee_id: owner.user_id,
        }],
        ["GET", "/api/actions", `/api/actions?workspaceId=${ws}`],
        ["GET", "/api/posts", `/api/posts?workspaceId=${ws}`],
        ["POST", "/api/examples", "/api/examples", { workspace_id: ws, content: "An example" }],
        ["GET", "/api/examples", `/api/examples?workspaceId=${ws}`],
        ["POST", "/api/quick-capture/token", "/api/quick-capture/token", { workspace_id: ws }],
        ["POST", "/api/quick-capture", "/api/quick-capture", { title: "Captured" }, {
          "x-capture-token": capture.body.token,
        }],
      ];
      for (const [method, path, url, body, headers] of calls) {
        const res = await api(stack, method, url, {
          token: headers ? undefined : token,
          body,
          headers,
        });
        assert.equal(res.status, 404, `${method} ${url}: ${JSON.stringify(res.body)}`);
        assert.deepEqual(res.body, { error: "Workspace not found" });
        const documented = Object.keys(doc.paths[path][method.toLowerCase()].responses);
        assert.ok(
          documented.includes("404"),
          `${method} ${path} answers 404 but documents only ${documented.join(", ")}`,
        );
      }
    } finally {
      await stack.close();
    }
  },
);
