import assert from "node:assert/strict";
import { startFakeLinkedIn } from "./fakes/linkedin.ts";
import { api, e2e, startTestStack } from "./helpers/stack.ts";
import { createUser } from "./helpers/users.ts";
import { linkedInEnv, publishingFixtures, startConnect } from "./helpers/linkedin_publishing.ts";
import { PNG } from "./helpers/media_files.ts";
import { waitFor } from "./helpers/wait.ts";

const ORG = "urn:li:organization:1234";

Deno.test("organization pages: listed with the connection, published as", e2e, async (t) => {
  const fake = startFakeLinkedIn();
  fake.organizations = [{ id: "1234", name: "Acme Corp" }];
  const stack = await startTestStack({
    ...linkedInEnv(fake),
    LINKEDIN_ORGANIZATIONS: "true",
    POSTS_LIVE_TEXT_CHECK_MS: "600000",
  });
  try {
    const owner = await createUser(stack, { name: "Olga Owner" });
    const author = await createUser(stack, { name: "Anna Author" });
    const viewer = await createUser(stack);
    const { fresh, connected } = publishingFixtures(stack, { owner, author, viewer });

    await t.step("connect asks for the pages' scopes; the connection lists the pages", async () => {
      const { wsId } = await fresh();
      const { authorize } = await startConnect(stack, author, wsId);
      assert.equal(
        authorize.searchParams.get("scope"),
        "openid profile w_member_social r_organization_admin w_organization_social",
      );
      const { wsId: other } = await connected();
      const conn = await api(stack, "GET", `/api/workspaces/${other}/linkedin`, {
        token: viewer.access_token,
      });
      assert.deepEqual(conn.body.organizations, [{ urn: ORG, name: "Acme Corp" }]);
      const acl = fake.requests.find((r) => r.path === "/rest/organizationAcls")!;
      assert.equal(acl.headers["linkedin-version"], "202610");
    });

    await t.step("publish_as: owners and editors only, and only a listed page", async () => {
      const { wsId, approvedPost } = await connected();
      const id = await approvedPost("As the company");
      const set = (token: string, publishAs: string) =>
        api(stack, "PUT", `/api/posts/${id}`, {
          token,
          body: { workspace_id: wsId, publish_as: publishAs },
        });
      const byViewer = await set(viewer.access_token, ORG);
      assert.equal(byViewer.status, 403);
      assert.equal(byViewer.body.error, "Owner or editor role required");
      const unknown = await set(author.access_token, "urn:li:organization:999");
      assert.equal(unknown.status, 400);
      assert.equal(
        unknown.body.error,
        "publish_as names an organization that is not in the LinkedIn connection",
      );
      const malformed = await set(author.access_token, "the company");
      assert.equal(malformed.status, 400);
      assert.match(malformed.body.error, /publish_as must be "member" or an organization URN/);
      const ok = await set(author.access_token, ORG);
      assert.equal(ok.status, 200);
      assert.equal(ok.body.publish_as, ORG);
      // Who speaks is not part of what was approved: the approval stands.
      assert.equal(ok.body.status, "approved");
    });

    await t.step(
      "a page's post: its uploads, the post and the first comment are the page's",
      async () => {
        const { wsId, approvedPost, getPost, publishNow } = await connected();
        const id = await approvedPost("Company news");
        const media = await api(stack, "POST", `/api/posts/${id}/media`, {
          token: author.access_token,
          body: {
            workspace_id: wsId,
            filename: "logo.png",
            contentType: "image/png",
            size: PNG.length,
          },
        });
        const put = await fetch(media.body.uploadUrl, {
          method: "PUT",
          headers: { "content-type": "image/png" },
          body: PNG,
        });
        assert.equal(put.status, 200);
        await api(stack, "PUT", `/api/posts/${id}`, {
          token: author.access_token,
          body: { workspace_id: wsId, publish_as: ORG, first_comment: "More at acme.test" },
        });
        await api(stack, "POST", `/api/posts/${id}/reviews`, {
          token: owner.access_token,
          body: { workspace_id: wsId, decision: "approve" },
        });
        const before = fake.requests.length;
        assert.equal((await publishNow(id)).status, 202);
        await waitFor(
          async () => (await getPost(id)).linkedin_first_comment_urn ? true : false,
          "the page's post and its first comment",
          20_000,
        );
        const calls = fake.requests.slice(before);
        const init = calls.find((r) => r.path === "/rest/images")!;
        assert.deepEqual(JSON.parse(init.body), { initializeUploadRequest: { owner: ORG } });
        assert.equal(JSON.parse(calls.find((r) => r.path === "/rest/posts")!.body).author, ORG);
        const comment = JSON.parse(calls.find((r) => r.path.endsWith("/comments"))!.body);
        assert.equal(comment.actor, ORG);
      },
    );
  } finally {
    await stack.close();
    await fake.close();
  }
});

Deno.test("without LINKEDIN_ORGANIZATIONS a connection lists no pages", e2e, async () => {
  const fake = startFakeLinkedIn();
  fake.organizations = [{ id: "1234", name: "Acme Corp" }];
  const stack = await startTestStack(linkedInEnv(fake));
  try {
    const owner = await createUser(stack);
    const author = await createUser(stack);
    const viewer = await createUser(stack);
    const { connected } = publishingFixtures(stack, { owner, author, viewer });
    const { wsId, approvedPost } = await connected();
    const conn = await api(stack, "GET", `/api/workspaces/${wsId}/linkedin`, {
      token: author.access_token,
    });
    assert.deepEqual(conn.body.organizations, []);
    assert.equal(fake.requests.filter((r) => r.path === "/rest/organizationAcls").length, 0);
    const id = await approvedPost("Member only");
    const res = await api(stack, "PUT", `/api/posts/${id}`, {
      token: author.access_token,
      body: { workspace_id: wsId, publish_as: ORG },
    });
    assert.equal(res.status, 400);
  } finally {
    await stack.close();
    await fake.close();
  }
});
