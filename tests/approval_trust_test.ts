import assert from "node:assert/strict";
import { startFakeLinkedIn } from "./fakes/linkedin.ts";
import { api, e2e, startTestStack } from "./helpers/stack.ts";
import { createUser } from "./helpers/users.ts";
import { linkedInEnv, publishingFixtures } from "./helpers/linkedin_publishing.ts";
import { openEditor } from "./helpers/live_editor.ts";
import { GIF, PNG, sha256 } from "./helpers/media_files.ts";
import { waitFor } from "./helpers/wait.ts";

/**
 * What goes out is what was approved, probed through the public interface: approvals racing
 * live edits, media bytes arriving after an approval, and schedules moved behind the publish
 * job's back.
 */
Deno.test("an approval covers exactly what its reviewer was shown", e2e, async (t) => {
  const fake = startFakeLinkedIn();
  const stack = await startTestStack({ ...linkedInEnv(fake), LINKEDIN_TIMEOUT_MS: "1500" });
  try {
    const owner = await createUser(stack, { name: "Olga Owner" });
    const author = await createUser(stack, { name: "Anna Author" });
    const viewer = await createUser(stack, { name: "Vic Viewer" });
    const { connected } = publishingFixtures(stack, { owner, author, viewer });

    await t.step(
      "a review link's approval never covers a live edit made after the link was opened",
      async () => {
        const { wsId } = await connected();
        let approved = 0;
        const unseen: string[] = [];
        for (let round = 0; round < 24; round++) {
          const shown = `Shown to the clients, round ${round}`;
          const p = await api(stack, "POST", "/api/posts", {
            token: author.access_token,
            body: { workspace_id: wsId, content: shown },
          });
          const id = p.body.post_id;
          const tokens: string[] = [];
          for (let i = 0; i < 25; i++) {
            const made = await api(stack, "POST", `/api/posts/${id}/review-links`, {
              token: owner.access_token,
              body: { workspace_id: wsId, reviewer_name: `Client ${i}` },
            });
            assert.equal(made.status, 201, JSON.stringify(made.body));
            tokens.push(new URL(made.body.url).pathname.slice("/review/".length));
          }
          // A co-author keeps typing and taking back one character while the clients decide:
          // the live text is the one the links showed part of the time.
          const editor = await openEditor(stack, author, wsId, id);
          const typing = setInterval(() => {
            if (editor.text.toString().endsWith("!")) {
              editor.text.delete(editor.text.length - 1, 1);
            } else editor.text.insert(editor.text.length, "!");
          }, 1);
          try {
            await Promise.all(tokens.map(async (token) => {
              const res = await fetch(`${stack.url}/api/review-links/${token}/decision`, {
                method: "POST",
                headers: { "content-type": "application/json" },
                body: JSON.stringify({ decision: "approve" }),
              });
              const body = await res.json();
              // Approved, the link died with the change, or the post was approved already.
              assert.ok([200, 404, 409].includes(res.status), JSON.stringify(body));
            }));
          } finally {
            clearInterval(typing);
            editor.provider.destroy();
          }
          const versions = await api(
            stack,
            "GET",
            `/api/posts/${id}/versions?workspaceId=${wsId}`,
            { token: author.access_token },
          );
          for (const v of versions.body.items) {
            if (v.reason !== "approved") continue;
            approved++;
            const version = await api(
              stack,
              "GET",
              `/api/posts/${id}/versions/${v.version_id}?workspaceId=${wsId}`,
              { token: author.access_token },
            );
            if (version.body.text !== shown) unseen.push(version.body.text);
          }
        }
        assert.ok(approved > 0, "some approvals went through");
        assert.deepEqual(unseen, [], "clients approved texts they were never shown");
      },
    );
    await t.step(
      "an image whose bytes have not arrived cannot be approved, so none arrive after",
      async () => {
        const { wsId, getPost, publishNow } = await connected();
        const p = await api(stack, "POST", "/api/posts", {
          token: author.access_token,
          body: { workspace_id: wsId, content: "Picture to come" },
        });
        const id = p.body.post_id;
        const media = await api(stack, "POST", `/api/posts/${id}/media`, {
          token: author.access_token,
          body: {
            workspace_id: wsId,
            filename: "team.png",
            contentType: "image/png",
            size: PNG.length,
          },
        });
        assert.equal(media.status, 201, JSON.stringify(media.body));
        await api(stack, "POST", `/api/posts/${id}/review-requests`, {
          token: author.access_token,
          body: { workspace_id: wsId, reviewer_ids: [owner.user_id] },
        });
        const approve = () =>
          api(stack, "POST", `/api/posts/${id}/reviews`, {
            token: owner.access_token,
            body: { workspace_id: wsId, decision: "approve" },
          });
        // The reviewer would approve an empty frame: refused, nothing recorded.
        const early = await approve();
        assert.equal(early.status, 409, JSON.stringify(early.body));
        assert.equal(
          early.body.error,
          "team.png has not been uploaded yet: approve once its upload is complete",
        );
        assert.equal((await getPost(id)).status, "in_review");
        // Nor through a review link.
        const made = await api(stack, "POST", `/api/posts/${id}/review-links`, {
          token: owner.access_token,
          body: { workspace_id: wsId, reviewer_name: "Clara Client" },
        });
        const token = new URL(made.body.url).pathname.slice("/review/".length);
        const byLink = await fetch(`${stack.url}/api/review-links/${token}/decision`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ decision: "approve" }),
        });
        assert.equal(byLink.status, 409);
        assert.equal(
          (await byLink.json()).error,
          "team.png has not been uploaded yet: approve once its upload is complete",
        );
        const history = await api(stack, "GET", `/api/posts/${id}/reviews?workspaceId=${wsId}`, {
          token: author.access_token,
        });
        assert.equal(history.body.count, 0);
        // Once the bytes are there the reviewer sees them and approves; LinkedIn gets those.
        const put = await fetch(media.body.uploadUrl, {
          method: "PUT",
          headers: { "content-type": "image/png" },
          body: PNG,
        });
        await put.body?.cancel();
        assert.equal(put.status, 200);
        const shown = await getPost(id);
        const seen = new Uint8Array(await (await fetch(shown.media[0].downloadUrl)).arrayBuffer());
        assert.equal(await sha256(seen), await sha256(PNG));
        const ok = await approve();
        assert.equal(ok.status, 200, JSON.stringify(ok.body));
        assert.equal(ok.body.status, "approved");
        // The URL took its one body: other bytes cannot follow the approval.
        const again = await fetch(media.body.uploadUrl, {
          method: "PUT",
          headers: { "content-type": "image/png" },
          body: GIF,
        });
        await again.body?.cancel();
        assert.equal(again.status, 409);
        const uploads = fake.uploads.length;
        assert.equal((await publishNow(id)).status, 202);
        await waitFor(
          async () => (await getPost(id)).status === "published",
          "publication",
          20_000,
        );
        assert.deepEqual(fake.uploads.slice(uploads).map((u) => u.sha256), [await sha256(PNG)]);
      },
    );
    await t.step(
      "moving scheduled_at of a scheduled post moves its publication, or is refused",
      async () => {
        const { wsId, approvedPost, getPost, schedule } = await connected();
        const id = await approvedPost("On the hour");
        const soon = new Date(Date.now() + 3_000).toISOString();
        assert.equal((await schedule(id, soon)).status, 200);
        const later = new Date(Date.now() + 3_600_000).toISOString();
        const put = (user: { access_token: string }, at: string | null) =>
          api(stack, "PUT", `/api/posts/${id}`, {
            token: user.access_token,
            body: { workspace_id: wsId, scheduled_at: at },
          });
        // Moving a publication is scheduling: a viewer may not, and nothing changes.
        const byViewer = await put(viewer, later);
        assert.equal(byViewer.status, 403, JSON.stringify(byViewer.body));
        assert.equal(byViewer.body.error, "Owner or editor role required");
        assert.equal(Date.parse((await getPost(id)).scheduled_at), Date.parse(soon));
        const past = await put(author, new Date(Date.now() - 60_000).toISOString());
        assert.equal(past.status, 400);
        assert.equal(past.body.error, "at must be in the future");
        const moved = await put(author, later);
        assert.equal(moved.status, 200, JSON.stringify(moved.body));
        assert.equal(moved.body.status, "scheduled");
        assert.equal(Date.parse(moved.body.scheduled_at), Date.parse(later));
        // The old time passes: nothing goes out before the time the post shows.
        const sent = fake.posts().length;
        await new Promise((r) => setTimeout(r, 6_000));
        assert.equal(fake.posts().length, sent, "published before its scheduled_at");
        const post = await getPost(id);
        assert.equal(post.status, "scheduled");
        assert.equal(post.published_at, null);
        // Clearing it unschedules: back to approved, no publication left behind.
        const cleared = await put(author, null);
        assert.equal(cleared.status, 200, JSON.stringify(cleared.body));
        assert.equal(cleared.body.status, "approved");
        assert.equal(cleared.body.scheduled_at, null);
      },
    );
    await t.step(
      "a first comment changed while LinkedIn was being called voids the approval after the call",
      async () => {
        const { wsId, approvedPost, getPost, publishNow } = await connected();
        const id = await approvedPost("Slow LinkedIn");
        fake.failures.push("hang");
        const sent = fake.posts().length;
        assert.equal((await publishNow(id)).status, 202);
        await waitFor(() => fake.posts().length > sent, "the call to LinkedIn", 10_000);
        // While the call hangs, what is being sent is the approved post; the change waits.
        const changed = await api(stack, "PUT", `/api/posts/${id}`, {
          token: author.access_token,
          body: { workspace_id: wsId, first_comment: "Not what the reviewer saw" },
        });
        assert.equal(changed.status, 200, JSON.stringify(changed.body));
        await waitFor(
          async () => (await getPost(id)).publish_error !== null,
          "the call's outcome",
          10_000,
        );
        // Once the call is over, the changed first comment is no longer approved.
        const back = await waitFor(
          async () => {
            const post = await getPost(id);
            return post.status === "in_review" ? post : false;
          },
          "back to review",
          5_000,
        );
        assert.equal(back.approved_by, null);
        assert.equal(back.first_comment, "Not what the reviewer saw");
      },
    );
    await t.step(
      "the published version is what went out, not a change made during the call",
      async () => {
        const { wsId, getPost, publishNow } = await connected();
        const p = await api(stack, "POST", "/api/posts", {
          token: author.access_token,
          body: { workspace_id: wsId, content: "Out it goes" },
        });
        const id = p.body.post_id;
        await api(stack, "PUT", `/api/posts/${id}`, {
          token: author.access_token,
          body: { workspace_id: wsId, first_comment: "The approved comment" },
        });
        await api(stack, "POST", `/api/posts/${id}/review-requests`, {
          token: author.access_token,
          body: { workspace_id: wsId, reviewer_ids: [owner.user_id] },
        });
        const ok = await api(stack, "POST", `/api/posts/${id}/reviews`, {
          token: owner.access_token,
          body: { workspace_id: wsId, decision: "approve" },
        });
        assert.equal(ok.body.status, "approved");
        fake.failures.push("slow");
        const sent = fake.posts().length;
        const before = fake.requests.length;
        assert.equal((await publishNow(id)).status, 202);
        await waitFor(() => fake.posts().length > sent, "the call to LinkedIn", 10_000);
        await api(stack, "PUT", `/api/posts/${id}`, {
          token: author.access_token,
          body: { workspace_id: wsId, first_comment: "Typed during the call" },
        });
        const post = await waitFor(
          async () => {
            const now = await getPost(id);
            return now.linkedin_first_comment_urn ? now : false;
          },
          "publication and first comment",
          20_000,
        );
        assert.equal(post.status, "published");
        const comments = fake.requests.slice(before).filter((r) => r.path.endsWith("/comments"));
        assert.deepEqual(comments.map((c) => JSON.parse(c.body).message.text), [
          "The approved comment",
        ]);
        const versions = await api(stack, "GET", `/api/posts/${id}/versions?workspaceId=${wsId}`, {
          token: author.access_token,
        });
        const published = versions.body.items.find((v: { reason: string }) =>
          v.reason === "published"
        );
        const version = await api(
          stack,
          "GET",
          `/api/posts/${id}/versions/${published.version_id}?workspaceId=${wsId}`,
          { token: author.access_token },
        );
        assert.equal(version.body.text, "Out it goes");
        assert.equal(version.body.first_comment, "The approved comment");
      },
    );
  } finally {
    await stack.close();
    await fake.close();
  }
});
