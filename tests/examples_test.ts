import assert from "node:assert/strict";
import { api, e2e, startTestStack } from "./helpers/stack.ts";
import { createUser, type TestUser } from "./helpers/users.ts";

const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}\+00:00$/;

/** The service-level rules are in examples_service_test.ts, on the posts service alone. */
Deno.test("example posts through the gateway: a viewer creates one", e2e, async (t) => {
  const stack = await startTestStack();
  try {
    const owner = await createUser(stack, { name: "Olga Owner" });
    const viewer = await createUser(stack, { name: "Vera Viewer" });
    const wsRes = await api(stack, "POST", "/api/workspaces", {
      token: owner.access_token,
      body: { name: "Examples workspace" },
    });
    const ws: string = wsRes.body.workspace_id;
    const added = await api(stack, "POST", `/api/workspaces/${ws}/members`, {
      token: owner.access_token,
      body: { email: viewer.email, role: "viewer" },
    });
    assert.equal(added.status, 201);

    const create = (user: TestUser, body: Record<string, unknown>) =>
      api(stack, "POST", "/api/examples", { token: user.access_token, body });

    await t.step(
      "any member, a viewer too, creates an example (201 with every field)",
      async () => {
        const res = await create(viewer, {
          workspace_id: ws,
          title: "Our launch post",
          content: "We shipped it.",
          tags: ["launch"],
        });
        assert.equal(res.status, 201, JSON.stringify(res.body));
        assert.deepEqual(Object.keys(res.body).sort(), [
          "content",
          "created_at",
          "created_by",
          "example_id",
          "tags",
          "title",
          "updated_at",
          "workspace_id",
        ]);
        assert.equal(res.body.workspace_id, ws);
        assert.equal(res.body.title, "Our launch post");
        assert.equal(res.body.content, "We shipped it.");
        assert.deepEqual(res.body.tags, ["launch"]);
        assert.equal(res.body.created_by, viewer.user_id);
        assert.match(res.body.created_at, TIMESTAMP);
        assert.equal(res.body.updated_at, res.body.created_at);
      },
    );
  } finally {
    await stack.close();
  }
});
