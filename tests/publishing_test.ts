import assert from "node:assert/strict";
import { startFakeLinkedIn } from "./fakes/linkedin.ts";
import { readOutbox, settledOutboxLength, waitForOutbox } from "./helpers/outbox.ts";
import { processEnv, startServiceProcess } from "./helpers/process_stack.ts";
import { api, e2e, freePort, startTestStack, TEST_ADMIN, type TestStack } from "./helpers/stack.ts";
import { createUser, loginAdmin, type TestUser } from "./helpers/users.ts";
import { createWorkspace } from "./helpers/workspaces.ts";
import { openEditor } from "./helpers/live_editor.ts";
import { nextFreeSlot } from "../services/posts/slots.ts";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { settledValue, waitFor } from "./helpers/wait.ts";

/** Calls an MCP tool over Streamable HTTP as `user`; the parsed answer (or the error text). */
async function mcpCall(stack: TestStack, user: TestUser, name: string, args: unknown) {
  const client = new Client({ name: "publishing-test", version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${stack.url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${user.access_token}` } },
    }),
  );
  try {
    const result = await client.callTool({ name, arguments: args as Record<string, unknown> });
    const text = (result.content as { text: string }[])[0].text;
    return result.isError ? { error: text } : JSON.parse(text);
  } finally {
    await client.close();
  }
}

/** `name=value` of the `Set-Cookie` that binds a LinkedIn connect to its browser. */
function connectCookie(headers: Headers): string {
  const cookie = headers.getSetCookie().find((c) => c.startsWith("cp_linkedin_connect="));
  assert.ok(cookie, "connect sets the browser-binding cookie");
  return cookie.split(";")[0];
}

/**
 * Starts a connect as `user` and goes through the fake's consent: the callback URL LinkedIn
 * sends the browser to, and the cookie the starting browser holds.
 */
async function startConnect(stack: { url: string }, user: { access_token: string }, wsId: string) {
  const connect = await api(stack, "POST", `/api/workspaces/${wsId}/linkedin/connect`, {
    token: user.access_token,
  });
  assert.equal(connect.status, 200, JSON.stringify(connect.body));
  const authorize = new URL(connect.body.authorize_url);
  const consent = await fetch(authorize, { redirect: "manual" });
  await consent.body?.cancel();
  assert.equal(consent.status, 302);
  const callback = new URL(consent.headers.get("location")!);
  assert.equal(callback.origin + callback.pathname, `${stack.url}/oauth/linkedin/callback`);
  return { authorize, callback, cookie: connectCookie(connect.headers), connect };
}

/** The callback as a browser holding `cookie` (or none) follows it. */
async function followCallback(callback: URL, cookie: string | null) {
  const res = await fetch(callback, {
    redirect: "manual",
    headers: cookie ? { cookie } : {},
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, text };
}

/** Goes through LinkedIn's consent as a browser would: connect, the fake's redirect, callback. */
async function connectLinkedIn(stack: TestStack, user: TestUser, wsId: string) {
  const { authorize, callback, cookie } = await startConnect(stack, user, wsId);
  const back = await followCallback(callback, cookie);
  return { authorize, callback, back, cookie };
}

/** The LinkedIn settings that point the service at the fake. */
function linkedInEnv(fake: ReturnType<typeof startFakeLinkedIn>) {
  return {
    LINKEDIN_CLIENT_ID: fake.clientId,
    LINKEDIN_CLIENT_SECRET: fake.clientSecret,
    LINKEDIN_AUTH_URL: fake.authUrl,
    LINKEDIN_API_URL: fake.apiUrl,
  };
}

Deno.test("LinkedIn publishing end to end", e2e, async (t) => {
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

    /**
     * A fresh workspace of the owner's (author editor, viewer viewer, approval required, Zurich
     * time) with the routes bound to it: each step starts from its own.
     */
    const fresh = async () => {
      const wsId = await createWorkspace(stack, owner, "Publishing", [
        [author, "editor"],
        [viewer, "viewer"],
      ]);
      const set = await api(stack, "PUT", `/api/workspaces/${wsId}`, {
        token: owner.access_token,
        body: { approval_required: true, timezone: "Europe/Zurich" },
      });
      assert.equal(set.status, 200, JSON.stringify(set.body));

      /** A post by the author, approved by the owner. */
      const approvedPost = async (content: string) => {
        const p = await api(stack, "POST", "/api/posts", {
          token: author.access_token,
          body: { workspace_id: wsId, title: "T " + content.slice(0, 10), content },
        });
        await api(stack, "POST", `/api/posts/${p.body.post_id}/review-requests`, {
          token: author.access_token,
          body: { workspace_id: wsId, reviewer_ids: [owner.user_id] },
        });
        const ok = await api(stack, "POST", `/api/posts/${p.body.post_id}/reviews`, {
          token: owner.access_token,
          body: { workspace_id: wsId, decision: "approve" },
        });
        assert.equal(ok.body.status, "approved");
        return p.body.post_id as string;
      };
      const getPost = async (id: string) =>
        (await api(stack, "GET", `/api/posts/${id}?workspaceId=${wsId}`, {
          token: author.access_token,
        })).body;
      const schedule = (id: string, at?: string) =>
        api(stack, "POST", `/api/posts/${id}/schedule`, {
          token: author.access_token,
          body: { workspace_id: wsId, at },
        });
      const publishNow = (id: string) =>
        api(stack, "POST", `/api/posts/${id}/publish`, {
          token: author.access_token,
          body: { workspace_id: wsId },
        });
      return { wsId, approvedPost, getPost, schedule, publishNow };
    };
    /** `fresh()` with LinkedIn connected by the author. */
    const connected = async () => {
      const fixture = await fresh();
      const { back } = await connectLinkedIn(stack, author, fixture.wsId);
      assert.equal(back.status, 302);
      return fixture;
    };
    /** Publishes an approved post now and waits until it is published. */
    const published = async (fixture: Awaited<ReturnType<typeof fresh>>, content: string) => {
      const id = await fixture.approvedPost(content);
      assert.equal((await fixture.publishNow(id)).status, 202);
      await waitFor(
        async () => (await fixture.getPost(id)).status === "published",
        "publication",
        30_000,
      );
      return id;
    };
    const metric = async () => {
      const admin = await loginAdmin(stack);
      const res = await api(stack, "GET", "/api/admin/metrics", { token: admin.access_token });
      return res.body.posts_published_last_30_days as number;
    };

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

    await t.step("at scheduled_at: the exact LinkedIn request, escaped, published", async () => {
      const { wsId, approvedPost, getPost, schedule } = await connected();
      const before = await metric();
      const sent = fake.posts().length;
      const text = "Hi @team (v2) [draft] <b> #launch *bold* _it_ ~x~ {a|b} back\\slash";
      const id = await approvedPost(text);
      const at = new Date(Date.now() + 2_000).toISOString();
      const res = await schedule(id, at);
      assert.equal(res.status, 200, JSON.stringify(res.body));
      await waitFor(async () => (await getPost(id)).status === "published", "publication", 60_000);
      const calls = fake.posts().slice(sent);
      assert.equal(calls.length, 1);
      const call = calls[0];
      assert.ok(call.headers.authorization.startsWith("Bearer token-"));
      assert.equal(call.headers["linkedin-version"], "202610");
      assert.equal(call.headers["x-restli-protocol-version"], "2.0.0");
      assert.equal(call.headers["content-type"], "application/json");
      assert.deepEqual(JSON.parse(call.body), {
        author: `urn:li:person:${fake.member.sub}`,
        commentary: "Hi \\@team \\(v2\\) \\[draft\\] \\<b\\> \\#launch \\*bold\\* \\_it\\_ " +
          "\\~x\\~ \\{a\\|b\\} back\\\\slash",
        visibility: "PUBLIC",
        distribution: {
          feedDistribution: "MAIN_FEED",
          targetEntities: [],
          thirdPartyDistributionChannels: [],
        },
        lifecycleState: "PUBLISHED",
        isReshareDisabledByAuthor: false,
      });
      const post = await getPost(id);
      assert.match(post.linkedin_post_urn, /^urn:li:share:\d+$/);
      assert.equal(
        post.linkedin_post_url,
        `https://www.linkedin.com/feed/update/${post.linkedin_post_urn}/`,
      );
      assert.ok(Date.parse(post.published_at) >= Date.parse(at));
      assert.ok(Date.parse(post.published_at) - Date.parse(at) < 60_000);
      assert.equal(post.publish_error, null);
      await waitForOutbox(
        stack.outboxFile,
        (l) =>
          l.template === "post_published" && l.to === author.email && l.data.url ===
            `${stack.env.PUBLIC_URL}/workspaces/${wsId}/posts/${id}`,
      );
      assert.equal(await metric(), before + 1);
    });

    await t.step("429 twice, then exactly one publication", async () => {
      const { approvedPost, getPost, publishNow } = await connected();
      const before = await metric();
      const id = await approvedPost("Retry me");
      fake.failures.push(429, 429);
      const sent = fake.posts().length;
      const res = await publishNow(id);
      assert.equal(res.status, 202, JSON.stringify(res.body));
      await waitFor(async () => (await getPost(id)).status === "published", "publication", 30_000);
      const calls = fake.posts().slice(sent);
      assert.equal(calls.length, 3);
      // Each 429 said Retry-After: 1.
      for (let i = 1; i < calls.length; i++) {
        assert.ok(calls[i].at - calls[i - 1].at >= 950, `retry ${i} too early`);
      }
      // LinkedIn's calls stop for longer than a retry interval.
      await settledValue(() => fake.posts().length, 1_500);
      assert.equal(fake.posts().length - sent, 3, "no further call");
      assert.equal(await metric(), before + 1);
    });

    await t.step("a 500 is retried, then one publication; author and scheduler DMed", async () => {
      const { wsId, approvedPost, getPost } = await connected();
      const before = await metric();
      const id = await approvedPost("Server hiccup");
      fake.failures.push(500);
      const sent = fake.posts().length;
      // The owner publishes the author's post: both get post_published.
      const res = await api(stack, "POST", `/api/posts/${id}/publish`, {
        token: owner.access_token,
        body: { workspace_id: wsId },
      });
      assert.equal(res.status, 202, JSON.stringify(res.body));
      assert.equal(res.body.status, "scheduled");
      assert.ok(Math.abs(Date.parse(res.body.scheduled_at) - Date.now()) < 5_000);
      await waitFor(async () => (await getPost(id)).status === "published", "publication", 30_000);
      const calls = fake.posts().slice(sent);
      assert.equal(calls.length, 2, "the 500, then the one that went through");
      // No Retry-After on the 500: the service's own backoff (5 s first), never at once.
      assert.ok(
        calls[1].at - calls[0].at >= 4_500,
        `retried after ${calls[1].at - calls[0].at} ms`,
      );
      const post = await getPost(id);
      assert.equal(post.publish_error, null);
      const url = `${stack.env.PUBLIC_URL}/workspaces/${wsId}/posts/${id}`;
      for (const user of [author, owner]) {
        const dm = await waitForOutbox(
          stack.outboxFile,
          (l) => l.template === "post_published" && l.to === user.email && l.data.url === url,
        );
        assert.equal(dm.channel, "dm");
        assert.equal(dm.data.linkedin_post_url, post.linkedin_post_url);
      }
      assert.equal(await metric(), before + 1);
    });

    await t.step(
      "the next free slot keeps its wall-clock time across a DST change (America/New_York)",
      async () => {
        const { wsId, schedule, getPost } = await connected();
        const zone = "America/New_York";
        const set = await api(stack, "PUT", `/api/workspaces/${wsId}`, {
          token: owner.access_token,
          body: { approval_required: false, timezone: zone, publishing_slots: ["Mon 09:00"] },
        });
        assert.equal(set.status, 200, JSON.stringify(set.body));
        // An oracle independent of services/posts/slots.ts: the wall clock Intl shows.
        const wall = new Intl.DateTimeFormat("en-US", {
          timeZone: zone,
          weekday: "short",
          hour: "2-digit",
          minute: "2-digit",
          hourCycle: "h23",
        });
        const newPost = async () =>
          (await api(stack, "POST", "/api/posts", {
            token: author.access_token,
            body: { workspace_id: wsId, title: "Weekly", content: "Weekly post" },
          })).body.post_id as string;
        // Each schedule without `at` takes the next Monday 09:00 not yet taken; keep going
        // until the UTC time of day changes (a DST change; New York has two a year).
        const times: number[] = [];
        const ids: string[] = [];
        const utcTime = (t: number) => new Date(t).toISOString().slice(11, 16);
        while (times.length < 2 || utcTime(times.at(-1)!) === utcTime(times[0])) {
          assert.ok(times.length < 40, "a DST change within 40 weeks");
          const id = await newPost();
          const res = await schedule(id);
          assert.equal(res.status, 200, JSON.stringify(res.body));
          assert.equal(res.body.status, "scheduled");
          const at = Date.parse(res.body.scheduled_at);
          assert.equal(wall.format(at), "Mon 09:00", res.body.scheduled_at);
          if (times.length > 0) {
            // A week later on the wall clock: 7 days, give or take the hour of the change.
            const gap = at - times.at(-1)!;
            assert.ok(
              [7 * 24, 7 * 24 - 1, 7 * 24 + 1].includes(gap / 3_600_000),
              `gap ${gap / 3_600_000} h`,
            );
          }
          times.push(at);
          ids.push(id);
        }
        const gaps = times.slice(1).map((t, i) => (t - times[i]) / 3_600_000);
        assert.equal(gaps.filter((h) => h !== 7 * 24).length, 1, "exactly one DST change");
        // Unscheduled without approval required: back to draft; its slot is free again.
        const freed = await api(
          stack,
          "DELETE",
          `/api/posts/${ids[0]}/schedule?workspaceId=${wsId}`,
          { token: author.access_token },
        );
        assert.equal(freed.status, 200);
        assert.equal(freed.body.status, "draft");
        assert.equal(freed.body.scheduled_at, null);
        const again = await schedule(await newPost());
        assert.equal(Date.parse(again.body.scheduled_at), times[0], "the freed slot");
        assert.equal((await getPost(ids[1])).scheduled_at !== null, true);
      },
    );

    await t.step("a hang is never re-posted: outcome unknown", async () => {
      const { wsId, approvedPost, getPost, publishNow } = await connected();
      const id = await approvedPost("Hang on");
      fake.failures.push("hang");
      const sent = fake.posts().length;
      assert.equal((await publishNow(id)).status, 202);
      await waitFor(async () => (await getPost(id)).publish_error !== null, "the failure", 20_000);
      const post = await getPost(id);
      assert.equal(
        post.publish_error,
        "Publishing outcome unknown; check LinkedIn before retrying",
      );
      assert.equal(post.status, "approved");
      assert.equal(post.scheduled_at, null);
      await settledValue(() => fake.posts().length, 3_000);
      assert.equal(fake.posts().length - sent, 1, "called once, never again");
      await waitForOutbox(
        stack.outboxFile,
        (l) =>
          l.template === "publish_failed" && l.to === author.email && l.data.url ===
            `${stack.env.PUBLIC_URL}/workspaces/${wsId}/posts/${id}`,
      );
    });

    await t.step("426 names LINKEDIN_VERSION", async () => {
      const { approvedPost, getPost, publishNow } = await connected();
      const id = await approvedPost("Old version");
      fake.failures.push(426);
      await publishNow(id);
      await waitFor(async () => (await getPost(id)).publish_error !== null, "the failure");
      assert.match((await getPost(id)).publish_error, /LINKEDIN_VERSION/);
    });

    await t.step("401 marks the connection expired and sends publish_failed", async () => {
      const { wsId, approvedPost, getPost, publishNow, schedule } = await connected();
      const id = await approvedPost("Expired token");
      fake.failures.push(401);
      await publishNow(id);
      await waitFor(async () => (await getPost(id)).publish_error !== null, "the failure");
      const post = await getPost(id);
      assert.equal(post.status, "approved");
      assert.match(post.publish_error, /401/);
      await waitForOutbox(
        stack.outboxFile,
        (l) => l.template === "publish_failed" && l.data.post_title === post.title,
      );
      const conn = await api(stack, "GET", `/api/workspaces/${wsId}/linkedin`, {
        token: author.access_token,
      });
      assert.equal(conn.body.connected, false);
      const again = await schedule(id, new Date(Date.now() + 60_000).toISOString());
      assert.deepEqual([again.status, again.body.error], [409, "LinkedIn is not connected"]);
    });

    await t.step("7 days before expiry, whoever connected gets linkedin_expiring", async () => {
      const { wsId } = await fresh();
      const url = `${stack.env.PUBLIC_URL}/workspaces/${wsId}/settings`;
      fake.expiresIn = 3 * 86_400;
      try {
        const { back } = await connectLinkedIn(stack, owner, wsId);
        assert.equal(back.status, 302);
      } finally {
        fake.expiresIn = 60 * 86_400;
      }
      const dm = await waitForOutbox(
        stack.outboxFile,
        (l) => l.template === "linkedin_expiring" && l.to === owner.email,
      );
      assert.equal(dm.data.url, url);
      // Quiet for over three expiry checks (LINKEDIN_EXPIRY_CHECK_MS is 300): none re-reminds.
      await settledOutboxLength(stack.outboxFile, 1_000);
      const lines = (await readOutbox(stack.outboxFile))
        .filter((l) => l.template === "linkedin_expiring" && l.data.url === url);
      assert.equal(lines.length, 1, "reminded once");
    });

    await t.step("MCP: list_posts, request_review, schedule_post", async () => {
      const fixture = await connected();
      const { wsId } = fixture;
      await Promise.all([published(fixture, "Published one"), published(fixture, "Published two")]);
      const slots = await api(stack, "PUT", `/api/workspaces/${wsId}`, {
        token: owner.access_token,
        body: { publishing_slots: ["Mon 09:00", "Wed 14:30"] },
      });
      assert.equal(slots.status, 200, JSON.stringify(slots.body));
      const listed = await mcpCall(stack, author, "list_posts", {
        workspace_id: wsId,
        status: "published",
      });
      assert.equal(listed.posts.length, 2);
      assert.deepEqual(Object.keys(listed.posts[0]).sort(), [
        "post_id",
        "status",
        "title",
        "updated_at",
      ]);
      assert.ok(listed.posts.every((p: { status: string }) => p.status === "published"));
      const draft = await api(stack, "POST", "/api/posts", {
        token: author.access_token,
        body: { workspace_id: wsId, title: "Via MCP", content: "Agent text" },
      });
      const id = draft.body.post_id;
      const self = await mcpCall(stack, author, "request_review", {
        workspace_id: wsId,
        post_id: id,
        reviewer_ids: [author.user_id],
      });
      assert.match(self.error, /reviewer_ids/);
      const requested = await mcpCall(stack, author, "request_review", {
        workspace_id: wsId,
        post_id: id,
        reviewer_ids: [owner.user_id],
      });
      assert.equal(requested.status, "in_review");
      assert.deepEqual(requested.reviewer_ids, [owner.user_id]);
      const early = await mcpCall(stack, author, "schedule_post", {
        workspace_id: wsId,
        post_id: id,
      });
      assert.match(early.error, /approved/);
      await api(stack, "POST", `/api/posts/${id}/reviews`, {
        token: owner.access_token,
        body: { workspace_id: wsId, decision: "approve" },
      });
      const scheduled = await mcpCall(stack, author, "schedule_post", {
        workspace_id: wsId,
        post_id: id,
      });
      assert.equal(scheduled.status, "scheduled");
      assert.equal(
        Date.parse(scheduled.scheduled_at),
        nextFreeSlot(["Mon 09:00", "Wed 14:30"], "Europe/Zurich", Date.now()),
      );
      const at = new Date(Date.now() + 3 * 86_400_000).toISOString();
      const atPost = await fixture.approvedPost("Via MCP at a time");
      const atScheduled = await mcpCall(stack, author, "schedule_post", {
        workspace_id: wsId,
        post_id: atPost,
        at,
      });
      assert.equal(atScheduled.status, "scheduled");
      assert.equal(Date.parse(atScheduled.scheduled_at), Date.parse(at));
      const past = await mcpCall(stack, author, "schedule_post", {
        workspace_id: wsId,
        post_id: atPost,
        at: "2020-01-01T00:00:00Z",
      });
      assert.match(past.error, /future/);
      const outsider = await createUser(stack);
      const refused = await mcpCall(stack, outsider, "list_posts", { workspace_id: wsId });
      assert.match(refused.error, /Not a workspace member/);
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

Deno.test("a publish call cut by kill -9 is never repeated after the restart", e2e, async () => {
  const fake = startFakeLinkedIn();
  const dataDir = await Deno.makeTempDir({ prefix: "cps-publish-crash-" });
  const port = await freePort();
  const env = processEnv(dataDir, port, {
    ...linkedInEnv(fake),
    LINKEDIN_TIMEOUT_MS: "120000",
  });
  const start = async () => (await startServiceProcess(env)).process;
  const stack = { url: env.PUBLIC_URL };
  let process = await start();
  try {
    const login = await api(stack, "POST", "/api/auth/login", {
      body: { email: TEST_ADMIN.email, password: TEST_ADMIN.password },
    });
    const token = login.body.access_token;
    const ws = await api(stack, "POST", "/api/workspaces", { token, body: { name: "Crash" } });
    const wsId = ws.body.workspace_id;
    const { callback, cookie } = await startConnect(stack, { access_token: token }, wsId);
    const back = await followCallback(callback, cookie);
    assert.equal(back.status, 302);
    const post = await api(stack, "POST", "/api/posts", {
      token,
      body: { workspace_id: wsId, title: "Crash", content: "Mid-call" },
    });
    const id = post.body.post_id;
    fake.failures.push("hang");
    assert.equal(
      (await api(stack, "POST", `/api/posts/${id}/publish`, {
        token,
        body: { workspace_id: wsId },
      }))
        .status,
      202,
    );
    await waitFor(() => fake.posts().length === 1, "the call to LinkedIn");
    process.kill("SIGKILL");
    await process.status;
    process = await start();
    const relogin = await api(stack, "POST", "/api/auth/login", {
      body: { email: TEST_ADMIN.email, password: TEST_ADMIN.password },
    });
    let answer: Record<string, unknown> = {};
    await waitFor(
      async () => {
        answer = (await api(stack, "GET", `/api/posts/${id}?workspaceId=${wsId}`, {
          token: relogin.body.access_token,
        })).body;
        return answer.publish_error !== null;
      },
      "the unknown outcome",
      45_000,
    );
    assert.equal(
      answer.publish_error,
      "Publishing outcome unknown; check LinkedIn before retrying",
    );
    assert.equal(answer.status, "draft");
    assert.equal(fake.posts().length, 1, "never called again");
  } finally {
    process.kill("SIGKILL");
    await process.status.catch(() => {});
    await fake.close();
    await Deno.remove(dataDir, { recursive: true }).catch(() => {});
  }
});

Deno.test(
  "a restore never publishes twice: a passed schedule comes back unscheduled",
  e2e,
  async () => {
    const fake = startFakeLinkedIn();
    const stack = await startTestStack(linkedInEnv(fake));
    try {
      const admin = await loginAdmin(stack);
      const author = await createUser(stack, { name: "Rita Restore" });
      const reviewer = await createUser(stack, { name: "Vera Reviewer" });
      const wsId = await createWorkspace(stack, admin, "Restore", [
        [author, "editor"],
        [reviewer, "editor"],
      ]);
      await api(stack, "PUT", `/api/workspaces/${wsId}`, {
        token: admin.access_token,
        body: { approval_required: true },
      });
      const { back } = await connectLinkedIn(stack, author, wsId);
      assert.equal(back.status, 302);
      const approved = async (content: string) => {
        const p = await api(stack, "POST", "/api/posts", {
          token: author.access_token,
          body: { workspace_id: wsId, title: content, content },
        });
        const id = p.body.post_id as string;
        await api(stack, "POST", `/api/posts/${id}/review-requests`, {
          token: author.access_token,
          body: { workspace_id: wsId, reviewer_ids: [reviewer.user_id] },
        });
        await api(stack, "POST", `/api/posts/${id}/reviews`, {
          token: reviewer.access_token,
          body: { workspace_id: wsId, decision: "approve" },
        });
        return id;
      };
      const getPost = async (id: string) =>
        (await api(stack, "GET", `/api/posts/${id}?workspaceId=${wsId}`, {
          token: author.access_token,
        })).body;
      const soon = await approved("Goes out right after the backup");
      const later = await approved("Goes out next week");
      const nextWeek = new Date(Date.now() + 7 * 86_400_000).toISOString();
      const soonAt = Date.now() + 2_000;
      for (const [id, at] of [[soon, new Date(soonAt).toISOString()], [later, nextWeek]]) {
        const res = await api(stack, "POST", `/api/posts/${id}/schedule`, {
          token: author.access_token,
          body: { workspace_id: wsId, at },
        });
        assert.equal(res.status, 200, JSON.stringify(res.body));
      }
      const backup = await api(stack, "POST", "/api/admin/backups", { token: admin.access_token });
      assert.equal(backup.status, 201, JSON.stringify(backup.body));
      await waitFor(
        async () => (await getPost(soon)).status === "published",
        "publication",
        30_000,
      );
      assert.equal(fake.posts().length, 1);

      const restore = await api(stack, "POST", "/api/admin/backups/restore", {
        token: admin.access_token,
        body: { key: backup.body.key },
      });
      assert.equal(restore.status, 200, JSON.stringify(restore.body));
      await waitFor(
        async () => {
          const job = await api(stack, "GET", `/api/admin/restores/${restore.body.job_id}`, {
            token: admin.access_token,
          });
          assert.notEqual(job.body.status, "failed", JSON.stringify(job.body));
          return job.body.status === "succeeded";
        },
        "the restore job",
        30_000,
      );

      const restored = await getPost(soon);
      assert.deepEqual(
        [restored.status, restored.scheduled_at, restored.publish_error],
        ["approved", null, "Restored from a backup: check LinkedIn before publishing"],
      );
      const kept = await getPost(later);
      assert.deepEqual([kept.status, Date.parse(kept.scheduled_at)], [
        "scheduled",
        Date.parse(nextWeek),
      ]);
      // Nothing is published again, however long the queue runs.
      await settledValue(() => fake.posts().length, 1_500);
      assert.equal(fake.posts().length, 1, "LinkedIn got the post once");
    } finally {
      await stack.close();
      await fake.close();
    }
  },
);
