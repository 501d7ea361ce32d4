import assert from "node:assert/strict";
import { api, e2e } from "../helpers/stack.ts";
import { checkA11y, type Page, PHONE, screenshot, startWebTest } from "../helpers/browser.ts";
import { editorPair, editorText, openEditor } from "./editor_fixture.ts";
import { settledValue, waitFor } from "../helpers/wait.ts";

async function waitForText(page: Page, check: (text: string) => boolean, what: string) {
  let text = "";
  await waitFor(async () => check(text = await editorText(page)), what).catch(() => {
    throw new Error(`${what}: the editor shows ${JSON.stringify(text)}`);
  });
  return text;
}

/** Polls an in-page expression (page.waitForFunction would need 'unsafe-eval' under our CSP). */
async function until(page: Page, expression: string, what: string) {
  await waitFor(async () => Boolean(await page.evaluate(expression)), what);
}

function connection(page: Page) {
  return page.getByRole("status", { name: "Connection" });
}

function counter(page: Page, name: string) {
  return page.locator(".editor-counter", { hasText: name }).locator("dd");
}

Deno.test(
  "post editor: two members converge live, see each other's named cursor, survive going offline; counters, title and status save",
  e2e,
  async (t) => {
    const web = await startWebTest();
    try {
      const { pageA, pageB, alice, workspaceId, postId, url } = await editorPair(web, {
        content: "Hello team",
      });
      const boxA = pageA.getByRole("textbox", { name: "Post text" });
      const boxB = pageB.getByRole("textbox", { name: "Post text" });

      await t.step("both load the post's text and show Live", async () => {
        assert.equal(await editorText(pageA), "Hello team");
        assert.equal(await editorText(pageB), "Hello team");
        assert.equal((await connection(pageA).textContent())?.trim(), "Live");
        // the title is a field; the page's main heading still names the post
        await pageA.getByRole("heading", { name: "Launch notes", level: 1 }).waitFor();
      });

      await t.step("both type; both end with the same text holding both edits", async () => {
        await boxA.click();
        await pageA.keyboard.press("Control+End");
        await boxB.click();
        await pageB.keyboard.press("Control+Home");
        await Promise.all([
          pageA.keyboard.type(" from Alice", { delay: 15 }),
          pageB.keyboard.type("Bob says: ", { delay: 15 }),
        ]);
        const want = "Bob says: Hello team from Alice";
        await waitForText(pageA, (s) => s === want, "Alice's editor");
        await waitForText(pageB, (s) => s === want, "Bob's editor");
      });

      await t.step("each sees the other's cursor, labelled with their name", async () => {
        await pageA.locator(".cp-remote-caret-label", { hasText: "Bob Editor" }).waitFor();
        await pageB.locator(".cp-remote-caret-label", { hasText: "Alice Writer" }).waitFor();
        // The label is coloured by a palette class, never by an inline style.
        const cls = await pageA.locator(".cp-remote-caret").first().getAttribute("class");
        assert.match(cls ?? "", /cp-cursor-\d/);
        assert.equal(
          await pageA.locator(".cp-remote-caret[style], .cp-remote-selection[style]").count(),
          0,
        );
        // Presence: both avatars on both screens.
        await pageA.getByRole("list", { name: /2 people editing/ }).waitFor();
        const avatars = await pageB.locator(".presence-avatar").allTextContents();
        assert.equal(avatars.length, 2);
        assert.ok(avatars.some((a) => a.includes("Alice Writer")), avatars.join("|"));
      });

      await t.step("the same person in a second tab is one avatar, not two", async () => {
        const aliceAgain = await openEditor(web, url, alice);
        try {
          await aliceAgain.getByRole("list", { name: /2 people editing/ }).waitFor();
          // Let every awareness state arrive, then count: the duplicate Alice never shows.
          await aliceAgain.waitForTimeout(1500);
          assert.equal(await aliceAgain.locator(".presence-avatar").count(), 2);
          assert.equal(await pageB.locator(".presence-avatar").count(), 2);
        } finally {
          await aliceAgain.context().close();
        }
      });

      await t.step("counters follow the text live, in the other browser too", async () => {
        await pageA.keyboard.type(" #launch #week 🚀");
        const want = "Bob says: Hello team from Alice #launch #week 🚀";
        await waitForText(pageB, (s) => s === want, "Bob's editor");
        await until(
          pageB,
          `document.querySelector(".editor-counter.is-ok dd")?.textContent.startsWith("${want.length} / 3,000")`,
          "the character count",
        );
        assert.equal((await counter(pageB, "Hashtags").textContent())?.trim(), "2");
        assert.equal((await counter(pageB, "Emoji").textContent())?.trim(), "1");
      });

      await t.step(
        "offline: the state says so with edits pending; they sync when back",
        async () => {
          const context = pageA.context();
          await context.setOffline(true);
          await connection(pageA).filter({ hasText: "Offline" }).waitFor();
          await pageA.keyboard.type(" (sent later)", { delay: 10 });
          await connection(pageA).filter({ hasText: /Offline — \d+ edits pending/ }).waitFor();
          // Bob's editor has settled: what it shows now is all that reached it.
          await settledValue(() => editorText(pageB), 300);
          assert.ok(!(await editorText(pageB)).includes("sent later"), "not sent while offline");
          await screenshot(pageA, "editor-offline-1440");
          await context.setOffline(false);
          await connection(pageA).filter({ hasText: /^Live$/ }).waitFor({ timeout: 10_000 });
          await waitForText(pageB, (s) => s.endsWith("🚀 (sent later)"), "Bob's editor");
          await waitForText(pageA, (s) => s.endsWith("🚀 (sent later)"), "Alice's editor");
          // Presence comes back at once (not at the next 15 s awareness renewal).
          await pageA.getByRole("list", { name: /2 people editing/ }).waitFor({ timeout: 5_000 });
          await pageB.getByRole("list", { name: /2 people editing/ }).waitFor({ timeout: 5_000 });
          await pageA.locator(".cp-remote-caret-label", { hasText: "Bob Editor" }).waitFor();
        },
      );

      await t.step("title, tags and status save to the API", async () => {
        const title = pageA.getByRole("textbox", { name: "Title" });
        await title.fill("Launch week recap");
        await pageA.getByRole("textbox", { name: "Tags" }).fill("launch, recap");
        await pageA.getByRole("status", { name: "Save state" })
          .filter({ hasText: "All changes saved" }).waitFor();
        await pageA.getByRole("combobox", { name: "Status" }).selectOption("in_review");
        await until(pageA, `!document.querySelector("#post-status").disabled`, "the status save");
        const res = await api(
          web.stack,
          "GET",
          `/api/posts/${postId}?workspaceId=${workspaceId}`,
          { token: alice.access_token },
        );
        assert.equal(res.status, 200);
        assert.equal(res.body.title, "Launch week recap");
        assert.deepEqual(res.body.tags, ["launch", "recap"]);
        assert.equal(res.body.status, "in_review");
        await pageA.getByRole("heading", { name: "Launch week recap", level: 1 }).waitFor();
        assert.equal(
          res.body.content,
          "Bob says: Hello team from Alice #launch #week 🚀 (sent later)",
        );
      });

      await t.step("accessible at 1440 and 375 px, screenshots", async () => {
        await checkA11y(pageA);
        await screenshot(pageA, "editor-post-1440");
        await screenshot(pageB, "editor-post-bob-1440");
        await pageB.setViewportSize(PHONE);
        // a long title wraps on a phone: all of it is in view, none scrolled out of the field
        const long = "Launch week recap: what we shipped, what broke, and what comes next";
        await pageB.getByRole("textbox", { name: "Title" }).fill(long);
        const fits = await pageB.evaluate(`(() => {
          const el = document.querySelector("#post-title");
          return el.value.length > 0 && el.scrollWidth <= el.clientWidth + 1 &&
            el.scrollHeight <= el.clientHeight + 1;
        })()`);
        assert.equal(fits, true, "the whole title shows at 375 px");
        await pageB.getByRole("status", { name: "Save state" })
          .filter({ hasText: "All changes saved" }).waitFor();
        await checkA11y(pageB);
        await screenshot(pageB, "editor-post-375");
        const overflow = await pageB.evaluate(
          "document.documentElement.scrollWidth > document.documentElement.clientWidth",
        );
        assert.equal(overflow, false, "no horizontal scrolling at 375 px");
      });

      assert.deepEqual(web.pageErrors, []);
    } finally {
      await web.close();
    }
  },
);
