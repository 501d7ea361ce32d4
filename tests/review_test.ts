import assert from "node:assert/strict";
import * as Y from "yjs";
import { WebsocketProvider } from "y-websocket";
import { api, e2e, startTestStack, type TestStack } from "./helpers/stack.ts";
import { createUser, type TestUser } from "./helpers/users.ts";
import { readOutbox, settledOutboxLength, waitForOutbox } from "./helpers/outbox.ts";
import { fakeAiEnv, startFakeChatCompletions } from "./fakes/chat_completions.ts";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { settledValue, waitFor } from "./helpers/wait.ts";
import { PNG, uploadMedia } from "./helpers/media_files.ts";

/** A workspace owned by `owner` with `others` added in the given roles. */
async function workspaceWith(
  stack: TestStack,
  owner: TestUser,
  others: [TestUser, "editor" | "viewer"][] = [],
): Promise<string> {
  const ws = await api(stack, "POST", "/api/workspaces", {
    token: owner.access_token,
    body: { name: "Review space" },
  });
  assert.equal(ws.status, 201, JSON.stringify(ws.body));
  for (const [user, role] of others) {
    const add = await api(stack, "POST", `/api/workspaces/${ws.body.workspace_id}/members`, {
      token: owner.access_token,
      body: { email: user.email, role },
    });
    assert.equal(add.status, 201, JSON.stringify(add.body));
  }
  return ws.body.workspace_id;
}

Deno.test("workspace: approval_required, timezone and slot format", e2e, async () => {
  const stack = await startTestStack();
  try {
    const owner = await createUser(stack);
    const viewer = await createUser(stack);
    const editor = await createUser(stack);
    const wsId = await workspaceWith(stack, owner, [[viewer, "viewer"], [editor, "editor"]]);
    const fresh = await api(stack, "GET", `/api/workspaces/${wsId}`, {
      token: owner.access_token,
    });
    assert.equal(fresh.body.approval_required, false);
    assert.equal(fresh.body.timezone, "UTC");

    const put = (body: Record<string, unknown>, token = owner.access_token) =>
      api(stack, "PUT", `/api/workspaces/${wsId}`, { token, body });
    const ok = await put({
      approval_required: true,
      timezone: "Europe/Zurich",
      publishing_slots: ["Mon 09:30", "Sun 23:59"],
    });
    assert.equal(ok.status, 200, JSON.stringify(ok.body));
    assert.equal(ok.body.approval_required, true);
    assert.equal(ok.body.timezone, "Europe/Zurich");
    assert.deepEqual(ok.body.publishing_slots, ["Mon 09:30", "Sun 23:59"]);

    // A UTC offset is a zone to Intl, but not an IANA zone name.
    for (const zone of ["Mars/Olympus", "+02:00", "-0500", "+01"]) {
      const badZone = await put({ timezone: zone });
      assert.equal(badZone.status, 400, zone);
      assert.match(badZone.body.error, /timezone/);
    }
    for (const slot of ["Monday 09:30", "Mon 24:00", "Mon 9:30", "mon 09:30", "Mon 09:60"]) {
      const bad = await put({ publishing_slots: [slot] });
      assert.equal(bad.status, 400, slot);
      assert.match(bad.body.error, /publishing_slots/);
    }
    const badFlag = await put({ approval_required: "yes" });
    assert.equal(badFlag.status, 400);
    assert.match(badFlag.body.error, /approval_required/);
    const byViewer = await put({ approval_required: false }, viewer.access_token);
    assert.equal(byViewer.status, 403);

    // owner or editor: the editor sets both back and forth
    const byEditor = await put({ approval_required: false, timezone: "UTC" }, editor.access_token);
    assert.equal(byEditor.status, 200, JSON.stringify(byEditor.body));
    assert.equal(byEditor.body.approval_required, false);
    assert.equal(byEditor.body.timezone, "UTC");
    const back = await put(
      { approval_required: true, timezone: "Europe/Zurich" },
      editor.access_token,
    );
    assert.equal(back.status, 200, JSON.stringify(back.body));

    const after = await api(stack, "GET", `/api/workspaces/${wsId}`, {
      token: owner.access_token,
    });
    assert.equal(after.body.timezone, "Europe/Zurich");
    assert.equal(after.body.approval_required, true);
  } finally {
    await stack.close();
  }
});

Deno.test(
  "review routes: requests, decisions, no self-approval, history",
  e2e,
  async (t) => {
    const stack = await startTestStack();
    try {
      const owner = await createUser(stack, { name: "Olga Owner" });
      const author = await createUser(stack, { name: "Anna Author" });
      const editor = await createUser(stack, { name: "Ed Editor" });
      const viewer = await createUser(stack);
      const outsider = await createUser(stack);
      const wsId = await workspaceWith(stack, owner, [[author, "editor"], [editor, "editor"], [
        viewer,
        "viewer",
      ]]);
      const created = await api(stack, "POST", "/api/posts", {
        token: author.access_token,
        body: { workspace_id: wsId, title: "Launch", content: "We launch today." },
      });
      assert.equal(created.status, 201);
      const postId = created.body.post_id;
      const url = `${stack.env.PUBLIC_URL}/workspaces/${wsId}/posts/${postId}`;
      const requestReview = (user: TestUser, body: Record<string, unknown>, id = postId) =>
        api(stack, "POST", `/api/posts/${id}/review-requests`, {
          token: user.access_token,
          body: { workspace_id: wsId, ...body },
        });
      const decide = (user: TestUser, decision: string, id = postId, note?: string) =>
        api(stack, "POST", `/api/posts/${id}/reviews`, {
          token: user.access_token,
          body: { workspace_id: wsId, decision, note },
        });

      await t.step("a post answers the new fields with their defaults", () => {
        assert.deepEqual(created.body.reviewer_ids, []);
        for (
          const f of [
            "approved_by",
            "approved_at",
            "linkedin_post_urn",
            "linkedin_post_url",
            "publish_error",
          ]
        ) assert.equal(created.body[f], null, f);
      });

      await t.step("a bad reviewer list is 400; membership 403 comes before 404", async () => {
        for (
          const ids of [
            [],
            Array.from({ length: 11 }, (_, i) => `u${i}`),
            [author.user_id],
            [viewer.user_id],
            [outsider.user_id],
            "nope",
          ]
        ) {
          const res = await requestReview(author, { reviewer_ids: ids });
          assert.equal(res.status, 400, JSON.stringify(ids));
          assert.match(res.body.error, /reviewer_ids/);
        }
        const notMember = await requestReview(outsider, { reviewer_ids: [owner.user_id] });
        assert.deepEqual([notMember.status, notMember.body.error], [403, "Not a workspace member"]);
        const missing = await requestReview(author, { reviewer_ids: [owner.user_id] }, "nope");
        assert.deepEqual([missing.status, missing.body.error], [404, "Post not found"]);
      });

      await t.step("a request puts the post in review and DMs each reviewer", async () => {
        const res = await requestReview(author, {
          reviewer_ids: [owner.user_id, editor.user_id, owner.user_id],
          note: "Please check the date",
        });
        assert.equal(res.status, 200, JSON.stringify(res.body));
        assert.equal(res.body.status, "in_review");
        assert.deepEqual(res.body.reviewer_ids, [owner.user_id, editor.user_id]);
        for (const reviewer of [owner, editor]) {
          const dm = await waitForOutbox(
            stack.outboxFile,
            (l) => l.template === "review_requested" && l.to === reviewer.email,
          );
          assert.equal(dm.channel, "dm");
          assert.equal(dm.data.url, url);
          assert.match(dm.text, /Please check the date/);
        }
      });

      await t.step("reviews: author 403, viewer 403, outsider 403, unknown post 404", async () => {
        const self = await decide(author, "approve");
        assert.deepEqual([self.status, self.body.error], [
          403,
          "Authors cannot review their own post",
        ]);
        assert.equal((await decide(viewer, "approve")).status, 403);
        const outside = await decide(outsider, "approve");
        assert.deepEqual([outside.status, outside.body.error], [403, "Not a workspace member"]);
        const missing = await decide(owner, "approve", "nope");
        assert.deepEqual([missing.status, missing.body.error], [404, "Post not found"]);
        const bad = await decide(owner, "maybe");
        assert.equal(bad.status, 400);
        assert.match(bad.body.error, /decision/);
      });

      await t.step(
        "request_changes: back to draft, author DMed; then 409 until asked again",
        async () => {
          const res = await decide(editor, "request_changes", postId, "Shorter, please");
          assert.equal(res.status, 200, JSON.stringify(res.body));
          assert.equal(res.body.status, "draft");
          const dm = await waitForOutbox(
            stack.outboxFile,
            (l) => l.template === "review_decided" && l.to === author.email,
          );
          assert.equal(dm.data.decision, "request_changes");
          assert.equal(dm.data.url, url);
          const notInReview = await decide(owner, "approve");
          assert.equal(notInReview.status, 409);
        },
      );

      await t.step("approve: approved_by and approved_at set", async () => {
        assert.equal((await requestReview(author, { reviewer_ids: [owner.user_id] })).status, 200);
        const res = await decide(owner, "approve");
        assert.equal(res.status, 200, JSON.stringify(res.body));
        assert.equal(res.body.status, "approved");
        assert.equal(res.body.approved_by, owner.user_id);
        assert.ok(Date.parse(res.body.approved_at) > 0);
        const dm = await waitForOutbox(
          stack.outboxFile,
          (l) =>
            l.template === "review_decided" && l.to === author.email &&
            l.data.decision === "approve",
        );
        assert.equal(dm.channel, "dm");
        assert.equal(dm.data.url, url);
        assert.equal((await decide(owner, "approve")).status, 409);
      });

      await t.step("the history lists the decisions oldest first", async () => {
        const res = await api(stack, "GET", `/api/posts/${postId}/reviews?workspaceId=${wsId}`, {
          token: viewer.access_token,
        });
        assert.equal(res.status, 200);
        assert.equal(res.body.count, 2);
        assert.deepEqual(res.body.items.map((r: { decision: string }) => r.decision), [
          "request_changes",
          "approve",
        ]);
        assert.equal(res.body.items[0].reviewer_id, editor.user_id);
        assert.equal(res.body.items[0].reviewer_name, "Ed Editor");
        assert.equal(res.body.items[0].note, "Shorter, please");
        assert.equal(res.body.items[1].note, null);
        assert.equal(res.body.items[1].reviewer_id, owner.user_id);
        assert.equal(res.body.items[1].reviewer_name, "Olga Owner");
        assert.deepEqual(Object.keys(res.body.items[0]).sort(), [
          "created_at",
          "decision",
          "note",
          "review_id",
          "reviewer_id",
          "reviewer_name",
        ]);
        assert.notEqual(res.body.items[0].review_id, res.body.items[1].review_id);
        assert.ok(
          Date.parse(res.body.items[0].created_at) <= Date.parse(res.body.items[1].created_at),
        );
        const outside = await api(
          stack,
          "GET",
          `/api/posts/${postId}/reviews?workspaceId=${wsId}`,
          {
            token: outsider.access_token,
          },
        );
        assert.equal(outside.status, 403);
        const missing = await api(stack, "GET", `/api/posts/nope/reviews?workspaceId=${wsId}`, {
          token: owner.access_token,
        });
        assert.equal(missing.status, 404);
      });

      await t.step(
        "with approval_required: only a review approves; scheduled only from approved",
        async () => {
          const setFlag = await api(stack, "PUT", `/api/workspaces/${wsId}`, {
            token: owner.access_token,
            body: { approval_required: true },
          });
          assert.equal(setFlag.status, 200);
          const draft = await api(stack, "POST", "/api/posts", {
            token: author.access_token,
            body: { workspace_id: wsId, title: "Second", content: "Draft text" },
          });
          const status = (id: string, value: string) =>
            api(stack, "PUT", `/api/posts/${id}/status`, {
              token: owner.access_token,
              body: { workspace_id: wsId, status: value },
            });
          assert.equal((await status(draft.body.post_id, "approved")).status, 409);
          assert.equal((await status(draft.body.post_id, "scheduled")).status, 409);
          assert.equal((await status(draft.body.post_id, "published")).status, 409);
          assert.equal((await status(draft.body.post_id, "in_review")).status, 200);
          // the approved post may move on
          assert.equal((await status(postId, "approved")).status, 200, "same status is no move");
        },
      );

      await t.step("a REST text change sends the approved post back to review", async () => {
        const put = await api(stack, "PUT", `/api/posts/${postId}`, {
          token: author.access_token,
          body: { workspace_id: wsId, content: "We launch tomorrow." },
        });
        assert.equal(put.status, 200);
        assert.equal(put.body.status, "in_review");
        assert.equal(put.body.approved_by, null);
        assert.equal(put.body.approved_at, null);
        await waitForOutbox(
          stack.outboxFile,
          (l) =>
            l.template === "review_requested" && l.to === owner.email &&
            l.data.reason === "approved_text_changed",
        );
      });

      await t.step(
        "a reviewer who changes approved text, media, first comment or version is not told of it",
        async () => {
          const p = await api(stack, "POST", "/api/posts", {
            token: author.access_token,
            body: { workspace_id: wsId, title: "Own change", content: "First words." },
          });
          const id = p.body.post_id;
          const approveBy = async (reviewer: TestUser) => {
            await requestReview(author, { reviewer_ids: [owner.user_id, editor.user_id] }, id);
            const ok = await decide(reviewer, "approve", id);
            assert.equal(ok.body.status, "approved", JSON.stringify(ok.body));
          };
          const mediaId = await uploadMedia(stack, author.access_token, {
            workspaceId: wsId,
            postId: id,
          }, { filename: "chart.png", contentType: "image/png", bytes: PNG });
          const saved = await api(stack, "POST", `/api/posts/${id}/versions`, {
            token: owner.access_token,
            body: { workspace_id: wsId },
          });
          assert.equal(saved.status, 201);
          const changes: [string, () => Promise<{ status: number; body: { status: string } }>][] = [
            ["text", () =>
              api(stack, "PUT", `/api/posts/${id}`, {
                token: owner.access_token,
                body: { workspace_id: wsId, content: "Second words." },
              })],
            ["first comment", () =>
              api(stack, "PUT", `/api/posts/${id}`, {
                token: owner.access_token,
                body: { workspace_id: wsId, first_comment: "More in the comments" },
              })],
            ["media alt text", () =>
              api(stack, "PATCH", `/api/posts/${id}/media/${mediaId}`, {
                token: owner.access_token,
                body: { workspace_id: wsId, alt_text: "A rising line" },
              })],
            ["version restore", () =>
              api(
                stack,
                "POST",
                `/api/posts/${id}/versions/${saved.body.version_id}/restore`,
                { token: owner.access_token, body: { workspace_id: wsId } },
              )],
          ];
          for (const [what, change] of changes) {
            await approveBy(editor);
            const before = await settledOutboxLength(stack.outboxFile);
            const res = await change();
            assert.equal(res.status, 200, what);
            assert.equal(res.body.status, "in_review", what);
            await waitFor(
              async () =>
                (await readOutbox(stack.outboxFile)).slice(before).some((l) =>
                  l.template === "review_requested" && l.to === editor.email
                ),
              `${what}: the other reviewer's review_requested`,
            );
            await settledOutboxLength(stack.outboxFile);
            const after = (await readOutbox(stack.outboxFile)).slice(before);
            assert.deepEqual(
              after.filter((l) => l.template === "review_requested").map((l) => l.to),
              [editor.email],
              `${what}: the other reviewer is told, the one who changed it is not`,
            );
          }
        },
      );
    } finally {
      await stack.close();
    }
  },
);

/** Waits until `check` holds, polling; fails with `what` after `timeoutMs`. */

/** A stock y-websocket provider on the post, as a browser editor opens it. */
async function openEditor(stack: TestStack, user: TestUser, postId: string, wsId: string) {
  const ticket = await api(stack, "POST", "/api/ws/ticket", { token: user.access_token });
  assert.equal(ticket.status, 200);
  const provider = new WebsocketProvider(stack.url.replace(/^http/, "ws"), "ws", new Y.Doc(), {
    params: { ticket: ticket.body.ticket, docId: postId, workspaceId: wsId },
    // deno-lint-ignore no-explicit-any
    WebSocketPolyfill: WebSocket as any,
    disableBc: true,
  });
  await waitFor(() => provider.synced, "the provider to sync");
  return provider;
}

Deno.test(
  "a live keystroke after approval sends the post back to review within 5 s",
  e2e,
  async () => {
    const stack = await startTestStack();
    try {
      const owner = await createUser(stack);
      const author = await createUser(stack);
      const wsId = await workspaceWith(stack, owner, [[author, "editor"]]);
      await api(stack, "PUT", `/api/workspaces/${wsId}`, {
        token: owner.access_token,
        body: { approval_required: true },
      });
      const created = await api(stack, "POST", "/api/posts", {
        token: author.access_token,
        body: { workspace_id: wsId, title: "Live", content: "Approved words." },
      });
      const postId = created.body.post_id;
      const provider = await openEditor(stack, author, postId, wsId);
      try {
        assert.equal(provider.doc.getText("content").toString(), "Approved words.");
        // typing before the approval does not matter: the approval covers the text at approval
        provider.doc.getText("content").insert(0, "Our ");
        await new Promise((r) => setTimeout(r, 300));
        await api(stack, "POST", `/api/posts/${postId}/review-requests`, {
          token: author.access_token,
          body: { workspace_id: wsId, reviewer_ids: [owner.user_id] },
        });
        const approved = await api(stack, "POST", `/api/posts/${postId}/reviews`, {
          token: owner.access_token,
          body: { workspace_id: wsId, decision: "approve" },
        });
        assert.equal(approved.status, 200, JSON.stringify(approved.body));
        assert.equal(approved.body.status, "approved");
        assert.equal(approved.body.content, "Our Approved words.");
        // the collab notification of the earlier keystroke carries the approved text: no effect
        await settledValue(
          async () =>
            JSON.stringify(
              (await api(stack, "GET", `/api/posts/${postId}?workspaceId=${wsId}`, {
                token: owner.access_token,
              })).body,
            ),
          1_500,
        );
        const still = await api(stack, "GET", `/api/posts/${postId}?workspaceId=${wsId}`, {
          token: owner.access_token,
        });
        assert.equal(still.body.status, "approved");

        const typedAt = Date.now();
        for (const ch of " Really!") {
          const text = provider.doc.getText("content");
          text.insert(text.length, ch);
          await new Promise((r) => setTimeout(r, 20));
        }
        let post: Record<string, unknown> = {};
        await waitFor(
          async () => {
            const res = await api(stack, "GET", `/api/posts/${postId}?workspaceId=${wsId}`, {
              token: owner.access_token,
            });
            post = res.body;
            return post.status === "in_review";
          },
          "the post to go back to review",
          5_000,
        );
        assert.ok(Date.now() - typedAt < 5_000);
        assert.equal(post.approved_by, null);
        assert.equal(post.approved_at, null);
        assert.equal(post.content, "Our Approved words. Really!");
        await waitForOutbox(
          stack.outboxFile,
          (l) =>
            l.template === "review_requested" && l.to === owner.email &&
            l.data.reason === "approved_text_changed",
        );
      } finally {
        provider.destroy();
      }
    } finally {
      await stack.close();
    }
  },
);

Deno.test(
  "an AI rewrite through MCP iterate_post sends the approved post back to review",
  e2e,
  async () => {
    const ai = startFakeChatCompletions();
    const stack = await startTestStack(fakeAiEnv(ai));
    try {
      const owner = await createUser(stack);
      const author = await createUser(stack);
      const wsId = await workspaceWith(stack, owner, [[author, "editor"]]);
      const created = await api(stack, "POST", "/api/posts", {
        token: author.access_token,
        body: { workspace_id: wsId, title: "AI", content: "Long approved text." },
      });
      const postId = created.body.post_id;
      await api(stack, "POST", `/api/posts/${postId}/review-requests`, {
        token: author.access_token,
        body: { workspace_id: wsId, reviewer_ids: [owner.user_id] },
      });
      const approved = await api(stack, "POST", `/api/posts/${postId}/reviews`, {
        token: owner.access_token,
        body: { workspace_id: wsId, decision: "approve" },
      });
      assert.equal(approved.body.status, "approved");
      ai.script({ content: "Short text." });
      const client = new Client({ name: "review-test", version: "1.0.0" });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`${stack.url}/mcp`), {
          requestInit: { headers: { authorization: `Bearer ${author.access_token}` } },
        }),
      );
      try {
        const result = await client.callTool({
          name: "iterate_post",
          arguments: { workspace_id: wsId, post_id: postId, instruction: "Shorter" },
        });
        assert.notEqual(result.isError, true, JSON.stringify(result.content));
      } finally {
        await client.close();
      }
      const post = await api(stack, "GET", `/api/posts/${postId}?workspaceId=${wsId}`, {
        token: owner.access_token,
      });
      assert.equal(post.body.content, "Short text.");
      assert.equal(post.body.status, "in_review");
      assert.equal(post.body.approved_by, null);
    } finally {
      await stack.close();
      await ai.close();
    }
  },
);

Deno.test(
  "a reviewer who changes an approved post through MCP is not told of their own change",
  e2e,
  async () => {
    const ai = startFakeChatCompletions();
    const stack = await startTestStack(fakeAiEnv(ai));
    try {
      const owner = await createUser(stack);
      const author = await createUser(stack);
      const editor = await createUser(stack);
      const wsId = await workspaceWith(stack, owner, [[author, "editor"], [editor, "editor"]]);
      const created = await api(stack, "POST", "/api/posts", {
        token: author.access_token,
        body: { workspace_id: wsId, title: "MCP", content: "Approved words." },
      });
      const postId = created.body.post_id;
      const tools: [string, Record<string, unknown>][] = [
        ["iterate_post", { instruction: "Shorter" }],
        ["set_first_comment", { first_comment: "Sources in the comments" }],
      ];
      for (const [tool, args] of tools) {
        await api(stack, "POST", `/api/posts/${postId}/review-requests`, {
          token: author.access_token,
          body: { workspace_id: wsId, reviewer_ids: [owner.user_id, editor.user_id] },
        });
        const approved = await api(stack, "POST", `/api/posts/${postId}/reviews`, {
          token: editor.access_token,
          body: { workspace_id: wsId, decision: "approve" },
        });
        assert.equal(approved.body.status, "approved");
        const before = await settledOutboxLength(stack.outboxFile);
        ai.script({ content: "Short words." });
        const client = new Client({ name: "review-test", version: "1.0.0" });
        await client.connect(
          new StreamableHTTPClientTransport(new URL(`${stack.url}/mcp`), {
            requestInit: { headers: { authorization: `Bearer ${owner.access_token}` } },
          }),
        );
        try {
          const result = await client.callTool({
            name: tool,
            arguments: { workspace_id: wsId, post_id: postId, ...args },
          });
          assert.notEqual(result.isError, true, JSON.stringify(result.content));
        } finally {
          await client.close();
        }
        await waitFor(
          async () =>
            (await readOutbox(stack.outboxFile)).slice(before).some((l) =>
              l.template === "review_requested" && l.to === editor.email
            ),
          `${tool}: the other reviewer's review_requested`,
        );
        await settledOutboxLength(stack.outboxFile);
        assert.deepEqual(
          (await readOutbox(stack.outboxFile)).slice(before)
            .filter((l) => l.template === "review_requested").map((l) => l.to),
          [editor.email],
          `${tool}: the reviewer who made the change is not told of it`,
        );
      }
    } finally {
      await stack.close();
      await ai.close();
    }
  },
);
