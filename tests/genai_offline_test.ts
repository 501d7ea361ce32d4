/**
 * AI without a model: proofread answers the built-in checker's findings, ideas get titles from
 * their own text, generate and iterate say plainly that no backend is configured, and the status
 * route tells the web app which is which. With a model, the checker still runs and the model's
 * findings win where they overlap it, whatever shape the model answers in.
 */
import assert from "node:assert/strict";
import { api, e2e, startTestStack, type TestStack } from "./helpers/stack.ts";
import { createUser, type TestUser } from "./helpers/users.ts";
import { createWorkspace } from "./helpers/workspaces.ts";
import { startFakeChatCompletions } from "./fakes/chat_completions.ts";

/** The four mistakes the checker must find, and where each one is. */
const MISTAKES = "This is an test. We saw the the results. You should of seen it. We recieve it.";
const EXPECTED = [
  ["an", "a"],
  ["the the", "the"],
  ["should of", "should have"],
  ["recieve", "receive"],
];

interface Annotation {
  range: [number, number];
  type: string;
  message: string;
  suggestion: string;
}

async function postIn(stack: TestStack, user: TestUser, ws: string): Promise<string> {
  const post = await api(stack, "POST", "/api/posts", {
    token: user.access_token,
    body: { workspace_id: ws, title: "A draft" },
  });
  assert.equal(post.status, 201, JSON.stringify(post.body));
  return post.body.post_id;
}

const covered = (content: string, annotations: Annotation[]) =>
  annotations.map((a) => [content.slice(...a.range), a.suggestion]);

Deno.test(
  "without an AI backend: the checker proofreads, titles come from the text",
  e2e,
  async (t) => {
    const stack = await startTestStack({ OPENAI_BASE_URL: "", OPENAI_API_KEY: "" });
    try {
      const user = await createUser(stack);
      const outsider = await createUser(stack);
      const ws = await createWorkspace(stack, user, "Offline");
      const postId = await postIn(stack, user, ws);
      const call = (who: TestUser, op: string, body: unknown) =>
        api(stack, "POST", `/api/genai/${op}`, { token: who.access_token, body });

      await t.step("proofread answers 200 with the checker's findings alone", async () => {
        const res = await call(user, "proofread", {
          workspace_id: ws,
          post_id: postId,
          content: MISTAKES,
        });
        assert.equal(res.status, 200, JSON.stringify(res.body));
        assert.equal(res.body.model, "none");
        assert.equal(res.body.post_id, postId);
        assert.deepEqual(covered(MISTAKES, res.body.annotations), EXPECTED);
        for (const a of res.body.annotations as Annotation[]) {
          assert.equal(a.type, "grammar");
          assert.ok(a.message.length > 0);
        }
      });

      await t.step("the service's own checks still come after the checker's", async () => {
        const content = "A clean post. #a #b #c #d #e #f";
        const res = await call(user, "proofread", { workspace_id: ws, post_id: postId, content });
        assert.equal(res.status, 200);
        assert.equal(res.body.annotations.length, 1);
        assert.match(res.body.annotations[0].message, /6 hashtags/);
      });

      await t.step("generate and iterate answer 503: no backend configured", async () => {
        for (const op of ["generate", "iterate"]) {
          const res = await call(user, op, {
            workspace_id: ws,
            idea_id: "i",
            post_id: postId,
            instruction: "x",
          });
          assert.deepEqual(
            [res.status, res.body],
            [503, { error: "AI backend not configured" }],
            op,
          );
        }
      });

      await t.step("a non-member still gets 403 first, proofread too", async () => {
        for (const op of ["generate", "proofread"]) {
          const res = await call(outsider, op, { workspace_id: ws, idea_id: "i", post_id: postId });
          assert.equal(res.status, 403, op);
        }
      });

      await t.step("the status route says no model is configured", async () => {
        const res = await api(stack, "GET", "/api/genai/status", { token: user.access_token });
        assert.deepEqual([res.status, res.body], [200, { backend_configured: false }]);
        const anonymous = await api(stack, "GET", "/api/genai/status");
        assert.equal(anonymous.status, 401);
      });

      await t.step("a new idea's title is the text's most telling phrase", async () => {
        const text = "I want to write a post about the thing that happened last week when our " +
          "on-call engineer got paged at 3am for a database failover that turned out to be " +
          "caused by a misconfigured health check and what we learned about write things";
        const res = await api(stack, "POST", "/api/ideas", {
          token: user.access_token,
          body: { workspace_id: ws, title: text },
        });
        assert.equal(res.status, 201, JSON.stringify(res.body));
        assert.equal(res.body.title, "On-call engineer got paged at 3am for a database failover");
        assert.equal(res.body.description, text);
        const short = await api(stack, "POST", "/api/ideas", {
          token: user.access_token,
          body: { workspace_id: ws, title: "Why we write things down." },
        });
        assert.equal(short.body.title, "Why we write things down");
      });
    } finally {
      await stack.close();
    }
  },
);

Deno.test("with an AI backend: the checker's findings merge with the model's", e2e, async (t) => {
  const ai = startFakeChatCompletions();
  const stack = await startTestStack({
    OPENAI_BASE_URL: ai.baseUrl,
    OPENAI_API_KEY: "sk-test",
    AI_RETRY_BACKOFF_MS: "1",
  });
  try {
    const user = await createUser(stack);
    const ws = await createWorkspace(stack, user, "Online");
    const postId = await postIn(stack, user, ws);
    const proofread = async (answer: string, content = MISTAKES) => {
      ai.reset();
      ai.script({ content: answer });
      const res = await api(stack, "POST", "/api/genai/proofread", {
        token: user.access_token,
        body: { workspace_id: ws, post_id: postId, content },
      });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.equal(ai.requests.length, 1, "the model was asked");
      return res.body as { annotations: Annotation[]; model: string };
    };

    await t.step("the status route says a model is configured", async () => {
      const res = await api(stack, "GET", "/api/genai/status", { token: user.access_token });
      assert.deepEqual(res.body, { backend_configured: true });
    });

    await t.step(
      "prose from the model adds nothing and never hides the checker's findings",
      async () => {
        for (
          const answer of ["The post looks good to me, nothing to fix!", "Sure. Here it is: {oops"]
        ) {
          const body = await proofread(answer);
          assert.equal(body.model, "unusable", answer);
          assert.deepEqual(covered(MISTAKES, body.annotations), EXPECTED, answer);
        }
      },
    );

    await t.step("a bare array quoting the text is placed where the words are", async () => {
      const answer = "Here are my notes:\n" + JSON.stringify([
        {
          text: "should of",
          suggestion: "should've",
          message: "Use “should've”",
          type: "spelling",
        },
        { original: "results", replacement: "outcomes", explanation: "Plainer", type: "style" },
      ]) + "\nHope it helps.";
      const body = await proofread(answer);
      assert.equal(body.model, "used");
      // The model's "should of" wins over the checker's; the rest of the checker's stay.
      assert.deepEqual(covered(MISTAKES, body.annotations), [
        ["an", "a"],
        ["the the", "the"],
        ["results", "outcomes"],
        ["should of", "should've"],
        ["recieve", "receive"],
      ]);
      const model = body.annotations.find((a) => a.suggestion === "should've");
      assert.deepEqual(model, {
        range: [MISTAKES.indexOf("should of"), MISTAKES.indexOf("should of") + 9],
        type: "grammar",
        message: "Use “should've”",
        suggestion: "should've",
      });
    });

    await t.step("a fenced array with ranges wins where it overlaps the checker", async () => {
      const at = MISTAKES.indexOf("the the");
      const answer = "```json\n" + JSON.stringify([
        { range: [at, at + 7], type: "grammar", message: "Doubled word", suggestion: "the" },
      ]) + "\n```";
      const body = await proofread(answer);
      assert.equal(body.model, "used");
      assert.deepEqual(body.annotations.map((a) => a.message).slice(1, 2), ["Doubled word"]);
      assert.equal(body.annotations.length, 4);
    });
  } finally {
    await stack.close();
    await ai.close();
  }
});
