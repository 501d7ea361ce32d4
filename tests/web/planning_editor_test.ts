/**
 * The post editor's planning parts in the browser: the LinkedIn preview (the connected member's
 * name, the cut after 210 characters with "…see more", hashtags, the first comment, live as
 * the text changes, desktop and phone widths), right-to-left lines, the version history (the
 * diff against the live text, save with a label, restore seen at once in a second browser, no
 * Restore for a viewer); and the layout at 1440×900 (the post in view while the AI panel shows
 * a rewrite), the AI choices remembered, and an idle remote cursor's label folding away.
 */
import assert from "node:assert/strict";
import { api, e2e } from "../helpers/stack.ts";
import { createUser } from "../helpers/users.ts";
import {
  checkA11y,
  type Page,
  PHONE,
  screenshot,
  signIn,
  startWebTest,
} from "../helpers/browser.ts";
import { startFakeLinkedIn } from "../fakes/linkedin.ts";
import { startFakeChatCompletions } from "../fakes/chat_completions.ts";
import { connectLinkedIn, linkedInEnv } from "../helpers/linkedin_publishing.ts";
import { createWorkspace } from "../helpers/workspaces.ts";
import { editorText, openEditor } from "./editor_fixture.ts";
import { waitFor } from "../helpers/wait.ts";

const OPENING = "We shipped the new planning calendar today. #launch @Ada";
const LONG = `${OPENING}\n` +
  "Every scheduled post now sits on its day, with free slots waiting for the next one. " +
  "Drag a post to move it, or use the Move button from the keyboard. " +
  "THE-TAIL-AFTER-THE-CUT is only shown after see more.";

async function inViewport(page: Page, selector: string): Promise<boolean> {
  return await page.evaluate(`(() => {
    const el = document.querySelector(${JSON.stringify(selector)});
    if (!el) return false;
    const r = el.getBoundingClientRect();
    return r.bottom > 40 && r.top < innerHeight - 40 && r.height > 0;
  })()`) as boolean;
}

Deno.test(
  "editor: the LinkedIn preview cuts at 210 characters behind …see more and follows typing; the version diff, and a restore another browser sees",
  e2e,
  async () => {
    const fake = startFakeLinkedIn();
    const web = await startWebTest(linkedInEnv(fake));
    try {
      const { stack } = web;
      const alice = await createUser(stack, { name: "Alice Writer" });
      const bob = await createUser(stack, { name: "Bob Editor" });
      const vic = await createUser(stack, { name: "Vic Viewer" });
      const wsId = await createWorkspace(stack, alice, "Launch team", [
        [bob, "editor"],
        [vic, "viewer"],
      ]);
      assert.equal((await connectLinkedIn(stack, alice, wsId)).back.status, 302);
      const created = await api(stack, "POST", "/api/posts", {
        token: alice.access_token,
        body: { workspace_id: wsId, title: "Calendar launch", content: LONG },
      });
      const postId = created.body.post_id as string;
      const comment = await api(stack, "PUT", `/api/posts/${postId}`, {
        token: alice.access_token,
        body: { workspace_id: wsId, first_comment: "Docs: see the planning guide" },
      });
      assert.equal(comment.status, 200, JSON.stringify(comment.body));
      const url = `${stack.url}/workspaces/${wsId}/posts/${postId}`;
      const pageA = await openEditor(web, url, alice);

      // The feed's card: the member's name, the cut, hashtags and mentions, the first comment.
      const preview = pageA.getByRole("region", { name: "LinkedIn preview" });
      await preview.getByText(fake.member.name).first().waitFor();
      const card = preview.getByRole("article");
      const folded = await card.innerText();
      assert.ok(folded.includes("We shipped the new planning calendar"), folded);
      assert.ok(!folded.includes("THE-TAIL-AFTER-THE-CUT"), "cut after 210 characters");
      assert.equal(await preview.locator(".lp-hashtag").innerText(), "#launch");
      assert.equal(await preview.locator(".lp-mention").innerText(), "@Ada");
      await preview.getByText("Docs: see the planning guide").waitFor();
      await checkA11y(pageA);
      await screenshot(pageA, "editor-preview-1440");
      await preview.getByRole("button", { name: "…see more" }).click();
      await card.getByText(/THE-TAIL-AFTER-THE-CUT/).waitFor();
      assert.equal(await preview.getByRole("button", { name: "…see more" }).count(), 0);

      // Live: typed words show in the preview; a right-to-left line reads right to left.
      const box = pageA.getByRole("textbox", { name: "Post text" });
      await box.click();
      await pageA.keyboard.press("Control+End");
      await pageA.keyboard.type("\nمرحبا بالعالم");
      const rtl = card.locator("p.lp-line", { hasText: "مرحبا بالعالم" });
      await rtl.waitFor();
      assert.equal(await rtl.getAttribute("dir"), "auto");
      assert.equal(
        await pageA.evaluate(`getComputedStyle([...document.querySelectorAll(".lp-line")]
          .find((p) => p.textContent.includes("مرحبا"))).direction`),
        "rtl",
      );
      const editorLine = await pageA.evaluate(`(() => {
        const root = document.querySelector(".editor-shadow-host").shadowRoot;
        const line = [...root.querySelectorAll(".cm-line")].find((l) => l.textContent.includes("مرحبا"));
        return line ? [line.getAttribute("dir"), getComputedStyle(line).direction] : null;
      })()`);
      assert.deepEqual(editorLine, ["auto", "rtl"], "the editor's line is laid out right to left");
      await preview.getByRole("button", { name: "Phone" }).click();
      assert.equal(
        await preview.getByRole("button", { name: "Phone" }).getAttribute("aria-pressed"),
        "true",
      );
      assert.ok((await card.boundingBox())!.width <= 375);
      await screenshot(pageA, "editor-preview-phone-width-1440");

      // Version history: save one with a label, change the text, see the difference.
      const history = pageA.getByRole("dialog", { name: "Version history" });
      await pageA.getByRole("button", { name: "Version history" }).click();
      await history.getByLabel("Label (optional)").fill("Before the edits");
      await history.getByRole("button", { name: "Save version" }).click();
      const versions = history.getByRole("list", { name: "Versions" });
      await versions.getByText("“Before the edits”").waitFor();
      assert.match(await versions.innerText(), /Saved\s*“Before the edits”\s*Alice Writer/);
      await history.getByText("No differences: the live text is this version.").waitFor();
      await history.getByRole("button", { name: "Close" }).click();
      const saved = await editorText(pageA);
      await box.click();
      await pageA.keyboard.press("Control+End");
      await pageA.keyboard.type(" Extra words after saving.");
      await pageA.getByRole("button", { name: "Version history" }).click();
      const diff = history.getByRole("region", { name: "Differences" });
      await diff.locator("ins", { hasText: "Extra" }).waitFor();
      assert.equal(await diff.locator("del").count(), 0);
      await checkA11y(pageA);
      await screenshot(pageA, "editor-version-history-1440");

      // A viewer sees the history but cannot restore.
      const viewerPage = await openEditor(web, url, vic);
      await viewerPage.getByRole("button", { name: "Version history" }).click();
      const viewerHistory = viewerPage.getByRole("dialog", { name: "Version history" });
      await viewerHistory.getByRole("region", { name: "Differences" }).waitFor();
      assert.equal(
        await viewerHistory.getByRole("button", { name: "Restore this version" }).count(),
        0,
      );

      // Restore: Bob's editor, open in another browser, shows the saved text at once.
      const pageB = await openEditor(web, url, bob);
      await waitFor(async () => (await editorText(pageB)).includes("Extra words"), "Bob has it");
      await history.getByRole("button", { name: "Restore this version" }).click();
      await pageA.getByRole("dialog", { name: "Restore this version?" })
        .getByRole("button", { name: "Restore" }).click();
      await waitFor(async () => (await editorText(pageB)) === saved, "Bob sees the restore");
      assert.equal(await editorText(pageA), saved);
      const after = await api(stack, "GET", `/api/posts/${postId}?workspaceId=${wsId}`, {
        token: bob.access_token,
      });
      assert.equal(after.body.content, saved);
      await versions.getByText("Restored").first().waitFor();
      await history.getByText("No differences: the live text is this version.").waitFor();
      await history.getByRole("button", { name: "Close" }).click();

      // The phone: the editor and its preview without sideways scrolling.
      const phone = await web.newPage({ viewport: PHONE });
      await phone.goto(url);
      await signIn(phone, alice.email, alice.password);
      await phone.getByRole("region", { name: "LinkedIn preview" }).waitFor();
      const overflow = await phone.evaluate(
        "document.documentElement.scrollWidth > document.documentElement.clientWidth",
      );
      assert.equal(overflow, false, "no horizontal scrolling at 375");
      await checkA11y(phone);
      await screenshot(phone, "editor-preview-375");
      assert.deepEqual(web.pageErrors, []);
    } finally {
      await web.close();
      await fake.close();
    }
  },
);

const DRAFT = "Remote teams write things down. Meetings shrink.";
const REWRITE = "Remote teams write everything down. Meetings shrink.";

Deno.test(
  "editor at 1440×900: the post stays in view while the AI panel shows a rewrite; AI choices are remembered; an idle cursor's label folds away",
  e2e,
  async () => {
    const ai = startFakeChatCompletions();
    const web = await startWebTest({
      OPENAI_BASE_URL: ai.baseUrl,
      OPENAI_API_KEY: "sk-test",
      OPENAI_MODEL: "draft-model",
    });
    try {
      const { stack } = web;
      const alice = await createUser(stack, { name: "Alice Writer" });
      const bob = await createUser(stack, { name: "Bob Editor" });
      const wsId = await createWorkspace(stack, alice, "Drafts", [[bob, "editor"]]);
      const idea = await api(stack, "POST", "/api/ideas", {
        token: alice.access_token,
        body: { workspace_id: wsId, title: "Async writing beats meetings" },
      });
      const post = await api(stack, "POST", "/api/posts", {
        token: alice.access_token,
        body: {
          workspace_id: wsId,
          title: "Async",
          content: DRAFT,
          source_idea_id: idea.body.idea_id,
        },
      });
      const url = `${stack.url}/workspaces/${wsId}/posts/${post.body.post_id}`;
      const pageA = await openEditor(web, url, alice);

      // The drafting choices survive a reload (per user and workspace).
      await pageA.getByRole("combobox", { name: "Tone" }).selectOption("casual");
      await pageA.getByRole("combobox", { name: "Length" }).selectOption("short");
      await pageA.reload();
      await pageA.getByRole("textbox", { name: "Post text" }).waitFor();
      assert.equal(await pageA.getByRole("combobox", { name: "Tone" }).inputValue(), "casual");
      assert.equal(await pageA.getByRole("combobox", { name: "Length" }).inputValue(), "short");

      // A rewrite's diff, with the post still in view.
      ai.script({ content: REWRITE });
      await pageA.getByRole("textbox", { name: "Instruction" }).fill("Be more precise");
      await pageA.getByRole("button", { name: "Suggest a rewrite" }).click();
      const diff = pageA.getByRole("region", { name: "Suggested changes" });
      await diff.waitFor();
      await diff.scrollIntoViewIfNeeded();
      assert.ok(await inViewport(pageA, ".ai-diff"), "the diff is in view");
      assert.ok(await inViewport(pageA, ".editor-pane"), "the post is in view beside it");
      await checkA11y(pageA);
      await screenshot(pageA, "editor-ai-diff-1440");
      await pageA.getByRole("button", { name: "Accept" }).click();

      // Bob's caret label on Alice's screen folds away once he stops moving.
      const pageB = await openEditor(web, url, bob);
      await pageB.getByRole("textbox", { name: "Post text" }).click();
      await pageB.keyboard.press("Control+End");
      await pageB.keyboard.type(" Yes.");
      const caret = () =>
        pageA.evaluate(`(() => {
          const root = document.querySelector(".editor-shadow-host").shadowRoot;
          const c = root.querySelector(".cp-remote-caret");
          return c ? { idle: c.classList.contains("is-idle"), name: c.textContent } : null;
        })()`) as Promise<{ idle: boolean; name: string } | null>;
      await waitFor(async () => (await caret())?.idle === false, "Bob's label shows");
      assert.match((await caret())!.name, /Bob Editor/);
      await waitFor(async () => (await caret())?.idle === true, "the label folds", 5_000);
      await pageB.keyboard.type("!");
      await waitFor(async () => (await caret())?.idle === false, "it comes back on a move");
      assert.deepEqual(web.pageErrors, []);
    } finally {
      await web.close();
      await ai.close();
    }
  },
);
