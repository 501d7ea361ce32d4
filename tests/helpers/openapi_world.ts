/**
 * What the OpenAPI conformance test sends its requests about: three accounts and, rebuilt for
 * each operation, a workspace holding one of everything (idea, post, comment and reply, action
 * and attachment, prompt, example, capture token, invite). Values come from the fixtures by the
 * field's name, so a request the document calls valid names things that exist.
 */
// deno-lint-ignore-file no-explicit-any
import assert from "node:assert/strict";
import { api, type TestStack } from "./stack.ts";
import { createUser, loginAdmin, type TestUser } from "./users.ts";
import { type Fixtures, MISSING, type Schema } from "./openapi_cases.ts";

export interface Accounts {
  admin: TestUser;
  owner: TestUser;
  editor: TestUser;
}

export interface World {
  workspace: string;
  idea: string;
  post: string;
  comment: string;
  reply: string;
  action: string;
  attachmentKey: string;
  prompt: string;
  example: string;
  captureToken: string;
  captureTokenId: string;
  invitee: string;
}

export async function createAccounts(stack: TestStack): Promise<Accounts> {
  return {
    admin: await loginAdmin(stack),
    owner: await createUser(stack, { name: "Conformance Owner" }),
    editor: await createUser(stack, { name: "Conformance Editor" }),
  };
}

/** A fresh workspace of the owner's (the editor as editor) with one of everything in it. */
export async function createWorld(stack: TestStack, { owner, editor }: Accounts): Promise<World> {
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await api(stack, method, path, { token: owner.access_token, body });
    assert.ok(res.status < 300, `${method} ${path}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  };
  const ws = (await call("POST", "/api/workspaces", { name: "Conformance" })).workspace_id;
  await call("POST", `/api/workspaces/${ws}/members`, { email: editor.email, role: "editor" });
  const invitee = `invitee-${crypto.randomUUID().slice(0, 8)}@example.test`;
  await call("POST", `/api/workspaces/${ws}/members`, { email: invitee, role: "viewer" });
  const idea = (await call("POST", "/api/ideas", { workspace_id: ws, title: "An idea" })).idea_id;
  const post = (await call("POST", "/api/posts", {
    workspace_id: ws,
    title: "A post",
    content: "The post's text.",
  })).post_id;
  const comment = (await call("POST", `/api/posts/${post}/comments`, {
    workspace_id: ws,
    body: "A comment",
  })).comment_id;
  const replied = await call("POST", `/api/posts/${post}/comments/${comment}/replies`, {
    workspace_id: ws,
    body: "A reply",
  });
  const reply = replied.replies?.at(-1)?.reply_id ?? replied.reply_id;
  const action = (await call("POST", "/api/actions", {
    workspace_id: ws,
    title: "An action",
    assignee_id: owner.user_id,
  })).action_id;
  const attachmentKey = (await call("POST", `/api/actions/${action}/attachments`, {
    workspace_id: ws,
    filename: "picture.png",
  })).key;
  const prompt = (await call("POST", "/api/prompts", {
    workspace_id: ws,
    name: "A prompt",
    system_instruction: "You write posts.",
    user_template: "Write about {idea_title}.",
  })).prompt_id;
  const example = (await call("POST", "/api/examples", {
    workspace_id: ws,
    title: "An example",
    content: "An example post.",
  })).example_id;
  const capture = await call("POST", "/api/quick-capture/token", { workspace_id: ws });
  return {
    workspace: ws,
    idea,
    post,
    comment,
    reply,
    action,
    attachmentKey,
    prompt,
    example,
    captureToken: capture.token,
    captureTokenId: capture.token_id,
    invitee,
  };
}

/** Which fixture a path's `{id}` names, by the path's first segments. */
const ID_OWNERS: [RegExp, keyof World | "subject"][] = [
  [/^\/api\/workspaces\//, "workspace"],
  [/^\/api\/ideas\//, "idea"],
  [/^\/api\/posts\//, "post"],
  [/^\/api\/actions\//, "action"],
  [/^\/api\/prompts\//, "prompt"],
  [/^\/api\/examples\//, "example"],
  [/^\/api\/admin\/users\//, "subject"],
];

/** A backup key of the right shape that names no backup: restoring it fails, wiping nothing. */
export const ABSENT_BACKUP = "_backups/conformance-absent.zip";

export interface FixtureContext {
  stack: TestStack;
  accounts: Accounts;
  world: World;
  path: string;
  /** values prepared before the request (a fresh refresh token, a WebSocket ticket...) */
  extra: Record<string, string>;
}

/** Values by field name for `path`'s requests. */
export function fixtures(ctx: FixtureContext): Fixtures {
  const { accounts, world, path, extra } = ctx;
  return (name: string, _schema: Schema): unknown => {
    if (name in extra) return extra[name];
    switch (name) {
      case "id": {
        const owner = ID_OWNERS.find(([re]) => re.test(path))?.[1];
        if (owner === "subject") return extra.subject;
        return owner ? world[owner] : undefined;
      }
      case "workspace_id":
      case "workspaceId":
        return world.workspace;
      case "idea_id":
      case "source_idea_id":
        return world.idea;
      case "post_id":
      case "docId":
        return world.post;
      case "comment_id":
        return world.comment;
      case "reply_id":
        return world.reply;
      case "prompt_id":
      case "default_prompt_id":
        return world.prompt;
      case "token_id":
        return world.captureTokenId;
      case "x-capture-token":
        return world.captureToken;
      case "userId":
      case "owner_id":
      case "reviewer_ids[]":
      case "mentions[]":
        return accounts.editor.user_id;
      case "assignee_id":
        return accounts.owner.user_id;
      case "email":
        return path === "/api/workspaces/{id}/invites/{email}" ? world.invitee : undefined;
      case "key":
        return path.startsWith("/api/actions/") ? world.attachmentKey : ABSENT_BACKUP;
      case "client_id":
        return "content-pipeline";
      case "redirect_uri":
        return `${ctx.stack.url}/`;
      case "resource":
        return `${ctx.stack.url}/mcp`;
      case "cursor":
        // Opaque: only a previous page's answer gives one, which no schema can describe.
        return MISSING;
    }
    return undefined;
  };
}

/** What some routes need prepared before each request: a session of its own, a ticket... */
export async function prepare(
  stack: TestStack,
  accounts: Accounts,
  path: string,
): Promise<Record<string, string>> {
  const extra: Record<string, string> = {};
  if (path === "/api/auth/refresh" || path === "/api/auth/logout") {
    const res = await api(stack, "POST", "/api/auth/login", {
      body: { email: accounts.owner.email, password: accounts.owner.password },
    });
    extra.refresh_token = res.body.refresh_token;
  }
  if (path === "/ws") {
    const res = await api(stack, "POST", "/api/ws/ticket", { token: accounts.owner.access_token });
    extra.ticket = res.body.ticket;
  }
  if (path.startsWith("/api/admin/users/{id}")) {
    extra.subject = (await createUser(stack, { name: "Conformance Subject" })).user_id;
  }
  if (path === "/api/admin/restores/{job_id}") {
    const res = await api(stack, "POST", "/api/admin/backups/restore", {
      token: accounts.admin.access_token,
      body: { key: ABSENT_BACKUP },
    });
    extra.job_id = res.body.job_id;
  }
  return extra;
}

/** The token an operation is sent with: the admin's on admin routes, else the owner's. */
export function tokenFor(accounts: Accounts, path: string, op: any): string | undefined {
  if (!op.security?.some((s: Record<string, unknown>) => "bearer" in s)) return undefined;
  return path.startsWith("/api/admin") ? accounts.admin.access_token : accounts.owner.access_token;
}
