/**
 * Two members of one workspace, a post, and two browser contexts signed in on its editor:
 * shared by tests/web/editor_test.ts and `deno task bench:web`.
 */
import { api } from "../helpers/stack.ts";
import { createUser, type TestUser } from "../helpers/users.ts";
import { type Page, signIn, type WebTest } from "../helpers/browser.ts";

export interface EditorPair {
  alice: TestUser;
  bob: TestUser;
  workspaceId: string;
  postId: string;
  url: string;
  pageA: Page;
  pageB: Page;
}

export async function twoMembersAndAPost(
  web: WebTest,
  { content = "Hello team", title = "Launch notes" } = {},
): Promise<Omit<EditorPair, "pageA" | "pageB">> {
  const alice = await createUser(web.stack, { name: "Alice Writer" });
  const bob = await createUser(web.stack, { name: "Bob Editor" });
  const ws = await api(web.stack, "POST", "/api/workspaces", {
    token: alice.access_token,
    body: { name: "Launch team" },
  });
  if (ws.status !== 201) throw new Error(`workspace: ${JSON.stringify(ws.body)}`);
  const workspaceId = ws.body.workspace_id as string;
  const member = await api(web.stack, "POST", `/api/workspaces/${workspaceId}/members`, {
    token: alice.access_token,
    body: { email: bob.email, role: "editor" },
  });
  if (member.status !== 201) throw new Error(`member: ${JSON.stringify(member.body)}`);
  const post = await api(web.stack, "POST", "/api/posts", {
    token: alice.access_token,
    body: { workspace_id: workspaceId, title, content },
  });
  if (post.status !== 201) throw new Error(`post: ${JSON.stringify(post.body)}`);
  const postId = post.body.post_id as string;
  return {
    alice,
    bob,
    workspaceId,
    postId,
    url: `${web.stack.url}/workspaces/${workspaceId}/posts/${postId}`,
  };
}

/** Opens the editor deep link in a fresh context, signs in, waits until it is Live. */
export async function openEditor(web: WebTest, url: string, user: TestUser): Promise<Page> {
  const page = await web.newPage();
  await page.goto(url);
  await signIn(page, user.email, user.password);
  await page.getByRole("textbox", { name: "Post text" }).waitFor();
  await page.getByRole("status", { name: "Connection" }).filter({ hasText: "Live" }).waitFor();
  return page;
}

export async function editorPair(web: WebTest, opts = {}): Promise<EditorPair> {
  const base = await twoMembersAndAPost(web, opts);
  const [pageA, pageB] = await Promise.all([
    openEditor(web, base.url, base.alice),
    openEditor(web, base.url, base.bob),
  ]);
  return { ...base, pageA, pageB };
}

/**
 * The editor's text as the page shows it (CodeMirror lines joined with newlines, without the
 * remote cursors' name labels). The editor lives in a shadow root (see editor_pane.tsx).
 */
export async function editorText(page: Page): Promise<string> {
  return await page.evaluate(EDITOR_TEXT_JS) as string;
}

/** In-page expression answering the editor's text (also used by the bench's observers). */
export const EDITOR_TEXT_JS = `(() => {
  const root = document.querySelector(".editor-shadow-host")?.shadowRoot;
  if (!root) return "";
  return Array.from(root.querySelectorAll(".cm-content .cm-line")).map((line) => {
    const copy = line.cloneNode(true);
    copy.querySelectorAll(".cp-remote-caret").forEach((c) => c.remove());
    return copy.textContent;
  }).join("\\n");
})()`;
