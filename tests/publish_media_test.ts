import assert from "node:assert/strict";
import { startFakeLinkedIn } from "./fakes/linkedin.ts";
import { readOutbox, waitForOutbox } from "./helpers/outbox.ts";
import { api, e2e, startTestStack, type TestStack } from "./helpers/stack.ts";
import { createUser, type TestUser } from "./helpers/users.ts";
import { linkedInEnv, publishingFixtures } from "./helpers/linkedin_publishing.ts";
import { GIF, JPEG, PDF, PNG, sha256 } from "./helpers/media_files.ts";
import { waitFor } from "./helpers/wait.ts";

const MiB = 1024 * 1024;

/** Asks for an upload URL of a media of `post` as `user`; the answer as the API gives it. */
function addMedia(
  stack: TestStack,
  user: TestUser,
  wsId: string,
  postId: string,
  filename: string,
  contentType: string,
  size: number,
) {
  return api(stack, "POST", `/api/posts/${postId}/media`, {
    token: user.access_token,
    body: { workspace_id: wsId, filename, contentType, size },
  });
}

/** PUTs `bytes` to an upload URL as a browser would; the status. */
async function put(url: string, bytes: Uint8Array, contentType: string): Promise<number> {
  const res = await fetch(url, {
    method: "PUT",
    headers: { "content-type": contentType },
    body: bytes as Uint8Array<ArrayBuffer>,
  });
  await res.body?.cancel();
  return res.status;
}

/** Adds a media and uploads `bytes` as it; the media id. */
async function upload(
  stack: TestStack,
  user: TestUser,
  wsId: string,
  postId: string,
  filename: string,
  contentType: string,
  bytes: Uint8Array,
): Promise<string> {
  const res = await addMedia(stack, user, wsId, postId, filename, contentType, bytes.length);
  assert.equal(res.status, 201, JSON.stringify(res.body));
  assert.equal(await put(res.body.uploadUrl, bytes, contentType), 200);
  return res.body.media_id;
}

Deno.test("post media: images and a document, checked, approved and published", e2e, async (t) => {
  const fake = startFakeLinkedIn();
  const stack = await startTestStack({ ...linkedInEnv(fake), POSTS_LIVE_TEXT_CHECK_MS: "600000" });
  try {
    const owner = await createUser(stack, { name: "Olga Owner" });
    const author = await createUser(stack, { name: "Anna Author" });
    const viewer = await createUser(stack);
    const { fresh, connected } = publishingFixtures(stack, { owner, author, viewer });

    await t.step(
      "the rules of what a post may carry: 400 naming each, nothing stored",
      async () => {
        const { wsId, getPost } = await fresh();
        const p = await api(stack, "POST", "/api/posts", {
          token: author.access_token,
          body: { workspace_id: wsId, content: "With media" },
        });
        const id = p.body.post_id;
        const refusals: [string, string, number, RegExp][] = [
          ["x.webp", "image/webp", 10, /contentType must be one of/],
          ["big.png", "image/png", 10 * MiB + 1, /An image can be at most 10 MiB/],
          ["big.pdf", "application/pdf", 100 * MiB + 1, /A document can be at most 100 MiB/],
          ["zero.png", "image/png", 0, /size must be at least 1 byte/],
        ];
        for (const [name, type, size, message] of refusals) {
          const res = await addMedia(stack, author, wsId, id, name, type, size);
          assert.equal(res.status, 400, name);
          assert.match(res.body.error, message);
        }
        for (let i = 0; i < 20; i++) {
          assert.equal(
            (await addMedia(stack, author, wsId, id, `${i}.png`, "image/png", 9)).status,
            201,
          );
        }
        const extra = await addMedia(stack, author, wsId, id, "21.png", "image/png", 9);
        assert.equal(extra.status, 400);
        assert.match(extra.body.error, /at most 20 images/);
        const doc = await addMedia(stack, author, wsId, id, "d.pdf", "application/pdf", 9);
        assert.equal(doc.status, 400);
        assert.match(doc.body.error, /one document, never beside images/);
        assert.equal((await getPost(id)).media.length, 20);
        const outsider = await createUser(stack);
        assert.equal(
          (await addMedia(stack, outsider, wsId, id, "a.png", "image/png", 9)).status,
          403,
        );
      },
    );

    await t.step("upload URLs: once, within the size asked for, never after a delete", async () => {
      const { wsId, getPost } = await fresh();
      const p = await api(stack, "POST", "/api/posts", {
        token: author.access_token,
        body: { workspace_id: wsId, content: "Uploads" },
      });
      const id = p.body.post_id;
      const first = await addMedia(stack, author, wsId, id, "a.png", "image/png", PNG.length);
      assert.equal(await put(first.body.uploadUrl, PNG, "image/png"), 200);
      assert.equal(await put(first.body.uploadUrl, PNG, "image/png"), 409);
      const small = await addMedia(stack, author, wsId, id, "b.gif", "image/gif", 5);
      assert.equal(await put(small.body.uploadUrl, GIF, "image/gif"), 413);
      const gone = await addMedia(stack, author, wsId, id, "c.jpg", "image/jpeg", JPEG.length);
      const del = await api(
        stack,
        "DELETE",
        `/api/posts/${id}/media/${gone.body.media_id}?workspaceId=${wsId}`,
        { token: viewer.access_token },
      );
      assert.equal(del.status, 204);
      assert.equal(await put(gone.body.uploadUrl, JPEG, "image/jpeg"), 404);
      const again = await api(
        stack,
        "DELETE",
        `/api/posts/${id}/media/${gone.body.media_id}?workspaceId=${wsId}`,
        { token: viewer.access_token },
      );
      assert.equal(again.status, 404);
      const post = await getPost(id);
      assert.deepEqual(post.media.map((m: { filename: string }) => m.filename), ["a.png", "b.gif"]);
      const got = await api(stack, "GET", `/api/posts/${id}?workspaceId=${wsId}`, {
        token: viewer.access_token,
      });
      const bytes = new Uint8Array(
        await (await fetch(got.body.media[0].downloadUrl)).arrayBuffer(),
      );
      assert.deepEqual(bytes, PNG);
    });

    await t.step("alt texts, titles and order; any change voids an approval", async () => {
      const { wsId, approvedPost, getPost } = await fresh();
      const id = await approvedPost("Approved with images");
      const a = await upload(stack, author, wsId, id, "a.png", "image/png", PNG);
      // Adding a media after the approval sent it back to review already.
      assert.equal((await getPost(id)).status, "in_review");
      const b = await upload(stack, author, wsId, id, "b.jpg", "image/jpeg", JPEG);
      await api(stack, "POST", `/api/posts/${id}/reviews`, {
        token: owner.access_token,
        body: { workspace_id: wsId, decision: "approve" },
      });
      assert.equal((await getPost(id)).status, "approved");
      const alt = await api(stack, "PATCH", `/api/posts/${id}/media/${a}`, {
        token: author.access_token,
        body: { workspace_id: wsId, alt_text: "A chart of Q3" },
      });
      assert.equal(alt.status, 200);
      assert.equal(alt.body.status, "in_review");
      assert.equal(alt.body.media[0].alt_text, "A chart of Q3");
      const history = await api(stack, "GET", `/api/posts/${id}/reviews?workspaceId=${wsId}`, {
        token: author.access_token,
      });
      const voided = history.body.items.filter((r: { decision: string }) =>
        r.decision === "voided"
      );
      assert.equal(voided.length, 2);
      assert.equal(voided[1].note, "media or first comment changed after approval");
      const title = await api(stack, "PATCH", `/api/posts/${id}/media/${a}`, {
        token: author.access_token,
        body: { workspace_id: wsId, title: "Not for images" },
      });
      assert.equal(title.status, 400);
      const bad = await api(stack, "PUT", `/api/posts/${id}/media`, {
        token: author.access_token,
        body: { workspace_id: wsId, media_ids: [a, a] },
      });
      assert.equal(bad.status, 400);
      const order = await api(stack, "PUT", `/api/posts/${id}/media`, {
        token: author.access_token,
        body: { workspace_id: wsId, media_ids: [b, a] },
      });
      assert.equal(order.status, 200);
      assert.deepEqual(order.body.media.map((m: { media_id: string }) => m.media_id), [b, a]);
      const comment = await api(stack, "PUT", `/api/posts/${id}`, {
        token: author.access_token,
        body: { workspace_id: wsId, first_comment: "x".repeat(1251) },
      });
      assert.equal(comment.status, 400);
      assert.match(comment.body.error, /first_comment is longer than 1250 characters/);
    });

    await t.step(
      "publishing uploads the images, then posts exactly what was approved",
      async () => {
        const { wsId, getPost, publishNow } = await connected();
        const p = await api(stack, "POST", "/api/posts", {
          token: author.access_token,
          body: { workspace_id: wsId, title: "Launch", content: "Two pictures" },
        });
        const id = p.body.post_id;
        const a = await upload(stack, author, wsId, id, "a.png", "image/png", PNG);
        const b = await upload(stack, author, wsId, id, "b.gif", "image/gif", GIF);
        await api(stack, "PATCH", `/api/posts/${id}/media/${b}`, {
          token: author.access_token,
          body: { workspace_id: wsId, alt_text: "The team" },
        });
        await api(stack, "PUT", `/api/posts/${id}`, {
          token: author.access_token,
          body: { workspace_id: wsId, first_comment: "Sign up: https://example.test/(beta)" },
        });
        await api(stack, "POST", `/api/posts/${id}/review-requests`, {
          token: author.access_token,
          body: { workspace_id: wsId, reviewer_ids: [owner.user_id] },
        });
        await api(stack, "POST", `/api/posts/${id}/reviews`, {
          token: owner.access_token,
          body: { workspace_id: wsId, decision: "approve" },
        });
        const before = fake.requests.length;
        assert.equal((await publishNow(id)).status, 202);
        const post = await waitFor(
          async () => {
            const now = await getPost(id);
            return now.linkedin_first_comment_urn ? now : false;
          },
          "publication with its first comment",
          20_000,
        );
        assert.equal(post.status, "published");
        const calls = fake.requests.slice(before);
        const member = `urn:li:person:${fake.member.sub}`;
        const inits = calls.filter((r) => r.path === "/rest/images");
        assert.equal(inits.length, 2);
        for (const init of inits) {
          assert.deepEqual(JSON.parse(init.body), { initializeUploadRequest: { owner: member } });
          assert.equal(init.headers["linkedin-version"], "202610");
        }
        const received = fake.uploads.slice(-2);
        assert.deepEqual(received.map((u) => u.sha256), [await sha256(PNG), await sha256(GIF)]);
        const created = JSON.parse(calls.find((r) => r.path === "/rest/posts")!.body);
        assert.equal(created.author, member);
        assert.deepEqual(created.content, {
          multiImage: {
            images: [{ id: received[0].urn }, { id: received[1].urn, altText: "The team" }],
          },
        });
        const comment = calls.find((r) => r.path.endsWith("/comments"))!;
        assert.equal(
          comment.path,
          `/rest/socialActions/${encodeURIComponent(post.linkedin_post_urn)}/comments`,
        );
        assert.deepEqual(JSON.parse(comment.body), {
          actor: member,
          object: post.linkedin_post_urn,
          message: { text: "Sign up: https://example.test/(beta)" },
        });
        assert.ok(post.linkedin_first_comment_urn.startsWith("urn:li:comment:"));
        assert.equal(post.first_comment_error, null);
        void a;
      },
    );

    await t.step("one image and one document: LinkedIn's single media content", async () => {
      const { wsId, getPost, publishNow } = await connected();
      const make = async (content: string) =>
        (await api(stack, "POST", "/api/posts", {
          token: author.access_token,
          body: { workspace_id: wsId, content },
        })).body.post_id as string;
      const approve = async (id: string) => {
        await api(stack, "POST", `/api/posts/${id}/review-requests`, {
          token: author.access_token,
          body: { workspace_id: wsId, reviewer_ids: [owner.user_id] },
        });
        await api(stack, "POST", `/api/posts/${id}/reviews`, {
          token: owner.access_token,
          body: { workspace_id: wsId, decision: "approve" },
        });
      };
      const photo = await make("One photo");
      const m = await upload(stack, author, wsId, photo, "p.jpg", "image/jpeg", JPEG);
      await api(stack, "PATCH", `/api/posts/${photo}/media/${m}`, {
        token: author.access_token,
        body: { workspace_id: wsId, alt_text: "A desk" },
      });
      const deck = await make("A deck");
      const d = await upload(stack, author, wsId, deck, "deck.pdf", "application/pdf", PDF);
      await api(stack, "PATCH", `/api/posts/${deck}/media/${d}`, {
        token: author.access_token,
        body: { workspace_id: wsId, title: "Q3 results" },
      });
      for (const id of [photo, deck]) {
        await approve(id);
        const before = fake.requests.length;
        assert.equal((await publishNow(id)).status, 202);
        await waitFor(async () => (await getPost(id)).status === "published", "published", 20_000);
        const body = JSON.parse(
          fake.requests.slice(before).find((r) => r.path === "/rest/posts")!.body,
        );
        const urn = fake.uploads.at(-1)!.urn;
        assert.deepEqual(
          body.content,
          id === photo
            ? { media: { id: urn, altText: "A desk" } }
            : { media: { id: urn, title: "Q3 results" } },
        );
        if (id === deck) {
          assert.ok(urn.startsWith("urn:li:document:"));
          assert.equal(new TextDecoder().decode(fake.uploads.at(-1)!.head.subarray(0, 5)), "%PDF-");
        }
      }
    });

    await t.step("a .png that is not a PNG is refused at publishing, naming the file", async () => {
      const { wsId, getPost, publishNow } = await connected();
      const p = await api(stack, "POST", "/api/posts", {
        token: author.access_token,
        body: { workspace_id: wsId, content: "Fake picture" },
      });
      const id = p.body.post_id;
      await upload(stack, author, wsId, id, "photo.png", "image/png", JPEG);
      await api(stack, "POST", `/api/posts/${id}/review-requests`, {
        token: author.access_token,
        body: { workspace_id: wsId, reviewer_ids: [owner.user_id] },
      });
      await api(stack, "POST", `/api/posts/${id}/reviews`, {
        token: owner.access_token,
        body: { workspace_id: wsId, decision: "approve" },
      });
      const before = fake.requests.length;
      assert.equal((await publishNow(id)).status, 202);
      const post = await waitFor(
        async () => {
          const now = await getPost(id);
          return now.publish_error ? now : false;
        },
        "the refusal",
        20_000,
      );
      assert.equal(post.publish_error, "photo.png is not a PNG image");
      assert.equal(post.status, "approved");
      assert.deepEqual(fake.requests.slice(before).map((r) => r.path), []);
    });

    await t.step("LinkedIn's 422 on an upload is the publish_error; 429 is retried", async () => {
      const { wsId, getPost, publishNow, approvedPost } = await connected();
      const id = await approvedPost("Refused upload");
      await upload(stack, author, wsId, id, "a.png", "image/png", PNG);
      await api(stack, "POST", `/api/posts/${id}/reviews`, {
        token: owner.access_token,
        body: { workspace_id: wsId, decision: "approve" },
      });
      fake.uploadFailures.push(422);
      assert.equal((await publishNow(id)).status, 202);
      const refused = await waitFor(
        async () => {
          const now = await getPost(id);
          return now.publish_error ? now : false;
        },
        "the refusal",
        20_000,
      );
      assert.equal(
        refused.publish_error,
        "LinkedIn refused the upload of a.png (422): Unprocessable: the fake refused it",
      );
      const posts = fake.posts().length;
      fake.uploadFailures.push(429);
      assert.equal((await publishNow(id)).status, 202);
      await waitFor(async () => (await getPost(id)).status === "published", "published", 20_000);
      assert.equal(fake.posts().length, posts + 1);
    });

    await t.step("a failed first comment keeps the post published and says so", async () => {
      const { wsId, getPost, publishNow, approvedPost } = await connected();
      const id = await approvedPost("With a comment that fails");
      await api(stack, "PUT", `/api/posts/${id}`, {
        token: author.access_token,
        body: { workspace_id: wsId, first_comment: "Details below" },
      });
      assert.equal((await getPost(id)).status, "in_review");
      await api(stack, "POST", `/api/posts/${id}/reviews`, {
        token: owner.access_token,
        body: { workspace_id: wsId, decision: "approve" },
      });
      fake.commentFailures.push(422);
      assert.equal((await publishNow(id)).status, 202);
      const post = await waitFor(
        async () => {
          const now = await getPost(id);
          return now.first_comment_error ? now : false;
        },
        "the first comment's failure",
        20_000,
      );
      assert.equal(post.status, "published");
      assert.match(post.first_comment_error, /LinkedIn refused the first comment \(422\)/);
      const dm = await waitForOutbox(
        stack.outboxFile,
        (l) => l.template === "publish_failed" && l.data.part === "first_comment",
      );
      assert.equal(dm.to, author.email);
      assert.ok((await readOutbox(stack.outboxFile)).length > 0);
    });

    await t.step("deleting a post removes its media bytes", async () => {
      const { wsId } = await fresh();
      const p = await api(stack, "POST", "/api/posts", {
        token: author.access_token,
        body: { workspace_id: wsId, content: "Short-lived" },
      });
      await upload(stack, author, wsId, p.body.post_id, "a.png", "image/png", PNG);
      const got = await api(stack, "GET", `/api/posts/${p.body.post_id}?workspaceId=${wsId}`, {
        token: author.access_token,
      });
      const url = got.body.media[0].downloadUrl;
      const del = await api(stack, "DELETE", `/api/posts/${p.body.post_id}?workspaceId=${wsId}`, {
        token: author.access_token,
      });
      assert.equal(del.status, 200);
      await waitFor(async () => {
        const res = await fetch(url);
        await res.body?.cancel();
        return res.status === 404;
      }, "the media bytes to be removed");
    });
  } finally {
    await stack.close();
    await fake.close();
  }
});
