import assert from "node:assert/strict";
import { startFakeLinkedIn } from "./fakes/linkedin.ts";
import { api, e2e, startTestStack } from "./helpers/stack.ts";
import { createUser } from "./helpers/users.ts";
import { openEditor } from "./helpers/live_editor.ts";
import { linkedInEnv, publishingFixtures } from "./helpers/linkedin_publishing.ts";
import { waitFor } from "./helpers/wait.ts";
import { PNG, sha256, uploadMedia } from "./helpers/media_files.ts";

Deno.test("the calendar and post versions", e2e, async (t) => {
  const fake = startFakeLinkedIn();
  const stack = await startTestStack({ ...linkedInEnv(fake), POSTS_LIVE_TEXT_CHECK_MS: "600000" });
  try {
    const owner = await createUser(stack, { name: "Olga Owner" });
    const author = await createUser(stack, { name: "Anna Author" });
    const viewer = await createUser(stack, { name: "Vic Viewer" });
    const { connected, published } = publishingFixtures(stack, { owner, author, viewer });
    const calendar = (wsId: string, from: string, to: string, token = viewer.access_token) =>
      api(stack, "GET", `/api/workspaces/${wsId}/calendar?from=${from}&to=${to}`, { token });
    const setWorkspace = (wsId: string, body: Record<string, unknown>) =>
      api(stack, "PUT", `/api/workspaces/${wsId}`, { token: owner.access_token, body });

    await t.step(
      "calendar ranges: 400 for bad days, reversed or over 62 days; 403 outsiders",
      async () => {
        const { wsId } = await connected();
        for (
          const [from, to, message] of [
            ["2027-02-30", "2027-03-01", /from must be a date/],
            ["2027-03-01", "March", /to must be a date/],
            ["2027-03-02", "2027-03-01", /to must not be before from/],
            ["2027-01-01", "2027-03-04", /at most 62 days/],
          ]
        ) {
          const res = await calendar(wsId, from as string, to as string);
          assert.equal(res.status, 400, `${from}..${to}`);
          assert.match(res.body.error, message as RegExp);
        }
        assert.equal((await calendar(wsId, "2027-01-01", "2027-03-03")).status, 200);
        const missing = await api(
          stack,
          "GET",
          `/api/workspaces/${wsId}/calendar?from=2027-01-01`,
          {
            token: viewer.access_token,
          },
        );
        assert.equal(missing.status, 400);
        const outsider = await createUser(stack);
        assert.equal(
          (await calendar(wsId, "2027-01-01", "2027-01-02", outsider.access_token)).status,
          403,
        );
      },
    );

    await t.step(
      "days are the workspace's: a post at 23:30 in New York is on that day",
      async () => {
        const { wsId, approvedPost, schedule } = await connected();
        await setWorkspace(wsId, { timezone: "America/New_York", publishing_slots: [] });
        const id = await approvedPost("Late evening post");
        assert.equal((await schedule(id, "2027-12-01T04:30:00Z")).status, 200);
        const nov30 = await calendar(wsId, "2027-11-30", "2027-11-30");
        assert.equal(nov30.body.timezone, "America/New_York");
        assert.deepEqual(nov30.body.items, [{
          kind: "scheduled",
          at: "2027-12-01T04:30:00.000+00:00",
          post_id: id,
          title: nov30.body.items[0]?.title,
          status: "scheduled",
        }]);
        assert.deepEqual((await calendar(wsId, "2027-12-01", "2027-12-01")).body.items, []);
      },
    );

    await t.step("slots across a DST change, and a scheduled post takes its slot", async () => {
      const { wsId, approvedPost, schedule } = await connected();
      await setWorkspace(wsId, {
        timezone: "Europe/Zurich",
        publishing_slots: ["Sun 02:30", "Mon 09:00"],
      });
      // Zurich springs forward on Sunday 2027-03-28 at 02:00: 02:30 does not exist that day.
      const res = await calendar(wsId, "2027-03-21", "2027-03-29");
      const slots = res.body.items.filter((i: { kind: string }) => i.kind === "slot")
        .map((i: { at: string }) => i.at);
      assert.deepEqual(slots, [
        "2027-03-21T01:30:00.000+00:00",
        "2027-03-22T08:00:00.000+00:00",
        "2027-03-28T01:30:00.000+00:00",
        "2027-03-29T07:00:00.000+00:00",
      ]);
      const id = await approvedPost("In a slot");
      assert.equal((await schedule(id, "2027-03-22T08:00:00Z")).status, 200);
      const after = await calendar(wsId, "2027-03-22", "2027-03-22");
      assert.deepEqual(
        after.body.items.map((i: { kind: string; post_id: string | null }) => [i.kind, i.post_id]),
        [["scheduled", id]],
      );
    });

    await t.step("published posts are on the day they went out", async () => {
      const fixture = await connected();
      const id = await published(fixture, "Out now");
      // The fixture's workspace is on Zurich time.
      const today = new Intl.DateTimeFormat("en-CA", { timeZone: "Europe/Zurich" }).format(
        new Date(),
      );
      const res = await calendar(fixture.wsId, today, today);
      const found = res.body.items.find((i: { post_id: string }) => i.post_id === id);
      assert.equal(found?.kind, "published");
    });

    await t.step(
      "versions: approval, save and publication, newest first, with their labels",
      async () => {
        const fixture = await connected();
        const id = await published(fixture, "Versioned text");
        const save = await api(stack, "POST", `/api/posts/${id}/versions`, {
          token: viewer.access_token,
          body: { workspace_id: fixture.wsId, label: "after launch" },
        });
        assert.equal(save.status, 201);
        assert.equal(save.body.label, "after launch");
        const list = await api(
          stack,
          "GET",
          `/api/posts/${id}/versions?workspaceId=${fixture.wsId}`,
          {
            token: viewer.access_token,
          },
        );
        assert.equal(list.status, 200);
        assert.deepEqual(list.body.items.map((v: { reason: string }) => v.reason), [
          "saved",
          "published",
          "approved",
        ]);
        assert.equal(list.body.count, 3);
        const [saved, pub, approved] = list.body.items;
        assert.equal(saved.created_by_name, "Vic Viewer");
        assert.equal(saved.label, "after launch", "the list says why: a saved version's label");
        assert.equal(pub.label, null);
        assert.equal(pub.created_by_name, "Anna Author");
        assert.equal(approved.created_by, owner.user_id);
        const one = await api(
          stack,
          "GET",
          `/api/posts/${id}/versions/${approved.version_id}?workspaceId=${fixture.wsId}`,
          { token: viewer.access_token },
        );
        assert.equal(one.body.text, "Versioned text");
        assert.deepEqual(one.body.media, []);
        assert.equal(one.body.publish_as, "member");
        const unknown = await api(
          stack,
          "GET",
          `/api/posts/${id}/versions/01J000000000000000000000?workspaceId=${fixture.wsId}`,
          { token: viewer.access_token },
        );
        assert.equal(unknown.status, 404);
        assert.equal(unknown.body.error, "Version not found");
      },
    );

    await t.step(
      "restoring a version: owners and editors, seen live, voids an approval",
      async () => {
        const { wsId, approvedPost, getPost } = await connected();
        const id = await approvedPost("First wording");
        const [approved] =
          (await api(stack, "GET", `/api/posts/${id}/versions?workspaceId=${wsId}`, {
            token: author.access_token,
          })).body.items;
        const editor = await openEditor(stack, author, wsId, id);
        try {
          await api(stack, "PUT", `/api/posts/${id}`, {
            token: author.access_token,
            body: { workspace_id: wsId, content: "Second wording" },
          });
          await waitFor(
            () => editor.text.toString() === "Second wording",
            "the edit in the editor",
          );
          // Approve the second wording, then go back to the first.
          await api(stack, "POST", `/api/posts/${id}/reviews`, {
            token: owner.access_token,
            body: { workspace_id: wsId, decision: "approve" },
          });
          assert.equal((await getPost(id)).status, "approved");
          const path = `/api/posts/${id}/versions/${approved.version_id}/restore`;
          const byViewer = await api(stack, "POST", path, {
            token: viewer.access_token,
            body: { workspace_id: wsId },
          });
          assert.equal(byViewer.status, 403);
          assert.equal(byViewer.body.error, "Owner or editor role required");
          const restored = await api(stack, "POST", path, {
            token: author.access_token,
            body: { workspace_id: wsId },
          });
          assert.equal(restored.status, 200, JSON.stringify(restored.body));
          assert.equal(restored.body.content, "First wording");
          assert.equal(restored.body.status, "in_review");
          await waitFor(
            () => editor.text.toString() === "First wording",
            "the restore in the editor",
          );
        } finally {
          editor.provider.destroy();
        }
        const reasons = (await api(stack, "GET", `/api/posts/${id}/versions?workspaceId=${wsId}`, {
          token: author.access_token,
        })).body.items.map((v: { reason: string }) => v.reason);
        assert.deepEqual(reasons, ["restored", "approved", "approved"]);
      },
    );
    await t.step(
      "restoring a version brings back the media it holds, even ones deleted since",
      async () => {
        const { wsId, getPost } = await connected();
        const created = await api(stack, "POST", "/api/posts", {
          token: author.access_token,
          body: { workspace_id: wsId, title: "With a picture", content: "Look at this" },
        });
        const id = created.body.post_id as string;
        const mediaId = await uploadMedia(stack, author.access_token, {
          workspaceId: wsId,
          postId: id,
        }, { filename: "team.png", contentType: "image/png", bytes: PNG });
        const saved = await api(stack, "POST", `/api/posts/${id}/versions`, {
          token: author.access_token,
          body: { workspace_id: wsId, label: "with the picture" },
        });
        assert.equal(saved.status, 201);
        const removed = await api(
          stack,
          "DELETE",
          `/api/posts/${id}/media/${mediaId}?workspaceId=${wsId}`,
          { token: author.access_token },
        );
        assert.equal(removed.status, 204);
        assert.deepEqual((await getPost(id)).media, []);

        const restored = await api(
          stack,
          "POST",
          `/api/posts/${id}/versions/${saved.body.version_id}/restore`,
          { token: author.access_token, body: { workspace_id: wsId } },
        );
        assert.equal(restored.status, 200, JSON.stringify(restored.body));
        assert.deepEqual(
          restored.body.media.map((m: { media_id: string }) => m.media_id),
          [mediaId],
          "the version's media are the post's again",
        );
        const [media] = (await getPost(id)).media;
        const download = await fetch(media.downloadUrl);
        assert.equal(download.status, 200);
        assert.equal(await sha256(new Uint8Array(await download.arrayBuffer())), await sha256(PNG));
      },
    );
  } finally {
    await stack.close();
    await fake.close();
  }
});
