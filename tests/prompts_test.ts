import assert from "node:assert/strict";
import { api, e2e, startTestStack } from "./helpers/stack.ts";
import { createUser, type TestUser } from "./helpers/users.ts";
import { createWorkspace } from "./helpers/workspaces.ts";

/** The service-level rules are in prompts_service_test.ts, on the prompts service alone. */
Deno.test("prompts through the gateway", e2e, async (t) => {
  const stack = await startTestStack();
  try {
    const owner = await createUser(stack, { name: "Owner" });
    const viewer = await createUser(stack, { name: "Viewer" });
    const as = (u: TestUser) => u.access_token;

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
      "any member, even a viewer, creates a prompt; is_default starts false",
      async () => {
        const { ws, viewerPrompt: res, ownerPrompt: plain } = await withPrompts();
        assert.equal(res.is_default, false);
        assert.equal(res.tone, "educational");
        assert.equal(res.default_audience, "CTOs");
        assert.equal(res.default_language, "English");
        assert.equal(res.created_by, viewer.user_id);
        assert.equal(res.workspace_id, ws);
        for (
          const f of [
            "prompt_id",
            "name",
            "system_instruction",
            "user_template",
            "created_at",
            "updated_at",
          ]
        ) {
          assert.ok(f in res, `${f} missing`);
        }
        assert.equal(plain.default_audience, null);
      },
    );

    await t.step("the OpenAPI document lists the prompt routes", async () => {
      const doc = await api(stack, "GET", "/api/openapi.json");
      for (const p of ["/api/prompts", "/api/prompts/{id}", "/api/prompts/{id}/default"]) {
        assert.ok(doc.body.paths[p], `${p} missing`);
      }
    });
  } finally {
    await stack.close();
  }
});
