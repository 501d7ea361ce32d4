/**
 * Inline comments and AI in the post editor, in two browser contexts: comments appear live
 * and stay on their words while others edit; replies, resolve/reopen and delete reach the
 * other browser; idea → generate → iterate (diff accepted) → proofread (suggestion applied)
 * against the fake Chat Completions server. The panel without a model, and with a failing one,
 * is tests/web/ai_offline_test.ts.
 */
import assert from "node:assert/strict";
import { api, e2e } from "../helpers/stack.ts";
import { createUser } from "../helpers/users.ts";
import {
  checkA11y,
  type Page,
  PHONE,
  screenshot,
  startWebTest,
  type WebTest,
} from "../helpers/browser.ts";
import { startFakeChatCompletions } from "../fakes/chat_completions.ts";
import { editorPair, editorText, openEditor } from "./editor_fixture.ts";
import { waitFor } from "../helpers/wait.ts";

async function poll<T>(
  read: () => Promise<T>,
  ok: (value: T) => boolean,
  what: string,
  timeoutMs = 10_000,
): Promise<T> {
  let value: T;
  await waitFor(async () => ok(value = await read()), what, timeoutMs).catch(() => {
    throw new Error(`${what}: still ${JSON.stringify(value)}`);
  });
  return value!;
}

/** The text under each comment highlight in the page's editor, by comment id. */
async function highlights(page: Page): Promise<Record<string, string>> {
  return await page.evaluate(`(() => {
    const root = document.querySelector(".editor-shadow-host")?.shadowRoot;
    const out = {};
    if (!root) return out;
    for (const mark of root.querySelectorAll(".cp-comment-highlight")) {
      const copy = mark.cloneNode(true);
      copy.querySelectorAll(".cp-remote-caret").forEach((c) => c.remove());
      const id = mark.getAttribute("data-comment-id");
      out[id] = (out[id] ?? "") + copy.textContent;
    }
    return out;
  })()`) as Record<string, string>;
}

/** The text under the proofread underlines of one type. */
async function underlined(page: Page, type: string): Promise<string[]> {
  return await page.evaluate(`(() => {
    const root = document.querySelector(".editor-shadow-host")?.shadowRoot;
    if (!root) return [];
    return Array.from(root.querySelectorAll(".cp-proofread-${type}"), (m) => {
      const copy = m.cloneNode(true);
      copy.querySelectorAll(".cp-remote-caret").forEach((c) => c.remove());
      return copy.textContent;
    });
  })()`) as string[];
}

/** Selects `length` characters from `start` in the (single-line) editor with the keyboard. */
async function selectText(page: Page, start: number, length: number) {
  await page.getByRole("textbox", { name: "Post text" }).click();
  await page.keyboard.press("Control+Home");
  for (let i = 0; i < start; i++) await page.keyboard.press("ArrowRight");
  for (let i = 0; i < length; i++) await page.keyboard.press("Shift+ArrowRight");
}

function thread(page: Page, text: string) {
  return page.locator(".comment-thread", { hasText: text });
}

async function noHorizontalScroll(page: Page) {
  const overflow = await page.evaluate(
    "document.documentElement.scrollWidth > document.documentElement.clientWidth",
  );
  assert.equal(overflow, false, "no horizontal scrolling at 375 px");
}

Deno.test(
  "comments: a comment made in one browser appears highlighted in the other without reload and stays on its words after an insert before them",
  e2e,
  async () => {
    const web = await startWebTest();
    try {
      const content = "Hello team, the launch is on Friday";
      const { pageA, pageB } = await editorPair(web, { content });
      await pageB.getByText("No open comments").waitFor();

      // Alice selects "launch" and comments with the keyboard shortcut.
      const start = content.indexOf("launch");
      await selectText(pageA, start, "launch".length);
      await pageA.keyboard.press("Control+Alt+m");
      const box = pageA.getByRole("textbox", { name: "Comment on the selected words" });
      await box.waitFor();
      // The box shows first; the focus follows once it is laid out.
      await waitFor(
        async () => (await pageA.evaluate("document.activeElement?.id")) === "comment-new",
        "the shortcut putting the focus in the comment box",
        5_000,
      );
      await pageA.locator(".comment-excerpt-quote", { hasText: "launch" }).waitFor();
      await box.fill("Is Friday certain?");
      await pageA.getByRole("button", { name: "Add comment" }).click();

      // Bob sees it without reloading, highlighted on "launch".
      await thread(pageB, "Is Friday certain?").waitFor();
      assert.match(await thread(pageB, "Is Friday certain?").innerText(), /Alice Writer/);
      const [id] = Object.keys(
        await poll(() => highlights(pageB), (h) => Object.values(h).includes("launch"), "Bob"),
      );
      await poll(() => highlights(pageA), (h) => h[id] === "launch", "Alice's highlight");

      // Bob types before the words (and Alice right after them): the highlight stays put.
      const boxB = pageB.getByRole("textbox", { name: "Post text" });
      await boxB.click();
      await pageB.keyboard.press("Control+Home");
      await pageB.keyboard.type("Update: ", { delay: 10 });
      await selectText(pageA, "Update: ".length + start + "launch".length, 0);
      await pageA.keyboard.type(" date", { delay: 10 });
      const want = "Update: Hello team, the launch date is on Friday";
      await poll(() => editorText(pageA), (t) => t === want, "Alice's editor");
      await poll(() => editorText(pageB), (t) => t === want, "Bob's editor");
      for (const page of [pageA, pageB]) {
        const h = await poll(() => highlights(page), (h) => h[id] === "launch", "highlight");
        assert.deepEqual(h, { [id]: "launch" }, "the highlighted text equals the excerpt");
      }

      // Clicking the thread's words selects them in the editor.
      await thread(pageB, "Is Friday certain?").locator(".comment-excerpt").click();
      const selected = await pageB.evaluate("getSelection()?.toString() ?? ''");
      assert.ok(
        selected === "launch" || (await pageB.locator(".comment-thread.is-active").count()) === 1,
        `selection ${selected}`,
      );

      await checkA11y(pageA);
      await screenshot(pageA, "comments-editor-1440");
      await pageB.setViewportSize(PHONE);
      await checkA11y(pageB);
      await noHorizontalScroll(pageB);
      await screenshot(pageB, "comments-editor-375");
      assert.deepEqual(web.pageErrors, []);
    } finally {
      await web.close();
    }
  },
);

Deno.test(
  "comments: page-level comments, replies, resolve/reopen and delete reach the other browser live; ?comment= opens the thread",
  e2e,
  async () => {
    const web = await startWebTest();
    try {
      const { pageA, pageB, url, workspaceId, postId, alice } = await editorPair(web, {
        content: "Shipping the new dashboard next week",
      });
      // A page-level comment (no selection).
      await pageA.getByRole("textbox", { name: "Comment on the whole post" }).fill(
        "Add a screenshot?",
      );
      await pageA.getByRole("button", { name: "Add comment" }).click();
      const onB = thread(pageB, "Add a screenshot?");
      await onB.waitFor();
      assert.match(await onB.innerText(), /On the whole post/);
      // Bob is an editor, not the author: no delete button on Alice's comment.
      assert.equal(await onB.getByRole("button", { name: "Delete comment" }).count(), 0);

      // Bob replies; Alice sees the reply.
      await onB.getByRole("textbox", { name: "Reply to Alice Writer" }).fill("Yes, the chart");
      await onB.getByRole("button", { name: "Reply", exact: true }).click();
      const onA = thread(pageA, "Add a screenshot?");
      await onA.getByText("Yes, the chart").waitFor();
      // Bob deletes his reply; it goes away for Alice.
      await onB.getByRole("button", { name: "Delete reply by Bob Editor" }).click();
      await onA.getByText("Yes, the chart").waitFor({ state: "detached" });
      await onB.getByText("Yes, the chart").waitFor({ state: "detached" });
      await onB.getByRole("textbox", { name: "Reply to Alice Writer" }).fill("Chart it is");
      await onB.getByRole("button", { name: "Reply", exact: true }).click();
      await onA.getByText("Chart it is").waitFor();

      // Alice resolves; Bob sees it folded under Resolved; Bob reopens; Alice sees it open.
      await onA.getByRole("button", { name: "Resolve" }).click();
      await pageB.getByText("Resolved (1)").waitFor();
      await pageB.getByText("No open comments").waitFor();
      await pageB.getByText("Resolved (1)").click();
      await onB.getByRole("button", { name: "Reopen" }).click();
      await pageA.getByRole("list", { name: "Open comments" }).getByText("Add a screenshot?")
        .waitFor();
      await pageA.getByText("Resolved (1)").waitFor({ state: "detached" });

      // The DM's deep link opens the post with that thread focused.
      const list = await api(
        web.stack,
        "GET",
        `/api/posts/${postId}/comments?workspaceId=${workspaceId}`,
        { token: alice.access_token },
      );
      const commentId = list.body.items[0].comment_id as string;
      await pageB.goto(`${url}?comment=${commentId}`);
      await pageB.getByRole("textbox", { name: "Post text" }).waitFor();
      await poll(
        () => pageB.evaluate("document.activeElement?.dataset?.threadId ?? ''"),
        (id) => id === commentId,
        "the focused thread",
      );
      assert.equal(
        await pageB.locator(`[data-thread-id="${commentId}"]`).getAttribute("aria-current"),
        "true",
      );

      // Alice deletes it (after confirming); it disappears for Bob.
      await onA.getByRole("button", { name: "Delete comment" }).click();
      await pageA.getByRole("dialog").getByRole("button", { name: "Delete comment" }).click();
      await pageB.getByText("No open comments").waitFor();
      assert.equal(await thread(pageB, "Add a screenshot?").count(), 0);
      assert.deepEqual(web.pageErrors, []);
    } finally {
      await web.close();
    }
  },
);

const IDEA_TEXT = "Async writing beats meetings for remote teams.";
const DRAFT = "Remote teams write things down. Meetings shrinks.";
const REWRITE = "Remote teams write everything down. Meetings shrinks.";

async function ideaPost(web: WebTest, script: () => void) {
  const alice = await createUser(web.stack, { name: "Alice Writer" });
  const bob = await createUser(web.stack, { name: "Bob Editor" });
  const token = alice.access_token;
  const ws = await api(web.stack, "POST", "/api/workspaces", { token, body: { name: "Drafts" } });
  const workspaceId = ws.body.workspace_id as string;
  await api(web.stack, "POST", `/api/workspaces/${workspaceId}/members`, {
    token,
    body: { email: bob.email, role: "editor" },
  });
  script();
  const idea = await api(web.stack, "POST", "/api/ideas", {
    token,
    body: { workspace_id: workspaceId, title: IDEA_TEXT },
  });
  assert.equal(idea.status, 201, JSON.stringify(idea.body));
  const post = await api(web.stack, "POST", "/api/posts", {
    token,
    body: {
      workspace_id: workspaceId,
      title: "Async",
      content: "",
      source_idea_id: idea.body.idea_id,
    },
  });
  assert.equal(post.status, 201, JSON.stringify(post.body));
  const url = `${web.stack.url}/workspaces/${workspaceId}/posts/${post.body.post_id}`;
  const [pageA, pageB] = await Promise.all([
    openEditor(web, url, alice),
    openEditor(web, url, bob),
  ]);
  return { pageA, pageB, idea: idea.body };
}

Deno.test(
  "AI: generate from the idea reaches the other browser, the iterate diff is accepted, a proofread suggestion is applied",
  e2e,
  async () => {
    const ai = startFakeChatCompletions();
    const web = await startWebTest({
      OPENAI_BASE_URL: ai.baseUrl,
      OPENAI_API_KEY: "sk-test",
      OPENAI_MODEL: "draft-model",
      AI_RETRY_BACKOFF_MS: "10",
      // As in production: the grammar checker loads while the pages open, not at Proofread.
      PROOFREAD_CHECKER_PRELOAD: "true",
    });
    try {
      const { pageA, pageB, idea } = await ideaPost(
        web,
        () => ai.script({ content: "Async wins" }),
      );
      await pageA.getByText("Idea: Async wins").waitFor();

      // Generate, with the workspace's audience and the pickers.
      await pageA.getByRole("combobox", { name: "Audience" }).selectOption("CTO");
      await pageA.getByRole("combobox", { name: "Tone" }).selectOption("casual");
      await pageA.getByRole("combobox", { name: "Length" }).selectOption("short");
      ai.reset();
      ai.script({ content: DRAFT, delayMs: 300 });
      await pageA.getByRole("button", { name: "Generate draft" }).click();
      await pageA.getByRole("button", { name: "Generating…" }).waitFor();
      assert.equal(await pageA.getByRole("button", { name: "Generating…" }).isDisabled(), true);
      await poll(() => editorText(pageB), (t) => t === DRAFT, "Bob sees the draft");
      assert.equal(await editorText(pageA), DRAFT);
      const sent = JSON.stringify(ai.requests[0].messages);
      assert.ok(sent.includes(IDEA_TEXT), "the idea went to the model");
      assert.ok(sent.includes("CTO"), "the audience went to the model");
      assert.ok(sent.includes("casual"), "the tone went to the model");
      assert.ok(typeof idea.idea_id === "string");

      // Iterate: the diff, then Accept.
      ai.script({ content: REWRITE });
      await pageA.getByRole("textbox", { name: "Instruction" }).fill("Be more precise");
      await pageA.getByRole("button", { name: "Suggest a rewrite" }).click();
      const diff = pageA.getByRole("region", { name: "Suggested changes" });
      await diff.waitFor();
      assert.equal((await diff.locator("del").allTextContents()).join("|"), "things");
      assert.equal((await diff.locator("ins").allTextContents()).join("|"), "everything");
      const lastIterate = JSON.stringify(ai.requests[ai.requests.length - 1].messages);
      assert.ok(lastIterate.includes(DRAFT) && lastIterate.includes("Be more precise"));
      await checkA11y(pageA);
      await screenshot(pageA, "ai-iterate-diff-1440");
      await pageA.getByRole("button", { name: "Accept" }).click();
      await poll(() => editorText(pageB), (t) => t === REWRITE, "Bob sees the rewrite");
      assert.equal(await diff.count(), 0);

      // Proofread: an underline on "shrinks", which follows Bob's insert; Apply fixes it.
      const at = REWRITE.indexOf("shrinks");
      ai.script({
        content: "```json\n" + JSON.stringify([{
          range: [at, at + "shrinks".length],
          type: "grammar",
          message: "Subject and verb disagree",
          suggestion: "shrink",
        }]) + "\n```",
      });
      await pageA.getByRole("button", { name: "Proofread" }).click();
      await poll(() => underlined(pageA, "grammar"), (u) => u.join() === "shrinks", "underline");
      assert.equal(
        await pageA.locator(".cp-proofread-grammar").first().getAttribute("title"),
        "Grammar: Subject and verb disagree",
      );
      const finding = pageA.getByRole("list", { name: "Proofread findings" }).getByRole("listitem");
      assert.match(await finding.innerText(), /Grammar[\s\S]*Subject and verb disagree/);
      await pageB.getByRole("textbox", { name: "Post text" }).click();
      await pageB.keyboard.press("Control+Home");
      await pageB.keyboard.type("Note: ", { delay: 10 });
      await poll(() => editorText(pageA), (t) => t === "Note: " + REWRITE, "Alice gets Bob's edit");
      assert.deepEqual(await underlined(pageA, "grammar"), ["shrinks"]);
      await checkA11y(pageA);
      await screenshot(pageA, "ai-proofread-1440");
      await pageA.setViewportSize(PHONE);
      await checkA11y(pageA);
      await noHorizontalScroll(pageA);
      await screenshot(pageA, "ai-panel-375");
      await pageA.getByRole("button", { name: "Apply: Subject and verb disagree" }).click();
      const fixed = "Note: Remote teams write everything down. Meetings shrink.";
      await poll(() => editorText(pageB), (t) => t === fixed, "Bob sees the fix");
      assert.deepEqual(await underlined(pageA, "grammar"), []);
      assert.equal(await finding.count(), 0);
      assert.deepEqual(web.pageErrors, []);
    } finally {
      await web.close();
      await ai.close();
    }
  },
);
