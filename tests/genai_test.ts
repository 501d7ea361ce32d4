import assert from "node:assert/strict";
import { AppError } from "../shared/http/app_error.ts";
import type { Caller } from "../shared/http/identity.ts";
import { ServiceDirectory } from "../shared/service/service_directory.ts";
import { GenaiClient } from "../services/genai/client.ts";
import {
  DEFAULT_PERSONA,
  EDITOR_PERSONA,
  LENGTH_PRESETS,
} from "../services/genai/prompt_builder.ts";
import { PROOFREADER_PERSONA } from "../services/genai/proofread.ts";
import { api, e2e, startTestStack, TEST_INTERNAL_SECRET } from "./helpers/stack.ts";
import { createUser, type TestUser } from "./helpers/users.ts";
import { createWorkspace } from "./helpers/workspaces.ts";
import { startFakeChatCompletions } from "./fakes/chat_completions.ts";

const IDEA_TEXT = "Async writing beats meetings for remote teams.";
const DEFAULT_USER = `Write a post about this idea.\n\nIdea: Remote work wins\n\n${IDEA_TEXT}`;

Deno.test("AI drafting: generate, iterate, proofread", e2e, async (t) => {
  const ai = startFakeChatCompletions();
  const stack = await startTestStack({
    OPENAI_BASE_URL: ai.baseUrl,
    OPENAI_API_KEY: "sk-test",
    OPENAI_MODEL: "draft-model",
    AI_RETRY_BACKOFF_MS: "10",
  });
  try {
    const owner = await createUser(stack, { name: "Olga Owner" });
    const outsider = await createUser(stack, { name: "Oscar Outsider" });
    const call = (user: TestUser, op: string, body: unknown) =>
      api(stack, "POST", `/api/genai/${op}`, { token: user.access_token, body });
    const newWorkspace = (name: string) => createWorkspace(stack, owner, name);

    /**
     * A fresh workspace (and another one of the owner's) holding the idea and the saved prompt
     * "Ana", with `createPrompt` and `generate` bound to it: each step starts from its own.
     */
    const fixture = async () => {
      const ws = await newWorkspace("Drafting");
      const otherWs = await newWorkspace("Elsewhere");
      ai.reset();
      ai.script({ content: "Remote work wins" });
      const idea = (await api(stack, "POST", "/api/ideas", {
        token: owner.access_token,
        body: { workspace_id: ws, title: IDEA_TEXT, tags: ["remote", "Writing", "teams"] },
      })).body;
      assert.equal(idea.title, "Remote work wins");
      const ideaId: string = idea.idea_id;
      /** A post of the workspace, for iterate and proofread to name. */
      const newPost = async () => {
        const post = await api(stack, "POST", "/api/posts", {
          token: owner.access_token,
          body: { workspace_id: ws, title: "A draft" },
        });
        assert.equal(post.status, 201, JSON.stringify(post.body));
        return post.body.post_id as string;
      };
      const createPrompt = async (body: Record<string, unknown>) => {
        const res = await api(stack, "POST", "/api/prompts", {
          token: owner.access_token,
          body: { workspace_id: ws, ...body },
        });
        assert.equal(res.status, 201, JSON.stringify(res.body));
        return res.body.prompt_id as string;
      };
      /** Generates as the owner and answers the messages the fake model received. */
      const generate = async (body: Record<string, unknown>) => {
        ai.reset();
        ai.script({ content: "A drafted post" });
        const res = await call(owner, "generate", { workspace_id: ws, idea_id: ideaId, ...body });
        assert.equal(res.status, 200, JSON.stringify(res.body));
        assert.deepEqual(res.body, { content: "A drafted post", idea_id: ideaId });
        assert.equal(ai.requests.length, 1);
        assert.equal(ai.requests[0].model, "draft-model");
        return ai.requests[0].messages;
      };
      const savedId = await createPrompt({
        name: "Ana",
        system_instruction: "You are Ana, a CTO who writes plainly.",
        user_template: "Write about {idea_title} ({idea_description}) for {audience}, " +
          "tone {tone}, in {language}, {length}.",
        tone: "casual",
        default_audience: "engineers",
        default_language: "Spanish",
      });
      return { ws, otherWs, ideaId, newPost, savedId, createPrompt, generate };
    };
    const SAVED_SYSTEM = "You are Ana, a CTO who writes plainly.";
    const SAVED_BRIEF = "For this post:\n" +
      "- Audience: engineers\n- Tone: casual\n- Language: write the post in Spanish";
    const SAVED_USER = `Write about Remote work wins (${IDEA_TEXT}) for engineers, tone casual, ` +
      "in Spanish, the length that suits the idea.";

    /** Eight examples: five in `ws` share tags with the idea's, one is in `otherWs`. */
    const addExamples = async (ws: string, otherWs: string) => {
      const examples: [string, string[]][] = [
        ["Cooking", ["food"]],
        ["Teams", ["teams"]],
        ["Remote writing", ["remote", "writing"]],
        ["All three", ["REMOTE", "writing", "teams"]],
        ["Untagged", []],
        ["Writing", ["writing "]],
        ["Other workspace", ["remote", "writing", "teams"]],
        ["Newest untagged", []],
      ];
      for (const [title, tags] of examples) {
        const res = await api(stack, "POST", "/api/examples", {
          token: owner.access_token,
          body: {
            workspace_id: title === "Other workspace" ? otherWs : ws,
            title,
            content: `${title} body`,
            tags,
          },
        });
        assert.equal(res.status, 201, JSON.stringify(res.body));
      }
    };

    await t.step("persona only: the built-in persona and template, nothing else", async () => {
      const { generate } = await fixture();
      assert.deepEqual(await generate({}), [
        { role: "system", content: DEFAULT_PERSONA },
        { role: "user", content: DEFAULT_USER },
      ]);
    });

    await t.step(
      "a saved prompt (prompt_id) is the system message and its filled template the last user one",
      async () => {
        const { generate, savedId } = await fixture();
        assert.deepEqual(await generate({ prompt_id: savedId }), [
          { role: "system", content: SAVED_SYSTEM },
          { role: "user", content: SAVED_BRIEF },
          { role: "user", content: SAVED_USER },
        ]);
      },
    );

    await t.step("without prompt_id the caller's default prompt is used", async () => {
      const { ws, savedId, createPrompt, generate } = await fixture();
      const defaultId = await createPrompt({
        name: "Default",
        system_instruction: "You are the default voice.",
        user_template: "Default template for {idea_title}.",
        tone: "educational",
      });
      assert.deepEqual(await generate({}), [
        { role: "system", content: DEFAULT_PERSONA },
        { role: "user", content: DEFAULT_USER },
      ], "a prompt that is not the default is not used");
      const set = await api(stack, "PUT", `/api/prompts/${defaultId}/default`, {
        token: owner.access_token,
        body: { workspace_id: ws },
      });
      assert.equal(set.status, 200);
      assert.deepEqual(await generate({}), [
        { role: "system", content: "You are the default voice." },
        { role: "user", content: "For this post:\n- Tone: educational" },
        { role: "user", content: "Default template for Remote work wins." },
      ]);
      assert.deepEqual(await generate({ prompt_id: savedId }), [
        { role: "system", content: SAVED_SYSTEM },
        { role: "user", content: SAVED_BRIEF },
        { role: "user", content: SAVED_USER },
      ], "prompt_id wins over the default");
    });

    await t.step(
      "overrides.system_instruction replaces the saved and built-in personas",
      async () => {
        const { generate, savedId } = await fixture();
        const override = { system_instruction: "You are a pirate." };
        assert.deepEqual(await generate({ prompt_id: savedId, overrides: override }), [
          { role: "system", content: "You are a pirate." },
          { role: "user", content: SAVED_BRIEF },
          { role: "user", content: SAVED_USER },
        ]);
        const [system] = await generate({ overrides: override });
        assert.deepEqual(system, { role: "system", content: "You are a pirate." });
      },
    );

    await t.step("per-call audience, tone, language and length beat the prompt's", async () => {
      const { generate, savedId } = await fixture();
      const messages = await generate({
        prompt_id: savedId,
        overrides: { system_instruction: "You are a pirate." },
        audience: "founders",
        tone: "provocative",
        language: "French",
        length: "short",
      });
      assert.deepEqual(messages, [
        { role: "system", content: "You are a pirate." },
        {
          role: "user",
          content: "For this post:\n- Audience: founders\n" +
            "- Tone: provocative\n- Language: write the post in French\n" +
            `- Length: ${LENGTH_PRESETS.short}`,
        },
        {
          role: "user",
          content: `Write about Remote work wins (${IDEA_TEXT}) for founders, tone provocative, ` +
            `in French, ${LENGTH_PRESETS.short}.`,
        },
      ]);
    });

    await t.step("each length preset asks for its target size", async () => {
      const { generate, savedId } = await fixture();
      for (const [length, target] of Object.entries(LENGTH_PRESETS)) {
        const [, brief, user] = await generate({ prompt_id: savedId, length });
        assert.equal(brief.content, `${SAVED_BRIEF}\n- Length: ${target}`, length);
        assert.ok(user.content.includes(`in Spanish, ${target}.`), length);
      }
    });

    await t.step("an unknown length gives exactly the prompt that no length gives", async () => {
      const { generate, savedId } = await fixture();
      const none = await generate({ prompt_id: savedId });
      for (const length of ["gigantic", "SHORT", "", null, 3, true, ["short"]]) {
        assert.deepEqual(await generate({ prompt_id: savedId, length }), none, String(length));
      }
    });

    await t.step("audience, tone and language are cut at 200, 100 and 50 characters", async () => {
      const { generate, savedId } = await fixture();
      const [, brief, user] = await generate({
        prompt_id: savedId,
        audience: "a".repeat(201),
        tone: "t".repeat(101),
        language: "l".repeat(51),
      });
      assert.ok(brief.content.includes(`- Audience: ${"a".repeat(200)}\n`));
      assert.ok(!brief.content.includes("a".repeat(201)));
      assert.ok(brief.content.includes(`- Tone: ${"t".repeat(100)}\n`));
      assert.ok(!brief.content.includes("t".repeat(101)));
      assert.ok(brief.content.endsWith(`in ${"l".repeat(50)}`));
      assert.ok(user.content.includes(`for ${"a".repeat(200)}, tone ${"t".repeat(100)}, in `));
      assert.ok(user.content.includes(`in ${"l".repeat(50)}, the length`));
    });

    await t.step(
      "the 5 examples sharing most tags go before a template without {examples}",
      async () => {
        const { ws, otherWs, generate, savedId } = await fixture();
        await addExamples(ws, otherWs);
        const messages = await generate({ prompt_id: savedId });
        const block = [
          "Example 1: All three\nAll three body",
          "Example 2: Remote writing\nRemote writing body",
          "Example 3: Writing\nWriting body",
          "Example 4: Teams\nTeams body",
          "Example 5: Newest untagged\nNewest untagged body",
        ].join("\n\n");
        assert.deepEqual(messages, [
          { role: "system", content: SAVED_SYSTEM },
          {
            role: "user",
            content: `${SAVED_BRIEF}\n\nExample posts in this workspace's voice (match their ` +
              `style, not their topics):\n\n${block}`,
          },
          { role: "user", content: SAVED_USER },
        ], "the filled template stays the last user message");
      },
    );

    await t.step("a template with {examples} gets them in place", async () => {
      const { ws, otherWs, createPrompt, generate } = await fixture();
      await addExamples(ws, otherWs);
      const inlineId = await createPrompt({
        name: "Inline",
        system_instruction: "Inline voice.",
        user_template: "Voice samples:\n{examples}\nNow: {idea_title}",
      });
      const messages = await generate({ prompt_id: inlineId });
      const user = messages[messages.length - 1];
      assert.ok(!messages[1].content.includes("Example 1"), "the examples are placed once");
      assert.ok(user.content.startsWith("Voice samples:\nExample 1: All three\nAll three body"));
      assert.ok(user.content.endsWith("Newest untagged body\nNow: Remote work wins"));
      assert.equal(user.content.match(/Example \d/g)?.length, 5);
    });

    await t.step("generate stores nothing", async () => {
      const { ws, ideaId, generate } = await fixture();
      await generate({});
      const posts = await api(stack, "GET", `/api/posts?workspaceId=${ws}`, {
        token: owner.access_token,
      });
      assert.equal(posts.body.count, 0);
      const after = await api(stack, "GET", `/api/ideas/${ideaId}?workspaceId=${ws}`, {
        token: owner.access_token,
      });
      assert.equal(after.body.status, "new");
      assert.equal(after.body.linked_post_id, null);
    });

    await t.step(
      "generate refuses: 400 missing ids, 403 non-member, 404 idea or prompt",
      async () => {
        const { ws, otherWs, ideaId } = await fixture();
        ai.reset();
        const noWs = await call(owner, "generate", { idea_id: ideaId });
        assert.deepEqual([noWs.status, noWs.body], [400, { error: "workspace_id is required" }]);
        const noIdea = await call(owner, "generate", { workspace_id: ws, idea_id: "  " });
        assert.deepEqual([noIdea.status, noIdea.body], [400, { error: "idea_id is required" }]);
        const longId = await call(owner, "generate", {
          workspace_id: ws,
          idea_id: "x".repeat(300),
        });
        assert.equal(longId.status, 400);
        assert.match(longId.body.error, /idea_id/);
        const outsiderRes = await call(outsider, "generate", { workspace_id: ws, idea_id: ideaId });
        assert.deepEqual([outsiderRes.status, outsiderRes.body], [403, {
          error: "Not a workspace member",
        }]);
        const unknown = await call(owner, "generate", { workspace_id: ws, idea_id: "nope" });
        assert.deepEqual([unknown.status, unknown.body], [404, { error: "Idea not found" }]);
        const wrongWs = await call(owner, "generate", { workspace_id: otherWs, idea_id: ideaId });
        assert.deepEqual([wrongWs.status, wrongWs.body], [404, { error: "Idea not found" }]);
        const badPrompt = await call(owner, "generate", {
          workspace_id: ws,
          idea_id: ideaId,
          prompt_id: "nope",
        });
        assert.deepEqual([badPrompt.status, badPrompt.body], [404, { error: "Prompt not found" }]);
        assert.equal(ai.requests.length, 0, "a refused call reached the model");
      },
    );

    await t.step("iterate rewrites with the saved persona, or the editor persona", async () => {
      const { ws, savedId, newPost } = await fixture();
      const postId = await newPost();
      ai.reset();
      ai.script({ content: "Shorter text" }, { content: "Edited" }, { content: "Edited" });
      const res = await call(owner, "iterate", {
        workspace_id: ws,
        post_id: postId,
        instruction: "Make it shorter",
        current_content: "A long draft",
        prompt_id: savedId,
      });
      assert.deepEqual([res.status, res.body], [200, {
        suggestion: "Shorter text",
        post_id: postId,
      }]);
      const user = "Rewrite the post below as this instruction says, and answer with the " +
        "rewritten post only.\n\nInstruction:\nMake it shorter\n\nPost:\nA long draft";
      assert.deepEqual(ai.requests[0].messages, [
        { role: "system", content: "You are Ana, a CTO who writes plainly." },
        { role: "user", content: user },
      ]);
      const unresolved = await call(owner, "iterate", {
        workspace_id: ws,
        post_id: postId,
        instruction: "Make it shorter",
        current_content: "A long draft",
        prompt_id: "no-such-prompt",
      });
      assert.equal(unresolved.status, 200);
      assert.deepEqual(ai.requests[1].messages, [
        { role: "system", content: EDITOR_PERSONA },
        { role: "user", content: user },
      ]);
      const noContent = await call(owner, "iterate", {
        workspace_id: ws,
        post_id: postId,
        instruction: "Write one",
      });
      assert.equal(noContent.status, 200);
      assert.ok(ai.requests[2].messages[1].content.endsWith("Instruction:\nWrite one\n\nPost:\n"));
      // An id longer than any prompt's cannot resolve either: the same fallback, not a 400.
      const overlong = await call(owner, "iterate", {
        workspace_id: ws,
        post_id: postId,
        instruction: "Make it shorter",
        current_content: "A long draft",
        prompt_id: "p".repeat(500),
      });
      assert.equal(overlong.status, 200, JSON.stringify(overlong.body));
      assert.deepEqual(ai.requests[3].messages, [
        { role: "system", content: EDITOR_PERSONA },
        { role: "user", content: user },
      ]);
    });

    await t.step("iterate cuts instruction at 2000 and current_content at 40000", async () => {
      const { ws, newPost } = await fixture();
      const postId = await newPost();
      ai.reset();
      ai.script({ content: "ok" });
      const res = await call(owner, "iterate", {
        workspace_id: ws,
        post_id: postId,
        instruction: "i".repeat(2_001),
        current_content: "c".repeat(40_001),
      });
      assert.equal(res.status, 200);
      const user = ai.requests[0].messages[1].content;
      assert.ok(user.includes(`Instruction:\n${"i".repeat(2_000)}\n\nPost:\n`));
      assert.ok(user.endsWith(`Post:\n${"c".repeat(40_000)}`));
      assert.ok(!user.includes("i".repeat(2_001)) && !user.includes("c".repeat(40_001)));
    });

    await t.step("iterate and proofread refuse: 400 a required field missing, 403", async () => {
      const { ws } = await fixture();
      ai.reset();
      for (
        const [op, body, field] of [
          ["iterate", { post_id: "p", instruction: "x" }, "workspace_id"],
          ["iterate", { workspace_id: ws, instruction: "x" }, "post_id"],
          ["iterate", { workspace_id: ws, post_id: "p" }, "instruction"],
          ["iterate", { workspace_id: ws, post_id: "p", instruction: "  " }, "instruction"],
          ["proofread", { post_id: "p" }, "workspace_id"],
          ["proofread", { workspace_id: ws }, "post_id"],
        ] as const
      ) {
        const res = await call(owner, op, body);
        assert.deepEqual([res.status, res.body], [400, { error: `${field} is required` }], op);
      }
      const iterate = await call(outsider, "iterate", {
        workspace_id: ws,
        post_id: "p",
        instruction: "x",
      });
      assert.deepEqual([iterate.status, iterate.body], [403, { error: "Not a workspace member" }]);
      const proofread = await call(outsider, "proofread", { workspace_id: ws, post_id: "p" });
      assert.equal(proofread.status, 403);
      assert.equal(ai.requests.length, 0);
    });

    await t.step(
      "iterate and proofread refuse a post of another workspace with 404 Post not found",
      async () => {
        const { ws, newPost } = await fixture();
        const postId = await newPost();
        // The outsider is a member of their own workspace only, and names the owner's post.
        const own = await createWorkspace(stack, outsider, "Outsider's");
        ai.reset();
        ai.setDefault({ content: "[]" });
        for (
          const [who, workspace, post] of [
            [outsider, own, postId],
            [owner, ws, "01NOSUCHPOST00000000000000"],
          ] as const
        ) {
          const iterate = await call(who, "iterate", {
            workspace_id: workspace,
            post_id: post,
            instruction: "Repeat it",
            current_content: "x",
          });
          assert.deepEqual([iterate.status, iterate.body], [404, { error: "Post not found" }]);
          const proofread = await call(who, "proofread", {
            workspace_id: workspace,
            post_id: post,
            content: "x",
          });
          assert.deepEqual([proofread.status, proofread.body], [404, {
            error: "Post not found",
          }]);
        }
        assert.equal(ai.requests.length, 0, "a refused call reached the model");
        // The same post through its own workspace is found.
        const ok = await call(owner, "proofread", { workspace_id: ws, post_id: postId });
        assert.equal(ok.status, 200, JSON.stringify(ok.body));
      },
    );

    await t.step(
      "proofread asks for JSON and takes a fenced array, ranges kept in the content",
      async () => {
        const { ws, newPost } = await fixture();
        const postId = await newPost();
        const content = "Their going to love it.";
        ai.reset();
        ai.script({
          content: "```json\n" + JSON.stringify([
            { range: [0, 5], type: "grammar", message: "Wrong word", suggestion: "They're" },
            { range: [6, 999], type: "wording", message: "Vague" },
          ]) + "\n```",
        });
        const res = await call(owner, "proofread", { workspace_id: ws, post_id: postId, content });
        assert.equal(res.status, 200, JSON.stringify(res.body));
        // The checker also flags "Their" and the model's ranges cover the rest: the model wins.
        assert.deepEqual(res.body, {
          post_id: postId,
          model: "used",
          annotations: [
            { range: [0, 5], type: "grammar", message: "Wrong word", suggestion: "They're" },
            { range: [6, content.length], type: "suggestion", message: "Vague", suggestion: "" },
          ],
        });
        assert.deepEqual(ai.requests[0].messages, [
          { role: "system", content: PROOFREADER_PERSONA },
          { role: "user", content: `Proofread this post:\n\n${content}` },
        ]);
      },
    );

    await t.step(
      "a model answering in prose adds nothing: the checker's findings and the service's checks come back",
      async () => {
        const { ws, newPost } = await fixture();
        const postId = await newPost();
        const content = "This is an test. " + "Remote teams write things down. ".repeat(93) +
          "#a #b #c #d #e #f " + "🚀".repeat(11);
        ai.reset();
        ai.script({ content: "Looks great to me!" }, { content: '{"range":[0,1]}' });
        const res = await call(owner, "proofread", { workspace_id: ws, post_id: postId, content });
        assert.equal(res.status, 200);
        assert.equal(res.body.model, "unusable");
        const annotations = res.body.annotations as {
          range: [number, number];
          type: string;
          message: string;
          suggestion: string;
        }[];
        assert.equal(annotations.length, 4, JSON.stringify(annotations));
        assert.deepEqual(annotations[0], {
          range: [8, 10],
          type: "grammar",
          message: "Incorrect indefinite article.",
          suggestion: "a",
        });
        assert.ok(annotations.slice(1).every((a) => a.type === "suggestion"));
        assert.deepEqual(annotations[1].range, [3_000, content.length]);
        assert.match(annotations[1].message, /3000/);
        assert.deepEqual(annotations[2].range, [content.indexOf("#f"), content.indexOf("#f") + 2]);
        assert.match(annotations[2].message, /6 hashtags/);
        assert.deepEqual(annotations[3].range, [content.length - 2, content.length]);
        assert.match(annotations[3].message, /11 emoji/);
        const notArray = await call(owner, "proofread", { workspace_id: ws, post_id: postId });
        assert.deepEqual(notArray.body, { annotations: [], post_id: postId, model: "unusable" });
        assert.deepEqual(ai.requests[1].messages[1], {
          role: "user",
          content: "Proofread this post:\n\n",
        });
      },
    );

    await t.step("proofread cuts content at 40000 characters", async () => {
      const { ws, newPost } = await fixture();
      const postId = await newPost();
      ai.reset();
      ai.script({ content: JSON.stringify([{ range: [0, 50_000], type: "tone", message: "m" }]) });
      const res = await call(owner, "proofread", {
        workspace_id: ws,
        post_id: postId,
        content: "c".repeat(40_001),
      });
      assert.equal(
        ai.requests[0].messages[1].content,
        `Proofread this post:\n\n${"c".repeat(40_000)}`,
      );
      assert.deepEqual(res.body.annotations[0].range, [0, 40_000]);
      assert.deepEqual(res.body.annotations[1].range, [3_000, 40_000]);
    });

    await t.step("two throttled attempts are retried and the third answers", async () => {
      const { ws, ideaId } = await fixture();
      ai.reset();
      ai.script({ status: 429 }, { status: 429 }, { content: "After retries" });
      const res = await call(owner, "generate", { workspace_id: ws, idea_id: ideaId });
      assert.deepEqual([res.status, res.body], [200, {
        content: "After retries",
        idea_id: ideaId,
      }]);
      assert.equal(ai.requests.length, 3);
    });

    await t.step("four throttled attempts give up with 503: the backend is busy", async () => {
      const { ws, ideaId, newPost } = await fixture();
      const postId = await newPost();
      for (const op of ["generate", "iterate", "proofread"]) {
        ai.reset();
        ai.script({ status: 429 }, { status: 429 }, { status: 429 }, { status: 429 }, {
          content: "never asked",
        });
        const res = await call(owner, op, {
          workspace_id: ws,
          idea_id: ideaId,
          post_id: postId,
          instruction: "x",
        });
        assert.deepEqual([res.status, res.body], [503, {
          error: "AI backend is busy; try again shortly",
        }], op);
        assert.equal(ai.requests.length, 4, op);
      }
    });

    await t.step("a non-throttling backend error is not retried: 502 at once", async () => {
      const { ws, ideaId } = await fixture();
      ai.reset();
      ai.script({ status: 400 }, { content: "never asked" });
      const res = await call(owner, "generate", { workspace_id: ws, idea_id: ideaId });
      assert.deepEqual([res.status, res.body], [502, {
        error: "AI backend failed: the server answered HTTP 400: fake error 400",
      }]);
      assert.equal(ai.requests.length, 1);
    });

    await t.step("GenaiClient runs the same operations for a caller over /internal", async () => {
      const { ws, otherWs, ideaId, newPost, savedId } = await fixture();
      const postId = await newPost();
      await addExamples(ws, otherWs);
      const genaiService = stack.services.find((s) => s.name === "genai");
      assert.ok(genaiService);
      const directory = new ServiceDirectory().register("genai", genaiService.fetch);
      const client = new GenaiClient(directory, TEST_INTERNAL_SECRET);
      const caller = (user: TestUser): Caller => ({
        user_id: user.user_id,
        email: user.email,
        name: user.name,
        role: "member",
        approved: true,
      });
      ai.reset();
      ai.setDefault({ content: "[]" });
      const generated = await client.generate(caller(owner), {
        workspace_id: ws,
        idea_id: ideaId,
        prompt_id: savedId,
        length: "medium",
      });
      assert.deepEqual(generated, { content: "[]", idea_id: ideaId });
      assert.ok(
        ai.requests[0].messages[1].content.startsWith(
          `${SAVED_BRIEF}\n- Length: ${LENGTH_PRESETS.medium}\n\n`,
        ),
      );
      assert.deepEqual(
        await client.iterate(caller(owner), {
          workspace_id: ws,
          post_id: postId,
          instruction: "x",
        }),
        { suggestion: "[]", post_id: postId },
      );
      assert.deepEqual(
        await client.proofread(caller(owner), {
          workspace_id: ws,
          post_id: postId,
          content: "Fine.",
        }),
        { annotations: [], post_id: postId, model: "used" },
      );
      await assert.rejects(
        () => client.generate(caller(outsider), { workspace_id: ws, idea_id: ideaId }),
        (err) =>
          err instanceof AppError && err.status === 403 && err.message === "Not a workspace member",
      );
      await assert.rejects(
        () => client.generate(caller(owner), { workspace_id: ws, idea_id: "nope" }),
        (err) => err instanceof AppError && err.status === 404 && err.message === "Idea not found",
      );
      // An idea the caller passes (MCP has just read it) is used as given, not read again.
      ai.reset();
      const passed = await client.generate(caller(owner), {
        workspace_id: ws,
        idea_id: "01PASSEDIDEANOTSTORED00000",
        idea: {
          idea_id: "01PASSEDIDEANOTSTORED00000",
          title: "PASSED-IDEA-TITLE",
          description: "",
          tags: [],
        },
      });
      assert.equal(passed.idea_id, "01PASSEDIDEANOTSTORED00000");
      assert.ok(JSON.stringify(ai.requests[0].messages).includes("PASSED-IDEA-TITLE"));
      const noCaller = await stack.internal("genai", "POST", "/internal/generate", {
        workspace_id: ws,
        idea_id: ideaId,
      });
      assert.equal(noCaller.status, 401);
      await noCaller.body?.cancel();
    });

    await t.step("the routes are in the OpenAPI document", async () => {
      const doc = await api(stack, "GET", "/api/openapi.json");
      assert.equal(doc.status, 200);
      for (const op of ["generate", "iterate", "proofread"]) {
        const route = doc.body.paths[`/api/genai/${op}`]?.post;
        assert.ok(route, op);
        for (const code of ["400", "401", "403", "404", "429", "502", "503"]) {
          assert.ok(route.responses?.[code], `${op} documents ${code}`);
        }
        assert.equal(route.responses?.["500"], undefined, `${op} documents no bare 500`);
      }
      assert.equal(doc.body.paths["/internal/generate"], undefined);
    });
  } finally {
    await stack.close();
    await ai.close();
  }
});
