import assert from "node:assert/strict";
import type { Caller } from "../shared/http/identity.ts";
import { createPostsService } from "../services/posts/mod.ts";
import { e2e } from "./helpers/stack.ts";
import { startServiceHarness, stubWorkspaces, testCaller } from "./helpers/service_harness.ts";

/**
 * Example posts' own rules (any member may write them; what a request must hold; an example
 * seen only through its workspace), on the posts service alone: workspaces is a stub, the
 * caller is handed in as the gateway hands it on. examples_test.ts keeps the gateway flow.
 */

const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}\+00:00$/;

Deno.test("example posts: the posts service's example routes and rules", e2e, async (t) => {
  const workspaces = stubWorkspaces();
  const h = await startServiceHarness("posts", createPostsService, {
    peers: { workspaces: workspaces.fetch },
  });
  try {
    const owner = testCaller("Olga Owner");
    const viewer = testCaller("Vera Viewer");
    const outsider = testCaller("Oscar Outsider");
    const ws = workspaces.create(owner, [[viewer, "viewer"]]);
    const otherWs = workspaces.create(owner);

    const create = (user: Caller, body: Record<string, unknown>) =>
      h.request("POST", "/api/examples", { as: user, body });
    const get = (user: Caller, id: string, workspaceId = ws) =>
      h.request("GET", `/api/examples/${id}?workspaceId=${workspaceId}`, {
        as: user,
      });
    const list = (user: Caller, workspaceId = ws) =>
      h.request("GET", `/api/examples?workspaceId=${workspaceId}`, { as: user });

    let exampleId = "";
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
        exampleId = res.body.example_id;
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

    await t.step("create refuses bad input (400) and non-members (403)", async () => {
      const noWs = await create(viewer, { title: "x" });
      assert.deepEqual([noWs.status, noWs.body], [400, { error: "workspace_id is required" }]);
      const badTags = await create(viewer, { workspace_id: ws, tags: [1] });
      assert.equal(badTags.status, 400);
      assert.match(badTags.body.error, /tags/);
      const tooLong = await create(viewer, { workspace_id: ws, content: "x".repeat(20_001) });
      assert.equal(tooLong.status, 400);
      assert.match(tooLong.body.error, /content/);
      const outsiderRes = await create(outsider, { workspace_id: ws, title: "x" });
      assert.deepEqual([outsiderRes.status, outsiderRes.body], [403, {
        error: "Not a workspace member",
      }]);
    });

    await t.step("list answers {items, count} newest first; get answers one", async () => {
      const second = await create(owner, { workspace_id: ws, title: "Second", content: "More" });
      assert.equal(second.status, 201);
      const res = await list(viewer);
      assert.equal(res.status, 200);
      assert.equal(res.body.count, 2);
      assert.deepEqual(res.body.items.map((e: { example_id: string }) => e.example_id), [
        second.body.example_id,
        exampleId,
      ]);
      assert.deepEqual((await list(owner, otherWs)).body, { items: [], count: 0 });
      assert.equal((await list(outsider)).status, 403);
      const noWs = await h.request("GET", "/api/examples", { as: viewer });
      assert.deepEqual([noWs.status, noWs.body], [400, { error: "workspaceId is required" }]);
      const one = await get(viewer, exampleId);
      assert.equal(one.status, 200);
      assert.equal(one.body.title, "Our launch post");
      assert.deepEqual((await get(outsider, "nope")).body, { error: "Not a workspace member" });
      const unknown = await get(viewer, "nope");
      assert.deepEqual([unknown.status, unknown.body], [404, { error: "Example not found" }]);
      assert.equal((await get(owner, exampleId, otherWs)).status, 404);
    });

    await t.step("genai reads the workspace's examples through the internal route", async () => {
      const res = await h.internal("GET", `/internal/examples?workspaceId=${ws}`);
      assert.equal(res.status, 200);
      const body = await res.json();
      assert.equal(body.items.length, 2);
      assert.equal(body.items[1].content, "We shipped it.");
    });

    await t.step("update answers 200 with the example; any member may update", async () => {
      await new Promise((r) => setTimeout(r, 5));
      const res = await h.request("PUT", `/api/examples/${exampleId}`, {
        as: owner,
        body: { workspace_id: ws, content: "We shipped it, finally.", tags: ["launch", "news"] },
      });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.equal(res.body.title, "Our launch post");
      assert.equal(res.body.content, "We shipped it, finally.");
      assert.deepEqual(res.body.tags, ["launch", "news"]);
      assert.equal(res.body.created_by, viewer.user_id);
      assert.ok(res.body.updated_at > res.body.created_at);
      assert.equal((await get(viewer, exampleId)).body.content, "We shipped it, finally.");
      const noWs = await h.request("PUT", `/api/examples/${exampleId}`, {
        as: owner,
        body: { title: "x" },
      });
      assert.deepEqual([noWs.status, noWs.body], [400, { error: "workspace_id is required" }]);
      const outsiderRes = await h.request("PUT", `/api/examples/${exampleId}`, {
        as: outsider,
        body: { workspace_id: ws, title: "x" },
      });
      assert.equal(outsiderRes.status, 403);
      const cross = await h.request("PUT", `/api/examples/${exampleId}`, {
        as: owner,
        body: { workspace_id: otherWs, title: "x" },
      });
      assert.deepEqual([cross.status, cross.body], [404, { error: "Example not found" }]);
    });

    await t.step("delete answers 200 {deleted: true}; then the example is gone", async () => {
      const del = (user: Caller, workspaceId = ws) =>
        h.request("DELETE", `/api/examples/${exampleId}?workspaceId=${workspaceId}`, {
          as: user,
        });
      assert.equal((await del(outsider)).status, 403);
      assert.equal((await del(owner, otherWs)).status, 404);
      const res = await del(viewer);
      assert.deepEqual([res.status, res.body], [200, { deleted: true }]);
      assert.equal((await get(viewer, exampleId)).status, 404);
      assert.equal((await del(viewer)).status, 404);
      assert.equal((await list(viewer)).body.count, 1);
    });
  } finally {
    await h.close();
  }
});
