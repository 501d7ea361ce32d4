/**
 * The AI panel without a model and with a failing one: it says up front what works without a
 * model and how to connect one, proofread underlines the built-in checker's findings, a
 * model's unusable answer is said so (never "nothing to fix"), and a failing backend's 502 is
 * shown next to the button with what to do.
 */
import assert from "node:assert/strict";
import { e2e } from "../helpers/stack.ts";
import { checkA11y, PHONE, screenshot, startWebTest } from "../helpers/browser.ts";
import { startFakeChatCompletions } from "../fakes/chat_completions.ts";
import { editorText, openEditor, twoMembersAndAPost } from "./editor_fixture.ts";
import { waitFor } from "../helpers/wait.ts";
import type { Page } from "../helpers/browser.ts";

const MISTAKES = "This is an test of the the checker. You should of seen it. We recieve mail.";

async function noHorizontalScroll(page: Page) {
  const overflow = await page.evaluate(
    "document.documentElement.scrollWidth > document.documentElement.clientWidth",
  );
  assert.equal(overflow, false, "no horizontal scrolling at 375 px");
}

/** The words under the proofread underlines of one type, in order. */
async function underlined(page: Page, type: string): Promise<string[]> {
  return await page.evaluate(`(() => {
    const root = document.querySelector(".editor-shadow-host")?.shadowRoot;
    if (!root) return [];
    return Array.from(root.querySelectorAll(".cp-proofread-${type}"), (m) => m.textContent);
  })()`) as string[];
}

Deno.test(
  "AI panel without a model: says what works and how to connect one, proofread shows the checker's findings",
  e2e,
  async () => {
    // As in production: the grammar checker loads while the page opens, not at Proofread.
    const web = await startWebTest({ PROOFREAD_CHECKER_PRELOAD: "true" });
    try {
      const base = await twoMembersAndAPost(web, { content: MISTAKES });
      const page = await openEditor(web, base.url, base.alice);
      const note = page.getByRole("note", { name: "AI without a model" });
      await note.waitFor();
      assert.match(await note.innerText(), /Proofread works without one/);
      assert.match(await note.innerText(), /OPENAI_BASE_URL/);
      assert.match(await note.innerText(), /docs\/ai_backends\.md/);
      assert.equal(
        await page.getByRole("button", { name: "Suggest a rewrite" }).isDisabled(),
        true,
      );
      await page.getByText("Rewriting needs an AI model").waitFor();
      await page.getByText("This post is not linked to an idea").waitFor();

      await page.getByRole("button", { name: "Proofread" }).click();
      const findings = page.getByRole("list", { name: "Proofread findings" }).getByRole(
        "listitem",
      );
      await findings.first().waitFor();
      assert.equal(await findings.count(), 4);
      await waitFor(
        async () => (await underlined(page, "grammar")).length === 4,
        "four underlines",
      );
      assert.deepEqual(await underlined(page, "grammar"), [
        "an",
        "the the",
        "should of",
        "recieve",
      ]);
      await page.getByRole("status").filter({ hasText: "built-in grammar and spelling checker" })
        .waitFor();
      await checkA11y(page);
      await note.scrollIntoViewIfNeeded();
      await screenshot(page, "ai-offline-note-1440");
      await findings.last().scrollIntoViewIfNeeded();
      await screenshot(page, "ai-offline-checker-1440");

      // One click applies the checker's suggestion, for everyone editing.
      await page.getByRole("button", { name: "Apply: Did you mean to repeat this word?" }).click();
      await waitFor(
        async () => (await editorText(page)).includes("test of the checker"),
        "the fix is in the post",
      );
      await page.setViewportSize(PHONE);
      await noHorizontalScroll(page);
      await screenshot(page, "ai-offline-checker-375");
      assert.deepEqual(web.pageErrors, []);
    } finally {
      await web.close();
    }
  },
);

Deno.test(
  "AI panel with a failing model: the 502 reason next to the button, an unusable answer said plainly",
  e2e,
  async () => {
    const ai = startFakeChatCompletions();
    const web = await startWebTest({
      OPENAI_BASE_URL: ai.baseUrl,
      OPENAI_API_KEY: "sk-wrong",
      OPENAI_MODEL: "small-model",
      PROOFREAD_CHECKER_PRELOAD: "true",
    });
    try {
      const base = await twoMembersAndAPost(web, { content: MISTAKES });
      const page = await openEditor(web, base.url, base.alice);
      await page.getByRole("heading", { name: "AI", exact: true }).waitFor();
      assert.equal(await page.getByRole("note", { name: "AI without a model" }).count(), 0);

      // A refused key: the reason and what to do, right under the rewrite button.
      ai.setDefault({
        status: 401,
        error: { message: "Incorrect API key provided", type: "invalid_request_error" },
      });
      await page.getByRole("textbox", { name: "Instruction" }).fill("Shorter");
      await page.getByRole("button", { name: "Suggest a rewrite" }).click();
      const alert = page.getByRole("region", { name: "Rewrite" }).getByRole("alert");
      await alert.waitFor();
      const said = await alert.innerText();
      assert.match(said, /The AI model did not answer: the server refused the API key/);
      assert.match(said, /OPENAI_API_KEY/);
      assert.match(said, /Tell your admin/);
      assert.equal(await editorText(page), MISTAKES, "the post is unchanged");
      await alert.scrollIntoViewIfNeeded();
      await screenshot(page, "ai-failing-model-502-1440");

      // A small model answering in prose: the checker's findings, and a plain word about it.
      ai.setDefault({ content: "Your post looks great! I would not change a thing." });
      await page.getByRole("button", { name: "Proofread" }).click();
      const warning = page.getByRole("status").filter({ hasText: "could not be used" });
      await warning.waitFor();
      assert.match(await warning.innerText(), /built-in checker's findings only/);
      assert.equal(await page.getByText("Nothing left to fix.").count(), 0);
      await waitFor(
        async () => (await underlined(page, "grammar")).length === 4,
        "the checker's underlines",
      );
      await checkA11y(page);
      await warning.scrollIntoViewIfNeeded();
      await screenshot(page, "ai-failing-model-unusable-1440");
      assert.deepEqual(web.pageErrors.filter((e) => !/502|Bad Gateway/.test(e)), []);
    } finally {
      await web.close();
      await ai.close();
    }
  },
);

Deno.test(
  "prompt editor: lists the placeholders generation fills and refuses {bogus} by name",
  e2e,
  async () => {
    const web = await startWebTest();
    try {
      const base = await twoMembersAndAPost(web);
      const page = await openEditor(web, base.url, base.alice);
      await page.goto(`${web.stack.url}/workspaces/${base.workspaceId}/prompts`);
      await page.getByRole("button", { name: "New prompt" }).first().click();
      const dialog = page.getByRole("dialog", { name: "New prompt" });
      await dialog.waitFor();
      const hint = dialog.locator("#prompt-template-hint");
      for (const name of ["idea_title", "idea_description", "examples", "length"]) {
        assert.ok((await hint.innerText()).includes(`{${name}}`), `the hint lists {${name}}`);
      }
      await dialog.getByRole("textbox", { name: "Name" }).fill("Ana");
      await dialog.getByRole("textbox", { name: "System instruction" }).fill("You write.");
      const template = dialog.getByRole("textbox", { name: "User template" });
      await template.fill("Write about {idea_title} in a {bogus} way");
      const problem = dialog.locator("#prompt-template-error");
      await problem.waitFor();
      assert.match(await problem.innerText(), /^\{bogus\} is not filled in by generation/);
      // The server refuses it too, naming it, if the form is sent anyway.
      await dialog.getByRole("button", { name: "Create prompt" }).click();
      await waitFor(
        async () => /generation does not fill/.test(await problem.innerText()),
        "the server's refusal at the field",
      );
      assert.match(await problem.innerText(), /^user_template uses \{bogus\}/);
      await checkA11y(page);
      await screenshot(page, "prompt-editor-placeholder-1440");
      await template.fill("Write about {idea_title} for {audience}");
      await dialog.getByRole("button", { name: "Create prompt" }).click();
      await page.getByRole("list", { name: "Your prompts" }).getByText("Ana").waitFor();
    } finally {
      await web.close();
    }
  },
);
