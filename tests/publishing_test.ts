import assert from "node:assert/strict";
import { startFakeLinkedIn } from "./fakes/linkedin.ts";
import { api, e2e, startTestStack } from "./helpers/stack.ts";
import { createUser } from "./helpers/users.ts";
import { openEditor } from "./helpers/live_editor.ts";
import { nextFreeSlot } from "../services/posts/slots.ts";
import {
  connectLinkedIn,
  followCallback,
  linkedInEnv,
  mcpCall,
  publishingFixtures,
  startConnect,
} from "./helpers/linkedin_publishing.ts";
import { waitFor } from "./helpers/wait.ts";

/** Connecting LinkedIn, who may schedule, and the rules of scheduling, against the fake. */
Deno.test("LinkedIn connection and scheduling", e2e, async (t) => {
  const fake = startFakeLinkedIn();
  const stack = await startTestStack({
    ...linkedInEnv(fake),
    // Approvals are withdrawn here only by the publish job's own check, so the steps that edit
    // an approved post live test that check and not the periodic comparison.
    POSTS_LIVE_TEXT_CHECK_MS: "600000",
    LINKEDIN_TIMEOUT_MS: "1500",
    LINKEDIN_EXPIRY_CHECK_MS: "300",
  });
  try {
    const owner = await createUser(stack, { name: "Olga Owner" });
    const author = await createUser(stack, { name: "Anna Author" });
    const viewer = await createUser(stack);
    const { fresh, connected } = publishingFixtures(stack, {
      owner,
      author,
      viewer,
    });

    await t.step("schedule before connecting: 409 LinkedIn is not connected", async () => {
      const { wsId, approvedPost, schedule } = await fresh();
      const id = await approvedPost("Not yet");
      const res = await schedule(id, new Date(Date.now() + 60_000).toISOString());
      assert.deepEqual([res.status, res.body.error], [409, "LinkedIn is not connected"]);
      const none = await api(stack, "GET", `/api/workspaces/${wsId}/linkedin`, {
        token: viewer.access_token,
      });
      assert.equal(none.status, 200);
      assert.deepEqual(none.body, {
        connected: false,
        name: null,
        member_urn: null,
        expires_at: null,
        connected_by: null,
        organizations: [],
      });
    });

    await t.step("connect: scopes, a state bound to the caller, callback, replay 400", async () => {
      const { wsId } = await fresh();
      const byViewer = await api(stack, "POST", `/api/workspaces/${wsId}/linkedin/connect`, {
        token: viewer.access_token,
      });
      assert.equal(byViewer.status, 403);
      const { authorize, callback, back, cookie } = await connectLinkedIn(stack, author, wsId);
      assert.equal(authorize.origin + authorize.pathname, `${fake.authUrl}/authorization`);
      assert.equal(authorize.searchParams.get("scope"), "openid profile w_member_social");
      assert.equal(authorize.searchParams.get("client_id"), fake.clientId);
      assert.ok((authorize.searchParams.get("state") ?? "").length >= 32);
      assert.equal(back.status, 302);
      assert.equal(back.headers.get("location"), `/workspaces/${wsId}/settings`);
      const replay = await followCallback(callback, cookie);
      assert.equal(replay.status, 400);
      const unknown = await api(stack, "GET", "/oauth/linkedin/callback?code=x&state=nope");
      assert.equal(unknown.status, 400);
      const conn = await api(stack, "GET", `/api/workspaces/${wsId}/linkedin`, {
        token: viewer.access_token,
      });
      assert.equal(conn.body.connected, true);
      assert.equal(conn.body.name, fake.member.name);
      assert.equal(conn.body.member_urn, `urn:li:person:${fake.member.sub}`);
      assert.equal(conn.body.connected_by, author.user_id);
      assert.ok(Date.parse(conn.body.expires_at) > Date.now() + 50 * 86_400_000);
      assert.ok(!JSON.stringify(conn.body).includes("token-"), "no token in any answer");
      const kvFile = await Deno.readFile(`${stack.dataDir}/posts.kv`).catch(() => new Uint8Array());
      const token = fake.requests.find((r) => r.path === "/v2/userinfo")!.headers.authorization
        .replace("Bearer ", "");
      assert.ok(!new TextDecoder("latin1").decode(kvFile).includes(token), "token encrypted");
    });

    await t.step("an authorize URL opened in another browser connects nothing", async () => {
      const { wsId } = await fresh();
      // The editor starts a connect and sends the URL to someone else (the owner here).
      const started = await startConnect(stack, author, wsId);
      const attributes = started.connect.headers.getSetCookie()
        .find((c) => c.startsWith("cp_linkedin_connect="))!.toLowerCase();
      assert.match(attributes, /httponly/);
      assert.match(attributes, /samesite=lax/);
      assert.match(attributes, /path=\/oauth\/linkedin/);
      const noCookie = await followCallback(started.callback, null);
      assert.equal(noCookie.status, 400);
      assert.match(JSON.parse(noCookie.text).error, /started in another browser/);
      // The victim's browser holds a cookie of its own connect: still not this state's.
      const other = await startConnect(stack, owner, wsId);
      const wrongCookie = await followCallback(started.callback, other.cookie);
      assert.equal(wrongCookie.status, 400);
      const none = await api(stack, "GET", `/api/workspaces/${wsId}/linkedin`, {
        token: author.access_token,
      });
      assert.equal(none.body.connected, false, "nothing was connected");
      // The browser that started it completes it; the cookie is cleared on the way.
      const own = await followCallback(started.callback, started.cookie);
      assert.equal(own.status, 302);
      const cleared = own.headers.getSetCookie().find((c) => c.startsWith("cp_linkedin_connect="));
      assert.match(cleared ?? "", /max-age=0/i);
      const conn = await api(stack, "GET", `/api/workspaces/${wsId}/linkedin`, {
        token: author.access_token,
      });
      assert.deepEqual([conn.body.connected, conn.body.connected_by], [true, author.user_id]);
    });

    await t.step("a code LinkedIn refuses is 400 with LinkedIn's refusal alone", async () => {
      const { wsId } = await fresh();
      const started = await startConnect(stack, author, wsId);
      const forged = new URL(started.callback);
      forged.searchParams.set("code", "never-issued");
      const refused = await followCallback(forged, started.cookie);
      assert.equal(refused.status, 400);
      assert.deepEqual(JSON.parse(refused.text), {
        error: "LinkedIn refused the authorization code (400)",
      });
      const none = await api(stack, "GET", `/api/workspaces/${wsId}/linkedin`, {
        token: author.access_token,
      });
      assert.equal(none.body.connected, false, "nothing was connected");
    });

    await t.step("a viewer cannot schedule, unschedule or publish", async () => {
      const { wsId, approvedPost, schedule } = await connected();
      const id = await approvedPost("Viewer must not post this");
      const calls = fake.posts().length;
      const refused = { status: 403, error: "Owner or editor role required" };
      const asViewer = (method: string, path: string, body?: unknown) =>
        api(stack, method, path, { token: viewer.access_token, body });
      const at = new Date(Date.now() + 3_600_000).toISOString();
      for (
        const res of [
          await asViewer("POST", `/api/posts/${id}/schedule`, { workspace_id: wsId, at }),
          await asViewer("POST", `/api/posts/${id}/publish`, { workspace_id: wsId }),
        ]
      ) {
        assert.deepEqual({ status: res.status, error: res.body.error }, refused);
      }
      const viaMcp = await mcpCall(stack, viewer, "schedule_post", {
        workspace_id: wsId,
        post_id: id,
      });
      assert.match(viaMcp.error, /Owner or editor role required/);
      assert.equal((await schedule(id, at)).status, 200, "an editor schedules it");
      const unschedule = await asViewer("DELETE", `/api/posts/${id}/schedule?workspaceId=${wsId}`);
      assert.deepEqual({ status: unschedule.status, error: unschedule.body.error }, refused);
      // Moving a scheduled post's status elsewhere cancels its publication: unscheduling too.
      for (const status of ["draft", "in_review", "approved", "published"]) {
        const moved = await asViewer("PUT", `/api/posts/${id}/status`, {
          workspace_id: wsId,
          status,
        });
        assert.deepEqual({ status: moved.status, error: moved.body.error }, refused, status);
      }
      const after = await api(stack, "GET", `/api/posts/${id}?workspaceId=${wsId}`, {
        token: viewer.access_token,
      });
      assert.deepEqual([after.body.status, Date.parse(after.body.scheduled_at)], [
        "scheduled",
        Date.parse(at),
      ]);
      assert.equal(fake.posts().length, calls, "nothing went to LinkedIn");
    });

    /**
     * Edits the post live, as a y-websocket editor does, and waits until the server holds the
     * edit (well inside the second before collab reports it to posts).
     */
    const editLive = async (wsId: string, id: string, added: string) => {
      const editor = await openEditor(stack, author, wsId, id);
      try {
        editor.text.insert(editor.text.length, added);
        await waitFor(
          async () =>
            ((await api(stack, "GET", `/api/posts/${id}?workspaceId=${wsId}`, {
              token: author.access_token,
            })).body.content as string).endsWith(added),
          "the live edit on the server",
        );
      } finally {
        editor.provider.destroy();
      }
    };

    await t.step(
      "a live edit just before publishing never reaches LinkedIn: Changed since approval",
      async () => {
        const { wsId, approvedPost, publishNow, getPost } = await connected();
        const id = await approvedPost("The approved words.");
        const calls = fake.posts().length;
        await editLive(wsId, id, " UNAPPROVED ADDITION");
        assert.equal((await publishNow(id)).status, 202);
        let post: Record<string, unknown> = {};
        await waitFor(async () => {
          post = await getPost(id);
          return post.status !== "scheduled";
        }, "the publish job's outcome");
        assert.equal(post.status, "in_review");
        assert.equal(post.publish_error, "Changed since approval");
        assert.deepEqual([post.approved_by, post.approved_at, post.scheduled_at], [
          null,
          null,
          null,
        ]);
        assert.equal(fake.posts().length, calls, "LinkedIn received nothing");
        const reviews = await api(stack, "GET", `/api/posts/${id}/reviews?workspaceId=${wsId}`, {
          token: author.access_token,
        });
        const last = reviews.body.items.at(-1);
        assert.deepEqual([last.decision, last.note, last.reviewer_id], [
          "voided",
          "text changed after approval",
          owner.user_id,
        ]);
        // Approved again, the new text goes out exactly.
        await api(stack, "POST", `/api/posts/${id}/reviews`, {
          token: owner.access_token,
          body: { workspace_id: wsId, decision: "approve" },
        });
        assert.equal((await publishNow(id)).status, 202);
        await waitFor(async () => (await getPost(id)).status === "published", "publication");
        const sent = JSON.parse(fake.posts().at(-1)!.body);
        assert.equal(sent.commentary, "The approved words. UNAPPROVED ADDITION");
      },
    );

    await t.step("a scheduled post edited live just before its slot is not sent", async () => {
      const { wsId, approvedPost, schedule, getPost } = await connected();
      const id = await approvedPost("Scheduled and approved.");
      const calls = fake.posts().length;
      const slot = Date.now() + 2_500;
      assert.equal((await schedule(id, new Date(slot).toISOString())).status, 200);
      await new Promise((r) => setTimeout(r, Math.max(0, slot - Date.now() - 600)));
      await editLive(wsId, id, " Changed at the last moment");
      let post: Record<string, unknown> = {};
      await waitFor(async () => {
        post = await getPost(id);
        return post.status !== "scheduled" && Date.now() > slot + 1_500;
      }, "the slot to pass");
      assert.equal(post.status, "in_review");
      assert.equal(post.scheduled_at, null);
      assert.equal(fake.posts().length, calls, "LinkedIn received nothing");
    });

    await t.step("each voided approval is in the review history", async () => {
      const { wsId, approvedPost } = await fresh();
      const id = await approvedPost("First words");
      const edit = await api(stack, "PUT", `/api/posts/${id}`, {
        token: author.access_token,
        body: { workspace_id: wsId, content: "Second words" },
      });
      assert.equal(edit.body.status, "in_review");
      await api(stack, "POST", `/api/posts/${id}/reviews`, {
        token: owner.access_token,
        body: { workspace_id: wsId, decision: "approve" },
      });
      const reviews = await api(stack, "GET", `/api/posts/${id}/reviews?workspaceId=${wsId}`, {
        token: viewer.access_token,
      });
      assert.deepEqual(
        reviews.body.items.map((r: Record<string, string>) => [
          r.decision,
          r.reviewer_name,
          r.note,
        ]),
        [
          ["approve", "Olga Owner", null],
          ["voided", "Olga Owner", "text changed after approval"],
          ["approve", "Olga Owner", null],
        ],
      );
    });

    await t.step("schedule rules: 409 unapproved, 400 past, next slot, 400 no slots", async () => {
      const { wsId, approvedPost, schedule } = await connected();
      const draft = await api(stack, "POST", "/api/posts", {
        token: author.access_token,
        body: { workspace_id: wsId, content: "Draft" },
      });
      const notApproved = await schedule(draft.body.post_id);
      assert.equal(notApproved.status, 409);
      const id = await approvedPost("Slot me");
      const past = await schedule(id, "2020-01-01T00:00:00Z");
      assert.equal(past.status, 400);
      assert.match(past.body.error, /future/);
      const noSlots = await schedule(id);
      assert.deepEqual([noSlots.status, noSlots.body.error], [400, "No publishing slots"]);
      const slots = ["Mon 09:00", "Wed 14:30"];
      await api(stack, "PUT", `/api/workspaces/${wsId}`, {
        token: owner.access_token,
        body: { publishing_slots: slots },
      });
      const first = await schedule(id);
      assert.equal(first.status, 200, JSON.stringify(first.body));
      assert.equal(first.body.status, "scheduled");
      const expected = nextFreeSlot(slots, "Europe/Zurich", Date.now())!;
      assert.equal(Date.parse(first.body.scheduled_at), expected);
      const other = await approvedPost("Slot me too");
      const second = await schedule(other);
      assert.equal(
        Date.parse(second.body.scheduled_at),
        nextFreeSlot(slots, "Europe/Zurich", Date.now(), new Set([expected])),
      );
      const cancelled = await api(
        stack,
        "DELETE",
        `/api/posts/${id}/schedule?workspaceId=${wsId}`,
        {
          token: author.access_token,
        },
      );
      assert.equal(cancelled.status, 200);
      assert.equal(cancelled.body.status, "approved");
      assert.equal(cancelled.body.scheduled_at, null);
      // a text change cancels the other schedule and sends it back to review
      const edited = await api(stack, "PUT", `/api/posts/${other}`, {
        token: author.access_token,
        body: { workspace_id: wsId, content: "Changed after approval" },
      });
      assert.equal(edited.body.status, "in_review");
      assert.equal(edited.body.scheduled_at, null);
    });

    await t.step("disconnect: 403 viewer, 204 editor", async () => {
      const { wsId } = await connected();
      const byViewer = await api(stack, "DELETE", `/api/workspaces/${wsId}/linkedin`, {
        token: viewer.access_token,
      });
      assert.equal(byViewer.status, 403);
      const ok = await api(stack, "DELETE", `/api/workspaces/${wsId}/linkedin`, {
        token: author.access_token,
      });
      assert.equal(ok.status, 204);
      const gone = await api(stack, "GET", `/api/workspaces/${wsId}/linkedin`, {
        token: viewer.access_token,
      });
      assert.deepEqual(gone.body, {
        connected: false,
        name: null,
        member_urn: null,
        expires_at: null,
        connected_by: null,
        organizations: [],
      });
    });
  } finally {
    await stack.close();
    await fake.close();
  }
});

Deno.test("connect answers 503 when LinkedIn is not configured", e2e, async () => {
  const stack = await startTestStack();
  try {
    const owner = await createUser(stack);
    const ws = await api(stack, "POST", "/api/workspaces", {
      token: owner.access_token,
      body: { name: "No LinkedIn" },
    });
    const res = await api(
      stack,
      "POST",
      `/api/workspaces/${ws.body.workspace_id}/linkedin/connect`,
      {
        token: owner.access_token,
      },
    );
    assert.deepEqual([res.status, res.body], [503, { error: "LinkedIn is not configured" }]);
  } finally {
    await stack.close();
  }
});

Deno.test("MCP list_posts lists drafts that were never reviewed", e2e, async () => {
  const stack = await startTestStack();
  try {
    const author = await createUser(stack);
    const ws = await api(stack, "POST", "/api/workspaces", {
      token: author.access_token,
      body: { name: "Drafts" },
    });
    const wsId = ws.body.workspace_id;
    const draft = await api(stack, "POST", "/api/posts", {
      token: author.access_token,
      body: { workspace_id: wsId, title: "Fresh draft", content: "Not reviewed yet" },
    });
    assert.equal(draft.status, 201, JSON.stringify(draft.body));
    const all = await mcpCall(stack, author, "list_posts", { workspace_id: wsId });
    assert.deepEqual(all.posts?.map((p: { post_id: string }) => p.post_id), [
      draft.body.post_id,
    ], JSON.stringify(all));
    assert.deepEqual([all.posts[0].title, all.posts[0].status], ["Fresh draft", "draft"]);
    const drafts = await mcpCall(stack, author, "list_posts", {
      workspace_id: wsId,
      status: "draft",
    });
    assert.equal(drafts.posts?.length, 1, JSON.stringify(drafts));
  } finally {
    await stack.close();
  }
});
