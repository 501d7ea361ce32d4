import assert from "node:assert/strict";
import { ServiceDirectory } from "../../shared/service/service_directory.ts";
import { AuthClient, type UserProfile } from "../auth/client.ts";
import { InviteClaims } from "./invite_claims.ts";
import { MemberNews } from "./member_news.ts";
import { WorkspacesStore } from "./store.ts";

function profile(userId: string, email: string, confirmed: boolean): UserProfile {
  const now = new Date().toISOString();
  return {
    user_id: userId,
    email,
    name: userId,
    role: "member",
    status: "approved",
    approved: true,
    confirmed,
    enabled: true,
    created_at: now,
    updated_at: now,
    last_login: null,
  };
}

interface SentDm {
  user_id: string;
  template: string;
  data: Record<string, unknown>;
}

/**
 * Auth's internal user lookups, answered from `users` (`asked` counts them), and its DM route
 * (`dms` records what was sent).
 */
function fakeAuth(users: UserProfile[]) {
  const state = { asked: 0, dms: [] as SentDm[] };
  const directory = new ServiceDirectory().register("auth", async (req) => {
    const path = decodeURIComponent(new URL(req.url).pathname);
    if (req.method === "POST" && path === "/internal/dms") {
      state.dms.push(await req.json());
      return Response.json({ queued: true });
    }
    state.asked++;
    const byEmail = /^\/internal\/users\/by-email\/(.+)$/.exec(path);
    const byId = /^\/internal\/users\/([^/]+)$/.exec(path);
    const found = byEmail
      ? users.find((u) => u.email === byEmail[1])
      : byId
      ? users.find((u) => u.user_id === byId[1])
      : undefined;
    return found ? Response.json(found) : Response.json({ error: "not found" }, { status: 404 });
  });
  return { auth: new AuthClient(directory, "0123456789abcdef0123456789abcdef"), state };
}

Deno.test("the workspaces service claims a confirmed account's pending invites itself", async (t) => {
  const kv = await Deno.openKv(":memory:");
  const store = new WorkspacesStore(kv);
  const users = [
    profile("u-owner", "owner@example.test", true),
    profile("u-caller", "caller@example.test", true),
    profile("u-byid", "byid@example.test", true),
    profile("u-listed", "listed@example.test", true),
    profile("u-unconfirmed", "pending@example.test", false),
  ];
  const { auth, state } = fakeAuth(users);
  const claims = new InviteClaims(store, auth, new MemberNews(store, auth, "https://cp.test"));
  const ws = await store.create({ ownerId: "u-owner", name: "Team" });
  const workspaceId = ws.workspace_id;
  const invite = (email: string, role: "editor" | "viewer" = "editor") =>
    store.invites.record({ workspaceId, callerId: "u-owner", email, role });
  const roleOf = async (userId: string) =>
    (await store.membership(workspaceId, userId)).membership?.role;
  /** The member_added DMs sent since the last call, as `user_id:role`. */
  const told = () =>
    state.dms.splice(0).map((dm) => {
      assert.equal(dm.template, "member_added");
      assert.deepEqual(dm.data, {
        workspace_id: workspaceId,
        workspace_name: "Team",
        actor_name: "u-owner",
        role: dm.data.role,
        url: `https://cp.test/workspaces/${workspaceId}`,
      });
      return `${dm.user_id}:${dm.data.role}`;
    });
  try {
    await t.step("a caller's verified email: its invites become memberships", async () => {
      await invite("caller@example.test", "viewer");
      await claims.forCaller("u-caller", "Caller@Example.test");
      assert.equal(await roleOf("u-caller"), "viewer");
      assert.deepEqual(await store.invites.list(workspaceId), []);
      assert.deepEqual(told(), ["u-caller:viewer"], "the new member is told, once");
    });

    await t.step("a caller with no invite costs one read, then nothing for a while", async () => {
      const before = state.asked;
      await claims.forCaller("u-caller", "caller@example.test");
      await claims.forUser("u-caller");
      assert.equal(state.asked, before, "auth is not asked about a user just checked");
      assert.deepEqual(told(), [], "no second DM");
    });

    await t.step("a user known by id: the confirmed account's email from auth", async () => {
      await invite("byid@example.test");
      await claims.forUser("u-byid");
      assert.equal(await roleOf("u-byid"), "editor");
      assert.deepEqual(told(), ["u-byid:editor"]);
    });

    await t.step("a workspace's invites: claimed for confirmed accounts only", async () => {
      await invite("listed@example.test");
      await invite("pending@example.test");
      await invite("nobody@example.test");
      await claims.forWorkspace(workspaceId);
      assert.equal(await roleOf("u-listed"), "editor");
      assert.equal(await roleOf("u-unconfirmed"), undefined);
      assert.deepEqual(
        (await store.invites.list(workspaceId)).map((i) => i.email).sort(),
        ["nobody@example.test", "pending@example.test"],
      );
      assert.deepEqual(told(), ["u-listed:editor"], "only the account that became a member");
      await claims.forWorkspace(workspaceId);
      assert.deepEqual(told(), [], "claiming again tells nobody");
    });
  } finally {
    kv.close();
  }
});
