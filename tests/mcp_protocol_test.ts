import assert from "node:assert/strict";
import { e2e, startTestStack } from "./helpers/stack.ts";
import { createUser } from "./helpers/users.ts";
import { createWorkspace } from "./helpers/workspaces.ts";

/** One JSON-RPC message to `POST /mcp` as an MCP client sends it; the status and parsed body. */
async function rpc(url: string, token: string, message: unknown) {
  const res = await fetch(`${url}/mcp`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${token}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2025-06-18",
    },
    body: JSON.stringify(message),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

Deno.test(
  "MCP over raw JSON-RPC: malformed tools/call params and missing arguments",
  e2e,
  async (t) => {
    const stack = await startTestStack();
    try {
      const owner = await createUser(stack);
      const workspaceId = await createWorkspace(stack, owner, "Raw JSON-RPC");
      const call = (id: number, params: unknown) =>
        rpc(stack.url, owner.access_token, { jsonrpc: "2.0", id, method: "tools/call", params });

      await t.step(
        "a tools/call whose params are malformed is an Invalid params error (-32602)",
        async () => {
          const cases: [unknown, RegExp][] = [
            [{ name: "list_ideas", arguments: "not an object" }, /arguments/],
            [{ name: "list_workspaces", arguments: null }, /arguments/],
            [{ name: "list_workspaces", arguments: [] }, /arguments/],
            [{ arguments: {} }, /name/],
            [{ name: 5, arguments: {} }, /name/],
            ["params as a string", /params/],
          ];
          let id = 0;
          for (const [params, names] of cases) {
            const res = await call(++id, params);
            assert.equal(res.status, 200, JSON.stringify(res.body));
            assert.equal(res.body.jsonrpc, "2.0");
            assert.equal(res.body.id, id);
            assert.equal(res.body.result, undefined);
            assert.equal(res.body.error.code, -32602, JSON.stringify(res.body));
            assert.match(res.body.error.message, /^Invalid params: /);
            assert.match(res.body.error.message, names);
            // A readable sentence, not a dump of validation internals.
            assert.ok(!res.body.error.message.includes("\n"), res.body.error.message);
          }
        },
      );

      await t.step(
        "a well-formed call still runs, with or without an arguments object",
        async () => {
          const res = await call(100, { name: "list_workspaces" });
          assert.equal(res.status, 200);
          assert.equal(res.body.result.isError, undefined);
          assert.equal(res.body.result.structuredContent.workspaces[0].workspace_id, workspaceId);
        },
      );

      await t.step("a missing required argument is refused naming it as required", async () => {
        const missing: [string, Record<string, unknown>, string][] = [
          ["create_idea", { workspace_id: workspaceId }, "title is required"],
          ["create_idea", { title: "An idea" }, "workspace_id is required"],
          ["list_ideas", {}, "workspace_id is required"],
          ["iterate_post", { workspace_id: workspaceId, post_id: "p" }, "instruction is required"],
          ["update_idea", { workspace_id: workspaceId }, "idea_id is required"],
        ];
        let id = 200;
        for (const [name, args, message] of missing) {
          const res = await call(++id, { name, arguments: args });
          assert.equal(res.body.result.isError, true, JSON.stringify(res.body));
          const text = res.body.result.content[0].text as string;
          assert.ok(text.includes(message), `${name}: ${text}`);
        }
        const wrongType = await call(++id, { name: "list_ideas", arguments: { workspace_id: 5 } });
        assert.equal(wrongType.body.result.isError, true);
        assert.ok(
          wrongType.body.result.content[0].text.includes("workspace_id must be a string"),
          wrongType.body.result.content[0].text,
        );
      });

      await t.step(
        "a malformed call is answered only when the request is otherwise acceptable",
        async () => {
          const res = await fetch(`${stack.url}/mcp`, {
            method: "POST",
            headers: {
              authorization: `Bearer ${owner.access_token}`,
              "content-type": "application/json",
              accept: "application/json",
            },
            body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: "x" }),
          });
          await res.body?.cancel();
          assert.equal(res.status, 406);
          const anonymous = await rpc(stack.url, "", {
            jsonrpc: "2.0",
            id: 1,
            method: "tools/call",
            params: "x",
          });
          assert.equal(anonymous.status, 401);
        },
      );
    } finally {
      await stack.close();
    }
  },
);
