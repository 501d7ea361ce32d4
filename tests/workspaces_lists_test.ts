import assert from "node:assert/strict";
import type { Caller } from "../shared/http/identity.ts";
import { createWorkspacesService } from "../services/workspaces/mod.ts";
import { e2e } from "./helpers/stack.ts";
import { startServiceHarness, stubAuth, testCaller } from "./helpers/service_harness.ts";

/**
 * A workspace's audience and language lists, on the workspaces service alone: auth's user
 * lookups are a stub, the caller is handed in as the gateway hands it on.
 */

const DEFAULT_AUDIENCES = [
  "CEO",
  "CTO",
  "System Admins",
  "Architects",
  "Developers",
  "Business People",
].map((n) => ({ id: n, name: n }));
const DEFAULT_LANGUAGES = ["German", "SwissGerman", "English", "French", "Italian", "Spanish"]
  .map((n) => ({ id: n, name: n }));

function assertError(res: { status: number; body: unknown }, status: number, message?: string) {
  assert.equal(res.status, status, JSON.stringify(res.body));
  const body = res.body as { error?: unknown };
  assert.equal(typeof body?.error, "string", `no error body: ${JSON.stringify(res.body)}`);
  if (message !== undefined) assert.equal(body.error, message);
}

Deno.test(
  "workspace audience and language lists: defaults, saving, and their 400/403 rules",
  e2e,
  async (t) => {
    const [owner, editor, viewer, outsider] = [
      testCaller("Olive Owner"),
      testCaller("Eddie Editor"),
      testCaller("Vera Viewer"),
      testCaller("Otto Outsider"),
    ];
    const h = await startServiceHarness("workspaces", createWorkspacesService, {
      peers: { auth: stubAuth([owner, editor, viewer, outsider]).fetch },
    });
    const as = (user: Caller) => (method: string, path: string, body?: unknown) =>
      h.request(method, path, { as: user, body });
    try {
      const O = as(owner);
      const E = as(editor);
      const V = as(viewer);
      const X = as(outsider);
      /** A fresh workspace owned by `owner`, no other member. */
      const bare = async (name = "Launch Team") => {
        const res = await O("POST", "/api/workspaces", { name });
        assert.equal(res.status, 201, JSON.stringify(res.body));
        return res.body.workspace_id as string;
      };
      /** A fresh workspace with `viewer` (viewer) and then `editor` (editor) added. */
      const team = async (name?: string) => {
        const id = await bare(name);
        for (const [user, role] of [[viewer, "viewer"], [editor, "editor"]] as const) {
          const add = await O("POST", `/api/workspaces/${id}/members`, { email: user.email, role });
          assert.equal(add.status, 201, JSON.stringify(add.body));
        }
        return id;
      };

      await t.step("audiences and languages answer the defaults until saved", async () => {
        const wsId = await team();
        const aud = await V("GET", `/api/audiences?workspaceId=${wsId}`);
        assert.equal(aud.status, 200);
        assert.deepEqual(aud.body, { items: DEFAULT_AUDIENCES });
        const lang = await V("GET", `/api/languages?workspaceId=${wsId}`);
        assert.deepEqual(lang.body, { items: DEFAULT_LANGUAGES });
      });

      await t.step(
        "any member overwrites a list; it is returned as saved, even empty",
        async () => {
          const wsId = await team();
          const items = [
            { id: "cfo", name: "CFO", extra: "dropped" },
            { id: "cfo", name: "" },
          ];
          const put = await V("PUT", "/api/audiences", { workspace_id: wsId, audiences: items });
          assert.equal(put.status, 200);
          const saved = [{ id: "cfo", name: "CFO" }, { id: "cfo", name: "" }];
          assert.deepEqual(put.body, { items: saved });
          assert.deepEqual((await O("GET", `/api/audiences?workspaceId=${wsId}`)).body, {
            items: saved,
          });
          const empty = await E("PUT", "/api/languages", { workspace_id: wsId, languages: [] });
          assert.deepEqual(empty.body, { items: [] });
          assert.deepEqual((await V("GET", `/api/languages?workspaceId=${wsId}`)).body, {
            items: [],
          });
          const thirty = Array.from(
            { length: 30 },
            (_, i) => ({ id: `${i}`, name: "n".repeat(100) }),
          );
          const full = await O("PUT", "/api/languages", { workspace_id: wsId, languages: thirty });
          assert.equal(full.status, 200);
          assert.equal(full.body.items.length, 30);
        },
      );

      await t.step("lists: 400 missing workspace id or invalid list, 403 non-member", async () => {
        const wsId = await team();
        const two = [{ id: "a", name: "A" }, { id: "b", name: "B" }];
        assert.equal(
          (await V("PUT", "/api/audiences", { workspace_id: wsId, audiences: two })).status,
          200,
        );
        assertError(await V("GET", "/api/audiences"), 400, "workspaceId is required");
        assertError(await V("GET", "/api/languages?workspaceId="), 400, "workspaceId is required");
        assertError(
          await X("GET", `/api/audiences?workspaceId=${wsId}`),
          403,
          "Not a workspace member",
        );
        assertError(await X("GET", "/api/languages?workspaceId=unknown"), 403);
        assertError(
          await V("PUT", "/api/audiences", { audiences: [] }),
          400,
          "workspace_id is required",
        );
        assertError(await V("PUT", "/api/audiences", { workspace_id: " ", audiences: [] }), 400);
        assertError(
          await V("PUT", "/api/audiences", { workspace_id: wsId }),
          400,
          "audiences is required",
        );
        assertError(await V("PUT", "/api/languages", { workspace_id: wsId, languages: "x" }), 400);
        const tooMany = Array.from({ length: 31 }, (_, i) => ({ id: `${i}`, name: "n" }));
        assertError(
          await V("PUT", "/api/languages", { workspace_id: wsId, languages: tooMany }),
          400,
        );
        const longName = await V("PUT", "/api/audiences", {
          workspace_id: wsId,
          audiences: [{ id: "a", name: "n".repeat(101) }],
        });
        assertError(longName, 400);
        assert.match(longName.body.error, /^audiences\.0\.name/);
        assertError(
          await V("PUT", "/api/audiences", { workspace_id: wsId, audiences: [{ id: "a" }] }),
          400,
        );
        assertError(
          await V("PUT", "/api/audiences", { workspace_id: wsId, audiences: [{ name: "a" }] }),
          400,
        );
        assertError(await X("PUT", "/api/audiences", { workspace_id: wsId, audiences: [] }), 403);
        const still = await V("GET", `/api/audiences?workspaceId=${wsId}`);
        assert.equal(still.body.items.length, 2, "refused writes changed nothing");
      });
    } finally {
      await h.close();
    }
  },
);
