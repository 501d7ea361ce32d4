import assert from "node:assert/strict";
import type { WebsocketProvider } from "y-websocket";
import { openEditor } from "./helpers/live_editor.ts";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { api, e2e, startTestStack, type TestStack } from "./helpers/stack.ts";
import { createUser, login, signupConfirmed } from "./helpers/users.ts";
import { createWorkspace } from "./helpers/workspaces.ts";
import { startFakeChatCompletions } from "./fakes/chat_completions.ts";
import { waitFor } from "./helpers/wait.ts";

const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}\+00:00$/;

/** An MCP client over Streamable HTTP, as a desktop AI client would connect with a token. */
async function connect(stack: TestStack, user: { access_token: string }): Promise<Client> {
  const client = new Client({ name: "mcp-test", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(new URL(`${stack.url}/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${user.access_token}` } },
  });
  await client.connect(transport);
  return client;
}

interface ToolAnswer {
  isError: boolean;
  text: string;
  // deno-lint-ignore no-explicit-any
  json: any;
}

/** Calls a tool; the answer's text item, parsed as JSON when the call succeeded. */
async function call(
  client: Client,
  name: string,
  args: Record<string, unknown> = {},
): Promise<ToolAnswer> {
  const result = await client.callTool({ name, arguments: args });
  const content = result.content as { type: string; text: string }[];
  assert.equal(content.length, 1);
  assert.equal(content[0].type, "text");
  const isError = result.isError === true;
  return { isError, text: content[0].text, json: isError ? null : JSON.parse(content[0].text) };
}

/** Asserts a refused call: a tool result with isError and a message containing `message`. */
async function refused(
  client: Client,
  name: string,
  args: Record<string, unknown>,
  message: string | RegExp,
) {
  const answer = await call(client, name, args);
  assert.equal(answer.isError, true, `${name} should be refused, got ${answer.text}`);
  if (typeof message === "string") assert.ok(answer.text.includes(message), answer.text);
  else assert.match(answer.text, message);
}

Deno.test("MCP tools: bearer auth, the list and each tool's answers", e2e, async (t) => {
  const ai = startFakeChatCompletions();
  const stack = await startTestStack({
    OPENAI_BASE_URL: ai.baseUrl,
    OPENAI_API_KEY: "test-key",
    OPENAI_MODEL: "fake-model",
  });
  const clients: Client[] = [];
  const providers: WebsocketProvider[] = [];
  const open = async (user: { access_token: string }) => {
    const client = await connect(stack, user);
    clients.push(client);
    return client;
  };
  try {
    const owner = await createUser(stack, { name: "Olga Owner" });
    const outsider = await createUser(stack, { name: "Oscar Outsider" });
    const mcp = await open(owner);
    const outsiderMcp = await open(outsider);

    /** A fresh workspace of the owner's: each step starts from its own. */
    const fresh = () => createWorkspace(stack, owner, "MCP workspace");
    /** `fresh()` with two ideas created over MCP: `ideaId` (tagged) and a newer "No tags". */
    const withIdeas = async () => {
      const ws = await fresh();
      const ideas = [];
      for (
        const args of [{ title: "why Deno KV: a literal title", tags: ["deno", "kv"] }, {
          title: "No tags",
        }]
      ) {
        const created = await call(mcp, "create_idea", { workspace_id: ws, ...args });
        assert.equal(created.isError, false, created.text);
        ideas.push(created.json.idea_id as string);
      }
      return { ws, ideaId: ideas[0] };
    };
    /** `withIdeas()` with a post that generate_post drafted from `ideaId` as `content`. */
    const withPost = async (content = "Generated post about Deno KV.") => {
      const { ws, ideaId } = await withIdeas();
      ai.reset();
      ai.script({ content });
      const generated = await call(mcp, "generate_post", { workspace_id: ws, idea_id: ideaId });
      assert.equal(generated.isError, false, generated.text);
      return { ws, postId: generated.json.post_id as string };
    };

    await t.step("POST /mcp without a valid bearer token of an approved user is 401", async () => {
      const body = { jsonrpc: "2.0", id: 1, method: "tools/list", params: {} };
      const headers = {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      };
      for (const auth of [undefined, "Bearer not-a-jwt"]) {
        const res = await fetch(`${stack.url}/mcp`, {
          method: "POST",
          headers: auth ? { ...headers, authorization: auth } : headers,
          body: JSON.stringify(body),
        });
        await res.body?.cancel();
        assert.equal(res.status, 401);
      }
      const pending = await signupConfirmed(stack);
      const tokens = await login(stack, pending.email, pending.password);
      const res = await fetch(`${stack.url}/mcp`, {
        method: "POST",
        headers: { ...headers, authorization: `Bearer ${tokens.access_token}` },
        body: JSON.stringify(body),
      });
      await res.body?.cancel();
      assert.equal(res.status, 401, "an unapproved account is refused");
      await assert.rejects(connect(stack, { access_token: "not-a-jwt" }));
    });

    await t.step(
      "GET and DELETE /mcp answer 405 (stateless); POST /mcp is documented",
      async () => {
        for (const method of ["GET", "DELETE"]) {
          const res = await api(stack, method, "/mcp", { token: owner.access_token });
          assert.equal(res.status, 405);
          assert.equal(res.headers.get("allow"), "POST");
        }
        const doc = await api(stack, "GET", "/api/openapi.json");
        assert.equal(doc.status, 200);
        assert.ok(doc.body.paths["/mcp"]?.post, "POST /mcp is in the OpenAPI document");
        // The OpenAPI document describes the same behaviour, so it names every tool.
        const description: string = doc.body.paths["/mcp"].post.description;
        for (const tool of (await mcp.listTools()).tools) {
          assert.match(description, new RegExp(`\\b${tool.name}\\b`), `${tool.name} documented`);
        }
      },
    );

    await t.step("the eleven tools are listed, each input field described", async () => {
      const tools: Tool[] = (await mcp.listTools()).tools;
      const names = tools.map((tool) => tool.name).sort();
      assert.deepEqual(names, [
        "create_idea",
        "generate_post",
        "iterate_post",
        "list_ideas",
        "list_posts",
        "list_workspaces",
        "proofread_post",
        "request_review",
        "schedule_post",
        "set_first_comment",
        "update_idea",
      ]);
      for (const tool of tools) {
        assert.ok(tool.description, `${tool.name} has a description`);
        const properties = (tool.inputSchema.properties ?? {}) as Record<
          string,
          { description?: string }
        >;
        for (const [field, schema] of Object.entries(properties)) {
          assert.ok(schema.description, `${tool.name}.${field} is described`);
        }
      }
      const generate = tools.find((tool) => tool.name === "generate_post")!;
      assert.deepEqual(
        Object.keys(generate.inputSchema.properties ?? {}).sort(),
        ["audience", "idea_id", "language", "length", "prompt_id", "tone", "workspace_id"],
      );
      assert.deepEqual([...(generate.inputSchema.required ?? [])].sort(), [
        "idea_id",
        "workspace_id",
      ]);
    });

    await t.step("list_workspaces gives the caller's workspaces and role", async () => {
      // Fresh accounts: the shared owner has the other steps' workspaces.
      const [lister, reader] = await Promise.all([createUser(stack), createUser(stack)]);
      const ws = await createWorkspace(stack, lister, "MCP workspace");
      const invite = await api(stack, "POST", `/api/workspaces/${ws}/members`, {
        token: lister.access_token,
        body: { email: reader.email, role: "viewer" },
      });
      assert.equal(invite.status, 201, JSON.stringify(invite.body));
      const own = await call(await open(lister), "list_workspaces");
      assert.equal(own.isError, false, own.text);
      assert.deepEqual(own.json, {
        workspaces: [{ workspace_id: ws, name: "MCP workspace", member_role: "owner" }],
      });
      const viewerMcp = await open(reader);
      const theirs = await call(viewerMcp, "list_workspaces");
      assert.deepEqual(theirs.json.workspaces.map((w: { member_role: string }) => w.member_role), [
        "viewer",
      ]);
      assert.deepEqual((await call(outsiderMcp, "list_workspaces")).json, { workspaces: [] });
    });

    await t.step(
      "create_idea stores the title literally, without asking the AI model",
      async () => {
        const ws = await fresh();
        const before = ai.requests.length;
        const title = "  why   Deno KV? lowercase, odd spacing  ";
        const created = await call(mcp, "create_idea", {
          workspace_id: ws,
          title: "why Deno KV: a literal title",
          description: title,
          tags: ["deno", "kv"],
        });
        assert.equal(created.isError, false, created.text);
        assert.deepEqual(Object.keys(created.json).sort(), [
          "created_at",
          "idea_id",
          "status",
          "title",
          "workspace_id",
        ]);
        assert.equal(created.json.title, "why Deno KV: a literal title");
        assert.equal(created.json.status, "new");
        assert.equal(created.json.workspace_id, ws);
        assert.match(created.json.created_at, TIMESTAMP);
        assert.equal(ai.requests.length, before, "no AI title was asked for");
        const ideaId = created.json.idea_id;
        const rest = await api(stack, "GET", `/api/ideas/${ideaId}?workspaceId=${ws}`, {
          token: owner.access_token,
        });
        assert.equal(rest.status, 200);
        assert.equal(rest.body.title, "why Deno KV: a literal title");
        assert.equal(rest.body.description, title);
        assert.deepEqual(rest.body.tags, ["deno", "kv"]);
        assert.equal(rest.body.created_by, owner.user_id);
        assert.equal(rest.body.linked_post_id, null);

        const bare = await call(mcp, "create_idea", { workspace_id: ws, title: "No tags" });
        assert.equal(bare.isError, false, bare.text);
        const bareRest = await api(
          stack,
          "GET",
          `/api/ideas/${bare.json.idea_id}?workspaceId=${ws}`,
          {
            token: owner.access_token,
          },
        );
        assert.deepEqual(bareRest.body.tags, []);
        assert.equal(bareRest.body.description, "");
      },
    );

    await t.step("list_ideas lists the workspace's ideas, filtered by exact status", async () => {
      const { ws, ideaId } = await withIdeas();
      const all = await call(mcp, "list_ideas", { workspace_id: ws });
      assert.equal(all.isError, false, all.text);
      assert.equal(all.json.ideas.length, 2);
      assert.equal(all.json.ideas[0].title, "No tags", "newest first");
      const mine = all.json.ideas.find((i: { idea_id: string }) => i.idea_id === ideaId);
      assert.deepEqual(Object.keys(mine).sort(), [
        "created_at",
        "description",
        "idea_id",
        "status",
        "tags",
        "title",
        "updated_at",
        "workspace_id",
      ]);
      assert.deepEqual(
        (await call(mcp, "list_ideas", { workspace_id: ws, status: "new" }))
          .json.ideas.length,
        2,
      );
      assert.deepEqual(
        (await call(mcp, "list_ideas", { workspace_id: ws, status: "converted" })).json,
        { ideas: [] },
      );
      assert.deepEqual(
        (await call(mcp, "list_ideas", { workspace_id: ws, status: "archived" })).json,
        { ideas: [] },
      );
    });

    await t.step("update_idea changes status and tags only, and validates both", async () => {
      const { ws, ideaId } = await withIdeas();
      const tagged = await call(mcp, "update_idea", {
        idea_id: ideaId,
        workspace_id: ws,
        tags: ["mcp"],
      });
      assert.equal(tagged.isError, false, tagged.text);
      assert.deepEqual(Object.keys(tagged.json).sort(), [
        "idea_id",
        "status",
        "updated_at",
        "workspace_id",
      ]);
      assert.equal(tagged.json.status, "new", "an omitted status is unchanged");
      const read = async () =>
        (await api(stack, "GET", `/api/ideas/${ideaId}?workspaceId=${ws}`, {
          token: owner.access_token,
        })).body;
      assert.deepEqual((await read()).tags, ["mcp"]);

      const converted = await call(mcp, "update_idea", {
        idea_id: ideaId,
        workspace_id: ws,
        status: "converted",
      });
      assert.equal(converted.json.status, "converted");
      assert.deepEqual((await read()).tags, ["mcp"], "omitted tags are unchanged");

      const back = await call(mcp, "update_idea", {
        idea_id: ideaId,
        workspace_id: ws,
        status: "new",
        tags: [],
      });
      assert.equal(back.json.status, "new");
      assert.deepEqual((await read()).tags, [], "an empty list clears the tags");
      assert.equal((await read()).title, "why Deno KV: a literal title");

      await refused(
        mcp,
        "update_idea",
        { idea_id: ideaId, workspace_id: ws, status: "archived" },
        "status",
      );
      assert.equal((await read()).status, "new", "an invalid status is not written");
      await refused(
        mcp,
        "update_idea",
        { idea_id: "01UNKNOWNIDEA0000000000000", workspace_id: ws, status: "converted" },
        "Idea not found",
      );
      const listed = await call(mcp, "list_ideas", { workspace_id: ws });
      assert.equal(listed.json.ideas.length, 2, "an unknown idea is not created");
    });

    await t.step("a non-member is refused by every workspace tool", async () => {
      const { ws, ideaId } = await withIdeas();
      const calls: [string, Record<string, unknown>][] = [
        ["list_ideas", { workspace_id: ws }],
        ["create_idea", { workspace_id: ws, title: "Intruder idea" }],
        ["update_idea", { idea_id: ideaId, workspace_id: ws, status: "converted" }],
        ["generate_post", { workspace_id: ws, idea_id: ideaId }],
        ["iterate_post", { workspace_id: ws, post_id: "01ANYPOST", instruction: "shorter" }],
        ["proofread_post", { workspace_id: ws, post_id: "01ANYPOST" }],
      ];
      const before = ai.requests.length;
      for (const [name, args] of calls) {
        await refused(outsiderMcp, name, args, "Not a workspace member");
      }
      await refused(
        mcp,
        "list_ideas",
        { workspace_id: "01NOSUCHWORKSPACE" },
        "Not a workspace member",
      );
      assert.equal(ai.requests.length, before, "no AI call for a refused caller");
      const listed = await call(mcp, "list_ideas", { workspace_id: ws });
      assert.equal(listed.json.ideas.length, 2, "nothing was created");
      assert.equal(
        listed.json.ideas.find((i: { idea_id: string }) => i.idea_id === ideaId).status,
        "new",
      );
    });

    await t.step("invalid arguments are refused as tool errors naming the field", async () => {
      const { ws } = await withIdeas();
      await refused(mcp, "create_idea", { title: "No workspace" }, "workspace_id");
      await refused(mcp, "create_idea", { workspace_id: ws, title: "   " }, "title is required");
      await refused(mcp, "create_idea", { workspace_id: ws, title: "x".repeat(501) }, "title");
      await refused(
        mcp,
        "create_idea",
        { workspace_id: ws, title: "t", tags: "not-a-list" },
        "tags",
      );
      await refused(mcp, "list_ideas", { workspace_id: "w".repeat(3000) }, "workspace_id");
      await refused(mcp, "update_idea", { workspace_id: ws }, "idea_id");
      await refused(mcp, "generate_post", { workspace_id: ws }, "idea_id");
      await refused(mcp, "iterate_post", { workspace_id: ws, post_id: "p" }, "instruction");
      await refused(mcp, "proofread_post", { workspace_id: ws, post_id: 42 }, "post_id");
      const listed = await call(mcp, "list_ideas", { workspace_id: ws });
      assert.equal(listed.json.ideas.length, 2, "no invalid call wrote anything");
    });

    await t.step("generate_post drafts a post from the idea with the REST options", async () => {
      const { ws, ideaId } = await withIdeas();
      const example = await api(stack, "POST", "/api/examples", {
        token: owner.access_token,
        body: {
          workspace_id: ws,
          title: "Voice sample",
          content: "EXAMPLE-VOICE-SAMPLE about deno",
          tags: ["deno"],
        },
      });
      assert.equal(example.status, 201, JSON.stringify(example.body));
      await call(mcp, "update_idea", { idea_id: ideaId, workspace_id: ws, tags: ["deno"] });
      ai.reset();
      ai.script({ content: "Generated post about Deno KV." });
      const generated = await call(mcp, "generate_post", {
        workspace_id: ws,
        idea_id: ideaId,
        audience: "platform engineers",
        tone: "casual",
        language: "German",
        length: "short",
      });
      assert.equal(generated.isError, false, generated.text);
      assert.deepEqual(Object.keys(generated.json).sort(), [
        "content",
        "idea_id",
        "post_id",
        "workspace_id",
      ]);
      assert.equal(generated.json.content, "Generated post about Deno KV.");
      assert.equal(generated.json.idea_id, ideaId);
      assert.equal(generated.json.workspace_id, ws);
      const postId = generated.json.post_id;

      assert.equal(ai.requests.length, 1);
      const sent = JSON.stringify(ai.requests[0].messages);
      for (const part of ["platform engineers", "casual", "German", "EXAMPLE-VOICE-SAMPLE"]) {
        assert.ok(sent.includes(part), `the model was sent ${part}`);
      }

      const post = await api(stack, "GET", `/api/posts/${postId}?workspaceId=${ws}`, {
        token: owner.access_token,
      });
      assert.equal(post.status, 200);
      assert.equal(post.body.status, "draft");
      assert.equal(post.body.content, "Generated post about Deno KV.");
      assert.equal(post.body.author_id, owner.user_id);
      assert.equal(post.body.source_idea_id, ideaId);
      const idea = await api(stack, "GET", `/api/ideas/${ideaId}?workspaceId=${ws}`, {
        token: owner.access_token,
      });
      assert.equal(idea.body.status, "converted");
      assert.equal(idea.body.linked_post_id, postId);

      ai.script({ content: "A second draft." });
      const again = await call(mcp, "generate_post", { workspace_id: ws, idea_id: ideaId });
      assert.equal(again.isError, false, "a converted idea can be drafted again: " + again.text);
      assert.notEqual(again.json.post_id, postId);

      const before = ai.requests.length;
      await refused(
        mcp,
        "generate_post",
        { workspace_id: ws, idea_id: "01UNKNOWNIDEA0000000000000" },
        "Idea not found",
      );
      await refused(
        mcp,
        "generate_post",
        { workspace_id: ws, idea_id: ideaId, prompt_id: "01NOSUCHPROMPT" },
        /not found/i,
      );
      assert.equal(ai.requests.length, before, "no AI call for a refused generation");
    });

    await t.step(
      "iterate_post replaces the content, which reaches a connected editor",
      async () => {
        const { ws, postId } = await withPost();
        const { provider, text } = await openEditor(stack, owner, ws, postId);
        providers.push(provider);
        assert.equal(text.toString(), "Generated post about Deno KV.");

        ai.reset();
        ai.script({ content: "Shorter: Deno KV rocks." });
        const iterated = await call(mcp, "iterate_post", {
          workspace_id: ws,
          post_id: postId,
          instruction: "make it shorter",
        });
        assert.equal(iterated.isError, false, iterated.text);
        assert.deepEqual(iterated.json, { post_id: postId, content: "Shorter: Deno KV rocks." });
        const sent = JSON.stringify(ai.requests[0].messages);
        assert.ok(sent.includes("make it shorter"), "the instruction reached the model");
        assert.ok(sent.includes("Generated post about Deno KV."), "with the post's current text");

        await waitFor(
          () => text.toString() === "Shorter: Deno KV rocks.",
          "the new content in the live editor",
        );
        const post = await api(stack, "GET", `/api/posts/${postId}?workspaceId=${ws}`, {
          token: owner.access_token,
        });
        assert.equal(post.body.content, "Shorter: Deno KV rocks.");

        // A prompt_id that names no prompt, even one longer than any id, edits as the editor.
        for (const promptId of ["01NOSUCHPROMPT", "p".repeat(300)]) {
          ai.reset();
          ai.script({ content: "Shorter: Deno KV rocks." });
          const fallback = await call(mcp, "iterate_post", {
            workspace_id: ws,
            post_id: postId,
            instruction: "make it shorter",
            prompt_id: promptId,
          });
          assert.equal(fallback.isError, false, fallback.text);
          assert.ok(
            JSON.stringify(ai.requests[0].messages).includes("You are a careful editor"),
            "the editor persona wrote it",
          );
        }

        await refused(
          mcp,
          "iterate_post",
          { workspace_id: ws, post_id: "01NOSUCHPOST", instruction: "x" },
          "Post not found",
        );
        const otherWs = await createWorkspace(stack, owner, "Other workspace");
        await refused(
          mcp,
          "iterate_post",
          { workspace_id: otherWs, post_id: postId, instruction: "x" },
          "Post not found",
        );
      },
    );

    await t.step("proofread_post answers the model's annotations and changes nothing", async () => {
      const { ws, postId } = await withPost("Shorter: Deno KV rocks.");
      ai.reset();
      const annotation = {
        range: [0, 7],
        type: "grammar",
        message: "Add a comma",
        suggestion: "Shorter,",
      };
      ai.script({ content: "```json\n" + JSON.stringify([annotation]) + "\n```" });
      const proofread = await call(mcp, "proofread_post", { workspace_id: ws, post_id: postId });
      assert.equal(proofread.isError, false, proofread.text);
      assert.equal(proofread.json.post_id, postId);
      assert.deepEqual(proofread.json.annotations, [annotation]);
      assert.ok(
        JSON.stringify(ai.requests[0].messages).includes("Shorter: Deno KV rocks."),
        "the post's text was proofread",
      );
      const post = await api(stack, "GET", `/api/posts/${postId}?workspaceId=${ws}`, {
        token: owner.access_token,
      });
      assert.equal(post.body.content, "Shorter: Deno KV rocks.");
      await refused(
        mcp,
        "proofread_post",
        { workspace_id: ws, post_id: "01NOSUCHPOST" },
        "Post not found",
      );
    });
    await t.step("create_idea keeps surrounding spaces and refuses a blank title", async () => {
      const ws = await fresh();
      const spaced = await call(mcp, "create_idea", { workspace_id: ws, title: "  Spaced  " });
      assert.equal(spaced.isError, false, spaced.text);
      assert.equal(spaced.json.title, "  Spaced  ");
      const blank = await call(mcp, "create_idea", { workspace_id: ws, title: "   " });
      assert.equal(blank.isError, true);
    });
  } finally {
    for (const provider of providers) provider.destroy();
    for (const client of clients) await client.close().catch(() => {});
    await stack.close();
    await ai.close();
  }
});

Deno.test(
  "MCP without an AI backend: generate and iterate refused, proofread by the checker",
  e2e,
  async () => {
    const stack = await startTestStack();
    let client: Client | undefined;
    try {
      const owner = await createUser(stack);
      const ws = await createWorkspace(stack, owner, "No AI");
      client = await connect(stack, owner);
      const idea = await call(client, "create_idea", { workspace_id: ws, title: "An idea" });
      assert.equal(idea.isError, false, idea.text);
      await refused(
        client,
        "generate_post",
        { workspace_id: ws, idea_id: idea.json.idea_id },
        "AI backend not configured",
      );
      const posts = await api(stack, "GET", `/api/posts?workspaceId=${ws}`, {
        token: owner.access_token,
      });
      assert.equal(posts.body.count, 0, "no post is created without generated text");

      // Iterate needs the model too; proofread answers from the built-in checker alone, as REST.
      const text = "This is an test of the the service.";
      const post = await api(stack, "POST", "/api/posts", {
        token: owner.access_token,
        body: { workspace_id: ws, title: "Offline", content: text },
      });
      assert.equal(post.status, 201, JSON.stringify(post.body));
      const postId = post.body.post_id;
      await refused(
        client,
        "iterate_post",
        { workspace_id: ws, post_id: postId, instruction: "Shorter" },
        "AI backend not configured",
      );
      const proofread = await call(client, "proofread_post", { workspace_id: ws, post_id: postId });
      assert.equal(proofread.isError, false, proofread.text);
      const rest = await api(stack, "POST", "/api/genai/proofread", {
        token: owner.access_token,
        body: { workspace_id: ws, post_id: postId, content: text },
      });
      assert.equal(rest.status, 200, JSON.stringify(rest.body));
      assert.deepEqual(proofread.json, { post_id: postId, annotations: rest.body.annotations });
      assert.deepEqual(
        proofread.json.annotations.map((a: { type: string; suggestion: string }) => [
          a.type,
          a.suggestion,
        ]),
        [["grammar", "a"], ["grammar", "the"]],
      );
      const after = await api(stack, "GET", `/api/posts/${postId}?workspaceId=${ws}`, {
        token: owner.access_token,
      });
      assert.equal(after.body.content, text, "nothing changed the post");
    } finally {
      await client?.close().catch(() => {});
      await stack.close();
    }
  },
);

Deno.test(
  "MCP optional arguments given as empty or null mean what they mean over REST",
  e2e,
  async (t) => {
    const ai = startFakeChatCompletions({ defaultAnswer: { content: "A drafted post." } });
    const stack = await startTestStack({
      OPENAI_BASE_URL: ai.baseUrl,
      OPENAI_API_KEY: "test-key",
      OPENAI_MODEL: "fake-model",
    });
    let client: Client | undefined;
    try {
      const owner = await createUser(stack);
      const ws = await createWorkspace(stack, owner, "Optional arguments");
      client = await connect(stack, owner);
      const idea = await call(client, "create_idea", { workspace_id: ws, title: "An idea" });
      assert.equal(idea.isError, false, idea.text);
      const ideaId = idea.json.idea_id;
      const post = await api(stack, "POST", "/api/posts", {
        token: owner.access_token,
        body: { workspace_id: ws, title: "A post", content: "Some text." },
      });
      assert.equal(post.status, 201, JSON.stringify(post.body));
      const postId = post.body.post_id;
      /** What the model was last sent. */
      const lastPrompt = () => JSON.stringify(ai.requests.at(-1)?.messages);

      await t.step(
        "generate_post: a blank or null prompt_id and null options are not given",
        async () => {
          const rest = await api(stack, "POST", "/api/genai/generate", {
            token: owner.access_token,
            body: { workspace_id: ws, idea_id: ideaId },
          });
          assert.equal(rest.status, 200, JSON.stringify(rest.body));
          const plain = lastPrompt();
          const cases = [
            { prompt_id: "" },
            { prompt_id: "   " },
            { prompt_id: null },
            { audience: null, tone: null, language: null, length: null },
          ];
          for (const extra of cases) {
            const body = { workspace_id: ws, idea_id: ideaId, ...extra };
            const viaRest = await api(stack, "POST", "/api/genai/generate", {
              token: owner.access_token,
              body,
            });
            assert.equal(viaRest.status, 200, JSON.stringify(viaRest.body));
            assert.equal(lastPrompt(), plain, `REST ${JSON.stringify(extra)}`);
            const viaMcp = await call(client!, "generate_post", body);
            assert.equal(viaMcp.isError, false, `${JSON.stringify(extra)}: ${viaMcp.text}`);
            assert.equal(lastPrompt(), plain, `MCP ${JSON.stringify(extra)}`);
          }
        },
      );

      await t.step("iterate_post: a null prompt_id edits as the editor persona", async () => {
        const body = { workspace_id: ws, post_id: postId, instruction: "Shorter", prompt_id: null };
        const viaRest = await api(stack, "POST", "/api/genai/iterate", {
          token: owner.access_token,
          body,
        });
        assert.equal(viaRest.status, 200, JSON.stringify(viaRest.body));
        const viaMcp = await call(client!, "iterate_post", body);
        assert.equal(viaMcp.isError, false, viaMcp.text);
        assert.ok(lastPrompt().includes("You are a careful editor"), lastPrompt());
      });

      await t.step("list_posts: an empty status is no filter, as `?status=` is", async () => {
        const viaRest = await api(stack, "GET", `/api/posts?workspaceId=${ws}&status=`, {
          token: owner.access_token,
        });
        assert.equal(viaRest.status, 200, JSON.stringify(viaRest.body));
        const viaMcp = await call(client!, "list_posts", { workspace_id: ws, status: "" });
        assert.equal(viaMcp.isError, false, viaMcp.text);
        assert.deepEqual(
          viaMcp.json.posts.map((p: { post_id: string }) => p.post_id),
          viaRest.body.items.map((p: { post_id: string }) => p.post_id),
        );
        assert.ok(viaMcp.json.posts.length >= 1);
      });

      await t.step(
        "schedule_post: an empty at is refused as REST refuses it, null is none",
        async () => {
          for (const at of ["", null]) {
            const viaRest = await api(stack, "POST", `/api/posts/${postId}/schedule`, {
              token: owner.access_token,
              body: { workspace_id: ws, at },
            });
            assert.ok(viaRest.status >= 400, JSON.stringify(viaRest.body));
            const viaMcp = await call(client!, "schedule_post", {
              workspace_id: ws,
              post_id: postId,
              at,
            });
            assert.equal(viaMcp.isError, true, viaMcp.text);
            assert.equal(viaMcp.text, viaRest.body.error, `at ${JSON.stringify(at)}`);
          }
          const after = await api(stack, "GET", `/api/posts/${postId}?workspaceId=${ws}`, {
            token: owner.access_token,
          });
          assert.equal(after.body.status, "draft");
          assert.equal(after.body.scheduled_at, null);
        },
      );
    } finally {
      await client?.close().catch(() => {});
      await stack.close();
      await ai.close();
    }
  },
);

Deno.test(
  "concurrent generate_post calls on one new idea each draft a post, one of them linked",
  e2e,
  async () => {
    // The model takes a while: every call has read the idea as `new` before any post exists.
    const ai = startFakeChatCompletions({ defaultAnswer: { content: "A draft.", delayMs: 300 } });
    const stack = await startTestStack({
      OPENAI_BASE_URL: ai.baseUrl,
      OPENAI_API_KEY: "test-key",
      OPENAI_MODEL: "fake-model",
    });
    const clients: Client[] = [];
    try {
      const owner = await createUser(stack);
      const ws = await createWorkspace(stack, owner, "Concurrent drafts");
      for (let i = 0; i < 3; i++) clients.push(await connect(stack, owner));
      const idea = await call(clients[0], "create_idea", { workspace_id: ws, title: "One idea" });
      assert.equal(idea.isError, false, idea.text);
      const ideaId = idea.json.idea_id;
      const answers = await Promise.all(
        clients.map((client) =>
          call(client, "generate_post", { workspace_id: ws, idea_id: ideaId })
        ),
      );
      for (const answer of answers) assert.equal(answer.isError, false, answer.text);
      const postIds = answers.map((a) => a.json.post_id as string);
      assert.equal(new Set(postIds).size, 3, "three drafts");
      const listed = await api(stack, "GET", `/api/posts?workspaceId=${ws}`, {
        token: owner.access_token,
      });
      assert.deepEqual(
        listed.body.items.map((p: { post_id: string }) => p.post_id).sort(),
        [...postIds].sort(),
      );
      const linked = listed.body.items.filter((p: { source_idea_id: string | null }) =>
        p.source_idea_id === ideaId
      );
      assert.equal(linked.length, 1, "exactly one draft is the idea's post");
      const read = await api(stack, "GET", `/api/ideas/${ideaId}?workspaceId=${ws}`, {
        token: owner.access_token,
      });
      assert.equal(read.body.status, "converted");
      assert.equal(read.body.linked_post_id, linked[0].post_id);
    } finally {
      for (const client of clients) await client.close().catch(() => {});
      await stack.close();
      await ai.close();
    }
  },
);

Deno.test(
  "MCP AI tools answer a failing or busy AI backend with REST's messages, changing nothing",
  e2e,
  async () => {
    const ai = startFakeChatCompletions();
    const stack = await startTestStack({
      OPENAI_BASE_URL: ai.baseUrl,
      OPENAI_API_KEY: "test-key",
      OPENAI_MODEL: "fake-model",
      AI_RETRY_BACKOFF_MS: "1",
    });
    let client: Client | undefined;
    try {
      const owner = await createUser(stack);
      const ws = await createWorkspace(stack, owner, "Failing AI");
      client = await connect(stack, owner);
      const idea = await call(client, "create_idea", { workspace_id: ws, title: "An idea" });
      const post = await api(stack, "POST", "/api/posts", {
        token: owner.access_token,
        body: { workspace_id: ws, title: "A post", content: "Kept text." },
      });
      const postId = post.body.post_id;
      const ops: [string, string, Record<string, unknown>][] = [
        ["generate", "generate_post", { workspace_id: ws, idea_id: idea.json.idea_id }],
        ["iterate", "iterate_post", { workspace_id: ws, post_id: postId, instruction: "x" }],
        ["proofread", "proofread_post", { workspace_id: ws, post_id: postId }],
      ];
      for (const [answer, status] of [[{ status: 500 }, 502], [{ status: 429 }, 503]] as const) {
        ai.reset();
        ai.setDefault(answer);
        for (const [op, tool, args] of ops) {
          const rest = await api(stack, "POST", `/api/genai/${op}`, {
            token: owner.access_token,
            body: { ...args, content: "Kept text." },
          });
          assert.equal(rest.status, status, `${op}: ${JSON.stringify(rest.body)}`);
          await refused(client, tool, args, rest.body.error);
        }
      }
      const posts = await api(stack, "GET", `/api/posts?workspaceId=${ws}`, {
        token: owner.access_token,
      });
      assert.equal(posts.body.count, 1, "no draft without generated text");
      assert.equal(posts.body.items[0].content, "Kept text.");
      const read = await api(stack, "GET", `/api/ideas/${idea.json.idea_id}?workspaceId=${ws}`, {
        token: owner.access_token,
      });
      assert.equal(read.body.status, "new", "the idea is not converted");
    } finally {
      await client?.close().catch(() => {});
      await stack.close();
      await ai.close();
    }
  },
);
