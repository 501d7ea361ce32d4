import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { startFakeLinkedIn } from "../fakes/linkedin.ts";
import { api, type TestStack } from "./stack.ts";
import { loginAdmin, type TestUser } from "./users.ts";
import { createWorkspace } from "./workspaces.ts";
import { waitFor } from "./wait.ts";

/** Calls an MCP tool over Streamable HTTP as `user`; the parsed answer (or the error text). */
export async function mcpCall(stack: TestStack, user: TestUser, name: string, args: unknown) {
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
export async function startConnect(
  stack: { url: string },
  user: { access_token: string },
  wsId: string,
) {
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
export async function followCallback(callback: URL, cookie: string | null) {
  const res = await fetch(callback, {
    redirect: "manual",
    headers: cookie ? { cookie } : {},
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, text };
}

/** Goes through LinkedIn's consent as a browser would: connect, the fake's redirect, callback. */
export async function connectLinkedIn(stack: TestStack, user: TestUser, wsId: string) {
  const { authorize, callback, cookie } = await startConnect(stack, user, wsId);
  const back = await followCallback(callback, cookie);
  return { authorize, callback, back, cookie };
}

/** The LinkedIn settings that point the service at the fake. */
export function linkedInEnv(fake: ReturnType<typeof startFakeLinkedIn>) {
  return {
    LINKEDIN_CLIENT_ID: fake.clientId,
    LINKEDIN_CLIENT_SECRET: fake.clientSecret,
    LINKEDIN_AUTH_URL: fake.authUrl,
    LINKEDIN_API_URL: fake.apiUrl,
  };
}

/**
 * The publishing steps' fixtures over `stack`: `fresh()` makes a workspace of the owner's
 * (author editor, viewer viewer, approval required, Zurich time) with the routes bound to it,
 * so each step starts from its own; `connected()` is `fresh()` with LinkedIn connected by the
 * author; `published()` publishes an approved post now and waits for it.
 */
export function publishingFixtures(
  stack: TestStack,
  { owner, author, viewer }: { owner: TestUser; author: TestUser; viewer: TestUser },
) {
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
  return { fresh, connected, published, metric };
}
