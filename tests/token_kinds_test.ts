/**
 * Each credential works only where it belongs: an access token, an id token, a refresh token,
 * a capture token, a WebSocket ticket and a review-link token handed to another route are
 * refused there as an unknown credential of that route's kind, with that route's status (never
 * a 400 about the shape, never accepted). Driven over HTTP and a raw WebSocket upgrade.
 */
import assert from "node:assert/strict";
import { api, e2e, startTestStack } from "./helpers/stack.ts";
import { createUser, login } from "./helpers/users.ts";
import { createWorkspace } from "./helpers/workspaces.ts";
import { ticketFor, upgradeStatus } from "./helpers/ws.ts";

Deno.test("a credential of one kind is refused where another kind is expected", e2e, async (t) => {
  const stack = await startTestStack();
  try {
    const user = await createUser(stack, { name: "Token Owner" });
    const ws = await createWorkspace(stack, user, "Token kinds");
    const post = await api(stack, "POST", "/api/posts", {
      token: user.access_token,
      body: { workspace_id: ws, title: "Post", content: "Text" },
    });
    assert.equal(post.status, 201);
    const postId = post.body.post_id as string;
    const capture = await api(stack, "POST", "/api/quick-capture/token", {
      token: user.access_token,
      body: { workspace_id: ws },
    });
    assert.equal(capture.status, 201);
    const link = await api(stack, "POST", `/api/posts/${postId}/review-links`, {
      token: user.access_token,
      body: { workspace_id: ws, reviewer_name: "Rita Reviewer" },
    });
    assert.equal(link.status, 201);
    const reviewToken = (link.body.url as string).split("/review/")[1];
    const idToken = (await login(stack, user.email, user.password)).id_token;
    const kinds = {
      "an access token": user.access_token,
      "an id token": idToken,
      "a refresh token": user.refresh_token,
      "a capture token": capture.body.token as string,
      "a WebSocket ticket": await ticketFor(stack, user),
      "a review-link token": reviewToken,
    };
    const except = (kind: keyof typeof kinds) =>
      Object.entries(kinds).filter(([name]) => name !== kind);

    await t.step("as a bearer token: 401", async () => {
      for (const [name, value] of except("an access token")) {
        const res = await api(stack, "GET", `/api/workspaces/${ws}`, { token: value });
        assert.equal(res.status, 401, name);
      }
    });

    await t.step("as a refresh token: 401, the refresh's unknown-token answer", async () => {
      for (const [name, value] of except("a refresh token")) {
        const res = await api(stack, "POST", "/api/auth/refresh", {
          body: { refresh_token: value },
        });
        assert.equal(res.status, 401, `${name}: ${JSON.stringify(res.body)}`);
      }
    });

    await t.step(
      "at logout: 204, as for any unknown token, and nothing is signed out",
      async () => {
        for (const [name, value] of except("a refresh token")) {
          const res = await api(stack, "POST", "/api/auth/logout", {
            body: { refresh_token: value },
          });
          assert.equal(res.status, 204, `${name}: ${JSON.stringify(res.body)}`);
        }
        const still = await api(stack, "GET", `/api/workspaces/${ws}`, {
          token: user.access_token,
        });
        assert.equal(still.status, 200);
      },
    );

    await t.step("as a capture token: 401", async () => {
      for (const [name, value] of except("a capture token")) {
        const res = await api(stack, "POST", "/api/quick-capture", {
          headers: { "x-capture-token": value },
          body: { title: "Captured" },
        });
        assert.equal(res.status, 401, name);
      }
    });

    await t.step("as a WebSocket ticket: 401 before any socket opens", async () => {
      for (const [name, value] of except("a WebSocket ticket")) {
        const query = new URLSearchParams({ ticket: value, docId: postId, workspaceId: ws });
        assert.equal(await upgradeStatus(stack.url, query.toString()), 401, name);
      }
    });

    await t.step("as a review-link token: 404 Review link not found or expired", async () => {
      for (const [name, value] of except("a review-link token")) {
        const res = await api(stack, "GET", `/api/review-links/${encodeURIComponent(value)}`);
        assert.equal(res.status, 404, name);
        assert.deepEqual(res.body, { error: "Review link not found or expired" }, name);
      }
    });

    await t.step("each still works where it belongs", async () => {
      const view = await api(stack, "GET", `/api/review-links/${reviewToken}`);
      assert.equal(view.status, 200);
      const captured = await api(stack, "POST", "/api/quick-capture", {
        headers: { "x-capture-token": kinds["a capture token"] },
        body: { title: "Captured" },
      });
      assert.equal(captured.status, 201);
      const query = new URLSearchParams({
        ticket: kinds["a WebSocket ticket"],
        docId: postId,
        workspaceId: ws,
      });
      assert.equal(await upgradeStatus(stack.url, query.toString()), 101);
      const refreshed = await api(stack, "POST", "/api/auth/refresh", {
        body: { refresh_token: user.refresh_token },
      });
      assert.equal(refreshed.status, 200);
    });
  } finally {
    await stack.close();
  }
});
