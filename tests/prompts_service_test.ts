import assert from "node:assert/strict";
import type { Caller } from "../shared/http/identity.ts";
import { createPromptsService } from "../services/prompts/mod.ts";
import {
  harnessApi,
  startServiceHarness,
  stubWorkspaces,
  testCaller,
} from "./helpers/service_harness.ts";

/**
 * The prompts service's own rules (who may read, change and delete a prompt; what a request
 * must hold), on the prompts service alone: workspaces is a stub, the caller is handed in as
 * the gateway hands it on. The end-to-end test in prompts_test.ts covers the gateway.
 */

const TONE_ERROR =
  "tone must be one of: casual, educational, professional, provocative, storytelling";

type TestUser = Caller;

Deno.test("prompts: the prompts service's routes and rules", async (t) => {
  const workspaces = stubWorkspaces();
  const h = await startServiceHarness("prompts", createPromptsService, {
    peers: { workspaces: workspaces.fetch },
  });
  const stack = h;
  /** A route call as the gateway passes it on for the token's caller. */
  const api = harnessApi(h);
  const createWorkspace = (
    _at: unknown,
    owner: Caller,
    _name: string,
    members: readonly (readonly [Caller, "editor" | "viewer"])[] = [],
  ) => Promise.resolve(workspaces.create(owner, members));
  try {
    const owner = testCaller("Owner");
    const viewer = testCaller("Viewer");
    const outsider = testCaller("Outsider");
    const as = (u: TestUser) => u;

    /**
     * A fresh workspace of the owner's with the viewer in it, and `create` making prompts there:
     * each step starts from its own.
     */
    const fresh = async () => {
      const ws = await createWorkspace(stack, owner, "Prompts WS", [[viewer, "viewer"]]);
      const create = (u: TestUser, over: Record<string, unknown> = {}) =>
        api(stack, "POST", "/api/prompts", {
          token: as(u),
          body: {
            workspace_id: ws,
            name: "LinkedIn thought leader",
            system_instruction: "You write crisp posts.",
            user_template: "Write about {idea_title}. Examples: {examples}",
            tone: "educational",
            ...over,
          },
        });
      return { ws, create };
    };
    /** `fresh()` with the viewer's prompt (audience CTOs, English) and the owner's plain one. */
    const withPrompts = async () => {
      const fixture = await fresh();
      const res = await fixture.create(viewer, {
        default_audience: "CTOs",
        default_language: "English",
      });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      const plain = await fixture.create(owner, { tone: undefined });
      assert.equal(plain.status, 201, JSON.stringify(plain.body));
      return { ...fixture, viewerPrompt: res.body, ownerPrompt: plain.body };
    };

    await t.step(
      "create answers 400 for a missing field and names the tones alphabetically",
      async () => {
        const { create } = await fresh();
        for (const field of ["workspace_id", "name", "system_instruction", "user_template"]) {
          const res = await create(owner, { [field]: "  " });
          assert.equal(res.status, 400, field);
          assert.match(res.body.error, new RegExp(field));
        }
        const bad = await create(owner, { tone: "angry" });
        assert.equal(bad.status, 400);
        assert.deepEqual(bad.body, { error: TONE_ERROR });
        const outside = await create(outsider);
        assert.equal(outside.status, 403);
        assert.deepEqual(outside.body, { error: "Not a workspace member" });
      },
    );

    await t.step("list holds only the caller's own prompts in the workspace", async () => {
      const { ws, create } = await withPrompts();
      await create(viewer, { name: "Second" });
      const mine = await api(stack, "GET", `/api/prompts?workspaceId=${ws}`, { token: as(viewer) });
      assert.equal(mine.status, 200);
      assert.equal(mine.body.count, 2);
      assert.ok(
        mine.body.items.every((p: { created_by: string }) => p.created_by === viewer.user_id),
      );
      const ownerList = await api(stack, "GET", `/api/prompts?workspaceId=${ws}`, {
        token: as(owner),
      });
      assert.equal(ownerList.body.count, 1);
      assert.equal((await api(stack, "GET", "/api/prompts", { token: as(owner) })).status, 400);
      const outside = await api(stack, "GET", `/api/prompts?workspaceId=${ws}`, {
        token: as(outsider),
      });
      assert.equal(outside.status, 403);
    });

    await t.step(
      "get answers any prompt of the workspace to any member; 400, 403, 404",
      async () => {
        const { ws, viewerPrompt } = await withPrompts();
        const id = viewerPrompt.prompt_id;
        const res = await api(stack, "GET", `/api/prompts/${id}?workspaceId=${ws}`, {
          token: as(owner),
        });
        assert.equal(res.status, 200);
        assert.deepEqual(res.body, viewerPrompt);
        assert.equal(
          (await api(stack, "GET", `/api/prompts/${id}`, { token: as(owner) })).status,
          400,
        );
        const outside = await api(stack, "GET", `/api/prompts/${id}?workspaceId=${ws}`, {
          token: as(outsider),
        });
        assert.equal(outside.status, 403);
        const unknown = await api(stack, "GET", `/api/prompts/nope?workspaceId=${ws}`, {
          token: as(owner),
        });
        assert.equal(unknown.status, 404);
      },
    );

    await t.step(
      "update is creator-only (403 even for the owner), strips text and validates tone",
      async () => {
        const { ws, viewerPrompt } = await withPrompts();
        const id = viewerPrompt.prompt_id;
        const put = (u: TestUser, body: Record<string, unknown>) =>
          api(stack, "PUT", `/api/prompts/${id}`, {
            token: as(u),
            body: { workspace_id: ws, ...body },
          });
        const byOwner = await put(owner, { name: "Hijack" });
        assert.equal(byOwner.status, 403);
        const res = await put(viewer, {
          name: "  Renamed  ",
          user_template: 42,
          tone: " casual ",
          default_audience: null,
        });
        assert.equal(res.status, 200, JSON.stringify(res.body));
        assert.equal(res.body.name, "Renamed");
        assert.equal(res.body.user_template, "42");
        assert.equal(res.body.tone, "casual");
        assert.equal(res.body.default_audience, null);
        assert.equal(res.body.default_language, "English");
        assert.ok(res.body.updated_at >= (viewerPrompt.updated_at as string));
        const badTone = await put(viewer, { tone: "loud" });
        assert.equal(badTone.status, 400);
        assert.deepEqual(badTone.body, { error: TONE_ERROR });
        const noWs = await api(stack, "PUT", `/api/prompts/${id}`, {
          token: as(viewer),
          body: { name: "x" },
        });
        assert.equal(noWs.status, 400);
        assert.equal((await put(outsider, { name: "x" })).status, 403);
        const unknown = await api(stack, "PUT", `/api/prompts/nope`, {
          token: as(viewer),
          body: { workspace_id: ws, name: "x" },
        });
        assert.equal(unknown.status, 404);
      },
    );

    await t.step(
      "set default is creator-only and leaves exactly one default per creator",
      async () => {
        const { ws, create } = await withPrompts();
        assert.equal((await create(viewer, { name: "Second" })).status, 201);
        const list =
          (await api(stack, "GET", `/api/prompts?workspaceId=${ws}`, { token: as(viewer) }))
            .body.items as { prompt_id: string }[];
        const [a, b] = list.map((p) => p.prompt_id);
        const setDefault = (u: TestUser, id: string) =>
          api(stack, "PUT", `/api/prompts/${id}/default`, {
            token: as(u),
            body: { workspace_id: ws },
          });
        assert.equal((await setDefault(owner, a)).status, 403);
        assert.equal((await setDefault(outsider, a)).status, 403);
        assert.equal((await setDefault(viewer, "nope")).status, 404);
        const noWs = await api(stack, "PUT", `/api/prompts/${a}/default`, {
          token: as(viewer),
          body: {},
        });
        assert.equal(noWs.status, 400);
        const first = await setDefault(viewer, a);
        assert.equal(first.status, 200);
        assert.equal(first.body.is_default, true);
        const second = await setDefault(viewer, b);
        assert.equal(second.body.is_default, true);
        const after =
          (await api(stack, "GET", `/api/prompts?workspaceId=${ws}`, { token: as(viewer) }))
            .body.items as { prompt_id: string; is_default: boolean }[];
        assert.deepEqual(after.filter((p) => p.is_default).map((p) => p.prompt_id), [b]);
        const ownerPrompts = (await api(stack, "GET", `/api/prompts?workspaceId=${ws}`, {
          token: as(owner),
        })).body.items as { prompt_id: string; is_default: boolean }[];
        await setDefault(owner, ownerPrompts[0].prompt_id);
        const viewerAgain = (await api(stack, "GET", `/api/prompts?workspaceId=${ws}`, {
          token: as(viewer),
        })).body.items as { prompt_id: string; is_default: boolean }[];
        assert.deepEqual(viewerAgain.filter((p) => p.is_default).map((p) => p.prompt_id), [b]);
      },
    );

    await t.step("concurrent set-default calls never leave two defaults", async () => {
      const { ws, create } = await fresh();
      const ids: string[] = [];
      for (let i = 0; i < 6; i++) {
        ids.push((await create(viewer, { name: `C${i}` })).body.prompt_id);
      }
      const answers = await Promise.all(
        ids.map((id) =>
          api(stack, "PUT", `/api/prompts/${id}/default`, {
            token: as(viewer),
            body: { workspace_id: ws },
          })
        ),
      );
      assert.ok(answers.every((a) => a.status === 200));
      const items =
        (await api(stack, "GET", `/api/prompts?workspaceId=${ws}`, { token: as(viewer) }))
          .body.items as { prompt_id: string; is_default: boolean }[];
      assert.equal(items.filter((p) => p.is_default).length, 1);
      const one = await Promise.all(
        items.map((p) =>
          api(stack, "GET", `/api/prompts/${p.prompt_id}?workspaceId=${ws}`, { token: as(owner) })
        ),
      );
      assert.equal(one.filter((r) => r.body.is_default).length, 1);
    });

    await t.step(
      "delete is creator-only, 404 unknown, and 409 for the caller's last prompt",
      async () => {
        const { ws, create } = await withPrompts();
        assert.equal((await create(viewer, { name: "Second" })).status, 201);
        const ownerPrompts = (await api(stack, "GET", `/api/prompts?workspaceId=${ws}`, {
          token: as(owner),
        })).body.items as { prompt_id: string }[];
        assert.equal(ownerPrompts.length, 1);
        const last = await api(
          stack,
          "DELETE",
          `/api/prompts/${ownerPrompts[0].prompt_id}?workspaceId=${ws}`,
          {
            token: as(owner),
          },
        );
        assert.equal(last.status, 409);
        assert.ok(last.body.error);
        const viewerItems = (await api(stack, "GET", `/api/prompts?workspaceId=${ws}`, {
          token: as(viewer),
        })).body.items as { prompt_id: string }[];
        const notMine = await api(
          stack,
          "DELETE",
          `/api/prompts/${viewerItems[0].prompt_id}?workspaceId=${ws}`,
          {
            token: as(owner),
          },
        );
        assert.equal(notMine.status, 403);
        assert.equal(
          (await api(stack, "DELETE", `/api/prompts/nope?workspaceId=${ws}`, { token: as(viewer) }))
            .status,
          404,
        );
        assert.equal(
          (await api(stack, "DELETE", `/api/prompts/${viewerItems[0].prompt_id}`, {
            token: as(viewer),
          }))
            .status,
          400,
        );
        for (const [i, p] of viewerItems.entries()) {
          const res = await api(stack, "DELETE", `/api/prompts/${p.prompt_id}?workspaceId=${ws}`, {
            token: as(viewer),
          });
          if (i < viewerItems.length - 1) {
            assert.equal(res.status, 200);
            assert.deepEqual(res.body, { deleted: true });
          } else {
            assert.equal(res.status, 409);
          }
        }
        const left = await api(stack, "GET", `/api/prompts?workspaceId=${ws}`, {
          token: as(viewer),
        });
        assert.equal(left.body.count, 1);
      },
    );

    await t.step("internal routes give a prompt by id and a user's default prompt", async () => {
      const { ws, ownerPrompt } = await withPrompts();
      const made = await api(stack, "PUT", `/api/prompts/${ownerPrompt.prompt_id}/default`, {
        token: as(owner),
        body: { workspace_id: ws },
      });
      assert.equal(made.status, 200, "the owner's prompt is their default");
      const items =
        (await api(stack, "GET", `/api/prompts?workspaceId=${ws}`, { token: as(owner) }))
          .body.items as { prompt_id: string }[];
      const byId = await stack.internal(
        "GET",
        `/internal/workspaces/${ws}/prompts/${items[0].prompt_id}`,
      );
      assert.equal((await byId.json()).prompt_id, items[0].prompt_id);
      const def = await stack.internal(
        "GET",
        `/internal/workspaces/${ws}/users/${owner.user_id}/default-prompt`,
      );
      assert.equal((await def.json()).prompt_id, items[0].prompt_id);
      const none = await stack.internal(
        "GET",
        `/internal/workspaces/${ws}/users/${outsider.user_id}/default-prompt`,
      );
      assert.equal(none.status, 404);
      await none.body?.cancel();
    });
  } finally {
    await h.close();
  }
});
