import assert from "node:assert/strict";
import type { Caller } from "../shared/http/identity.ts";
import { createIdeasService } from "../services/ideas/mod.ts";
import {
  harnessApi,
  startServiceHarness,
  stubWorkspaces,
  testCaller,
} from "./helpers/service_harness.ts";

/**
 * What the ideas service refuses as bad input (a blank or over-long field), checked
 * on the ideas service alone: workspaces is a stub, no AI peer is there to be called, the
 * caller is handed in as the gateway hands it on.
 */

type TestUser = Caller;

Deno.test("ideas: a blank or over-long field is a 400, never a 500", async (t) => {
  const workspaces = stubWorkspaces();
  const h = await startServiceHarness("ideas", createIdeasService, {
    peers: { workspaces: workspaces.fetch },
  });
  const stack = h;
  /** A route call as the gateway passes it on for the token's caller. */
  const api = harnessApi(h);
  try {
    const owner = testCaller("Owner");
    const member = testCaller("Member");
    const as = (u: TestUser) => u;

    /** A fresh workspace of the owner's with the member in it: each step starts from its own. */
    const fresh = () => Promise.resolve(workspaces.create(owner, [[member, "editor"]]));

    await t.step("create answers 400 for a blank workspace_id or title", async () => {
      const ws = await fresh();
      const noWs = await api(stack, "POST", "/api/ideas", {
        token: as(owner),
        body: { workspace_id: " ", title: "x" },
      });
      assert.equal(noWs.status, 400);
      assert.match(noWs.body.error, /workspace_id/);
      const noTitle = await api(stack, "POST", "/api/ideas", {
        token: as(owner),
        body: { workspace_id: ws, title: "   " },
      });
      assert.equal(noTitle.status, 400);
      assert.match(noTitle.body.error, /title/);
      const missing = await api(stack, "POST", "/api/ideas", {
        token: as(owner),
        body: { workspace_id: ws },
      });
      assert.equal(missing.status, 400);
      assert.match(missing.body.error, /title/);
    });

    await t.step("an over-long id or workspace id is a 400 or 403, never a 500", async () => {
      const ws = await fresh();
      const long = "x".repeat(3000);
      const res = await api(stack, "GET", `/api/ideas/${long}?workspaceId=${ws}`, {
        token: as(owner),
      });
      assert.equal(res.status, 400);
      const tags = await api(stack, "POST", "/api/ideas", {
        token: as(owner),
        body: { workspace_id: ws, title: "t", tags: ["a".repeat(3000)] },
      });
      assert.equal(tags.status, 400);
    });
  } finally {
    await h.close();
  }
});
