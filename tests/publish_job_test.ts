import assert from "node:assert/strict";
import { startFakeLinkedIn } from "./fakes/linkedin.ts";
import { readOutbox, settledOutboxLength, waitForOutbox } from "./helpers/outbox.ts";
import { api, e2e, startTestStack } from "./helpers/stack.ts";
import { createUser } from "./helpers/users.ts";
import { nextFreeSlot } from "../services/posts/slots.ts";
import {
  connectLinkedIn,
  linkedInEnv,
  mcpCall,
  publishingFixtures,
} from "./helpers/linkedin_publishing.ts";
import { settledValue, waitFor } from "./helpers/wait.ts";

/**
 * The publish job against the fake LinkedIn: the exact request, retries, failures, expiry, the
 * MCP tools, a crash mid-call and a restore.
 */
Deno.test("the publish job: exactly once, exactly what was approved", e2e, async (t) => {
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
    const { fresh, connected, published, metric } = publishingFixtures(stack, {
      owner,
      author,
      viewer,
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
        "media_count",
        "post_id",
        "publish_as",
        "status",
        "title",
        "updated_at",
      ]);
      assert.deepEqual([listed.posts[0].media_count, listed.posts[0].publish_as], [0, "member"]);
      assert.ok(listed.posts.every((p: { status: string }) => p.status === "published"));
      const draft = await api(stack, "POST", "/api/posts", {
        token: author.access_token,
        body: { workspace_id: wsId, title: "Via MCP", content: "Agent text" },
      });
      const id = draft.body.post_id;
      const comment = await mcpCall(stack, author, "set_first_comment", {
        workspace_id: wsId,
        post_id: id,
        first_comment: "More in the comments",
      });
      assert.deepEqual(comment, {
        post_id: id,
        first_comment: "More in the comments",
        status: "draft",
      });
      const tooLong = await mcpCall(stack, author, "set_first_comment", {
        workspace_id: wsId,
        post_id: id,
        first_comment: "x".repeat(1251),
      });
      assert.ok(tooLong.error, "a first comment over 1,250 characters is refused");
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
      assert.deepEqual([scheduled.media_count, scheduled.publish_as], [0, "member"]);
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
  } finally {
    await stack.close();
    await fake.close();
  }
});
