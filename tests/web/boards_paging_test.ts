/**
 * The boards load page by page: the ideas board in Chromium against the real stack, scrolled
 * to its end (the sentinel loads the next page), and driven from the keyboard ("Load more
 * ideas"), with its filters in the URL.
 */
import assert from "node:assert/strict";
import { api, e2e } from "../helpers/stack.ts";
import { createUser } from "../helpers/users.ts";
import {
  checkA11y,
  DESKTOP,
  type Page,
  PHONE,
  screenshot,
  SCREENSHOT_DIR,
  signIn,
  startWebTest,
} from "../helpers/browser.ts";
import { waitFor } from "../helpers/wait.ts";

/** The idea cards the board shows, in order (their headings). */
function cards(page: Page) {
  return page.locator("ul.idea-list > li");
}

async function shownTitles(page: Page): Promise<string[]> {
  return await cards(page).locator("h2.idea-title").allInnerTexts();
}

async function until(page: Page, count: number) {
  await waitFor(async () => (await cards(page).count()) === count, `${count} idea cards`, 15_000);
}

Deno.test(
  "ideas board: scrolling loads the next page, Load more works from the keyboard, filters stay in the URL",
  e2e,
  async () => {
    const web = await startWebTest();
    try {
      const user = await createUser(web.stack, { name: "Paige Scroller" });
      const created = await api(web.stack, "POST", "/api/workspaces", {
        token: user.access_token,
        body: { name: "Long lists" },
      });
      const ws = created.body.workspace_id as string;
      // 120 ideas, oldest first; every third tagged "deep"
      const total = 120;
      for (let start = 0; start < total; start += 10) {
        await Promise.all(
          Array.from({ length: 10 }, (_, k) => start + k).map(async (n) => {
            const res = await api(web.stack, "POST", "/api/ideas", {
              token: user.access_token,
              body: {
                workspace_id: ws,
                title: `Idea ${String(n).padStart(3, "0")}`,
                tags: n % 3 === 0 ? ["deep"] : [],
              },
            });
            assert.equal(res.status, 201);
          }),
        );
      }
      const api_list = await api(web.stack, "GET", `/api/ideas?workspaceId=${ws}`, {
        token: user.access_token,
      });
      const expected = (api_list.body.items as { title: string }[]).map((i) => i.title);

      const page = await web.newPage();
      const path = `/workspaces/${ws}/ideas`;
      await page.goto(web.stack.url + path);
      await signIn(page, user.email, user.password);
      await page.waitForURL(web.stack.url + path);

      // The first page only, and the board says more are coming.
      await until(page, 50);
      await page.getByText("50 ideas shown; more load as you scroll").waitFor();
      const more = page.getByRole("button", { name: "Load more ideas" });
      await more.waitFor();
      await new Promise((r) => setTimeout(r, 500));
      assert.equal(await cards(page).count(), 50, "the next page waits for the scroll");

      // Scrolling to the end loads the next pages without a click, each idea once, in order.
      await page.mouse.wheel(0, 100_000);
      await until(page, 100);
      await page.mouse.wheel(0, 100_000);
      await until(page, total);
      await page.getByText("All 120 ideas shown").waitFor();
      await page.getByText("120 ideas", { exact: true }).waitFor();
      assert.deepEqual(await shownTitles(page), expected);
      assert.equal(await more.count(), 0, "no Load more once everything is shown");
      await page.setViewportSize(DESKTOP);
      await checkA11y(page);
      await page.getByText("All 120 ideas shown").scrollIntoViewIfNeeded();
      await page.screenshot({ path: `${SCREENSHOT_DIR}ideas-paged-end-1440.png` });

      // A filter in the URL goes to the server; Load more is a button in the tab order.
      const filtered = `${path}?tags=deep`;
      await page.goto(web.stack.url + filtered);
      await until(page, 40);
      await page.getByText("40 ideas match the filters").waitFor();
      await page.goto(web.stack.url + `${path}?status=new`);
      await until(page, 50);
      await page.getByText("50 ideas matching the filters shown; more load as you scroll")
        .waitFor();

      // Where IntersectionObserver is missing, the button alone loads pages, from the keyboard.
      const keyboard = await web.newPage();
      await keyboard.addInitScript("delete globalThis.IntersectionObserver");
      await keyboard.goto(web.stack.url + `${path}?status=new`);
      await signIn(keyboard, user.email, user.password);
      await until(keyboard, 50);
      const button = keyboard.getByRole("button", { name: "Load more ideas" });
      await button.focus();
      assert.equal(
        await keyboard.evaluate(
          "document.activeElement?.tagName + ' ' + document.activeElement?.textContent",
        ),
        "BUTTON Load more ideas",
      );
      await keyboard.mouse.wheel(0, 100_000);
      await new Promise((r) => setTimeout(r, 300));
      assert.equal(
        await cards(keyboard).count(),
        50,
        "without the observer, scrolling loads nothing",
      );
      await keyboard.keyboard.press("Enter");
      await until(keyboard, 100);
      assert.equal(new URL(keyboard.url()).search, "?status=new", "the filter stays in the URL");
      await keyboard.keyboard.press("Enter");
      await until(keyboard, total);
      // the last page's button gives its focus to the note that replaces it
      await waitFor(
        async () =>
          await keyboard.evaluate("document.activeElement?.textContent") === "All 120 ideas shown",
        "the focus on the end note",
      );

      // 1440 and 375 wide: the first page whole, and (without auto-loading) its end in view.
      await page.goto(web.stack.url + path);
      await until(page, 50);
      await keyboard.goto(web.stack.url + path);
      await until(keyboard, 50);
      for (const [size, name] of [[DESKTOP, "1440"], [PHONE, "375"]] as const) {
        await page.setViewportSize(size);
        await checkA11y(page);
        await screenshot(page, `ideas-paged-first-${name}`);
        await page.screenshot({ path: `${SCREENSHOT_DIR}ideas-paged-top-${name}.png` });
        const overflow = await page.evaluate(
          "document.documentElement.scrollWidth > document.documentElement.clientWidth",
        );
        assert.equal(overflow, false, `no horizontal scrolling at ${name} px`);
        await keyboard.setViewportSize(size);
        await button.scrollIntoViewIfNeeded();
        await keyboard.screenshot({ path: `${SCREENSHOT_DIR}ideas-paged-load-more-${name}.png` });
      }
      assert.deepEqual(web.pageErrors, []);
    } finally {
      await web.close();
    }
  },
);

Deno.test(
  "posts and actions boards: scrolling loads every page of the tab or view in the URL",
  e2e,
  async () => {
    const web = await startWebTest();
    try {
      const user = await createUser(web.stack, { name: "Paige Scroller" });
      const created = await api(web.stack, "POST", "/api/workspaces", {
        token: user.access_token,
        body: { name: "Long lists" },
      });
      const ws = created.body.workspace_id as string;
      const post = (n: number) =>
        api(web.stack, "POST", "/api/posts", {
          token: user.access_token,
          body: { workspace_id: ws, title: `Post ${n}`, content: "text" },
        });
      const action = (n: number) =>
        api(web.stack, "POST", "/api/actions", {
          token: user.access_token,
          body: { workspace_id: ws, title: `Action ${n}`, assignee_id: user.user_id },
        });
      for (let n = 0; n < 60; n += 10) {
        const made = await Promise.all(Array.from({ length: 10 }, (_, k) => post(n + k)));
        assert.ok(made.every((r) => r.status === 201));
      }
      for (let n = 0; n < 55; n += 11) {
        const made = await Promise.all(Array.from({ length: 11 }, (_, k) => action(n + k)));
        assert.ok(made.every((r) => r.status === 201));
      }
      // one post in review: the tab shows it alone
      const first = await api(web.stack, "GET", `/api/posts?workspaceId=${ws}&limit=1`, {
        token: user.access_token,
      });
      await api(web.stack, "PUT", `/api/posts/${first.body.items[0].post_id}/status`, {
        token: user.access_token,
        body: { workspace_id: ws, status: "in_review" },
      });

      const page = await web.newPage();
      const drafts = `/workspaces/${ws}/posts?status=draft`;
      await page.goto(web.stack.url + drafts);
      await signIn(page, user.email, user.password);
      await page.waitForURL(web.stack.url + drafts);
      const rows = page.getByRole("list", { name: "Draft posts" }).getByRole("listitem");
      await waitFor(async () => (await rows.count()) === 50, "the first page of drafts");
      await page.mouse.wheel(0, 100_000);
      await waitFor(async () => (await rows.count()) === 59, "every draft", 15_000);
      await page.getByText("All 59 posts shown").waitFor();
      await page.getByRole("navigation", { name: "Post status" })
        .getByRole("link", { name: "In review" }).click();
      await page.waitForURL(/\?status=in_review$/);
      const inReview = page.getByRole("list", { name: "In review posts" }).getByRole("listitem");
      await waitFor(async () => (await inReview.count()) === 1, "the post in review");
      assert.equal(await page.getByRole("button", { name: "Load more posts" }).count(), 0);

      await page.goto(web.stack.url + `/workspaces/${ws}/actions?status=open`);
      const cardsOf = page.getByRole("list", { name: "Actions" }).locator(":scope > li");
      await waitFor(async () => (await cardsOf.count()) === 50, "the first page of actions");
      await page.getByRole("button", { name: "Load more actions" }).waitFor();
      await new Promise((r) => setTimeout(r, 500));
      assert.equal(await cardsOf.count(), 50, "the next page waits for the scroll");
      await page.mouse.wheel(0, 100_000);
      await waitFor(async () => (await cardsOf.count()) === 55, "every action", 15_000);
      assert.equal(new URL(page.url()).search, "?status=open");
      await checkA11y(page);
      assert.deepEqual(web.pageErrors, []);
    } finally {
      await web.close();
    }
  },
);
