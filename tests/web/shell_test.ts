import assert from "node:assert/strict";
import { api, e2e } from "../helpers/stack.ts";
import { approve, createUser, login, signupConfirmed } from "../helpers/users.ts";
import {
  checkA11y,
  type Page,
  PHONE,
  screenshot,
  signIn,
  startWebTest,
  webStorage,
} from "../helpers/browser.ts";

Deno.test(
  "web shell: a deep link goes through the hosted login and back; reload keeps the session; sign out ends it",
  e2e,
  async (t) => {
    const web = await startWebTest();
    try {
      const user = await signupConfirmed(web.stack, { name: "Robin Writer" });
      await approve(web.stack, user.user_id);
      const tokens = await login(web.stack, user.email, user.password);
      const created = await api(web.stack, "POST", "/api/workspaces", {
        token: tokens.access_token,
        body: { name: "Launch team" },
      });
      assert.equal(created.status, 201);
      const deepLink = `/workspaces/${created.body.workspace_id}/ideas`;
      const page = await web.newPage();
      const refreshCalls: string[] = [];
      page.on("request", (req) => {
        if (new URL(req.url()).pathname === "/api/auth/refresh") refreshCalls.push(req.url());
      });

      await t.step("a signed-out deep link goes through the hosted login and back", async () => {
        await page.goto(web.stack.url + deepLink);
        await signIn(page, user.email, user.password);
        await page.waitForURL(web.stack.url + deepLink);
        await page.getByRole("heading", { name: "Ideas", exact: true }).waitFor();
        assert.equal(
          await page.getByRole("combobox", { name: "Workspace" }).inputValue(),
          created.body.workspace_id,
        );
      });

      await t.step("no token is kept in localStorage or sessionStorage", async () => {
        // the last workspace visited is kept (an id, not a token): every other key is a failure
        const stored = (await webStorage(page)).filter((s) =>
          !s.startsWith("local:cp_last_workspace=")
        );
        assert.deepEqual(stored, [], `web storage holds ${stored.join(", ")}`);
        const cookies = await page.context().cookies();
        const refresh = cookies.find((c) => c.name === "cp_refresh");
        assert.ok(refresh?.httpOnly, "cp_refresh is an HttpOnly cookie");
        assert.equal(refresh?.sameSite, "Strict");
        assert.equal(await page.evaluate('document.cookie.includes("cp_refresh")'), false);
      });

      await t.step("a reload keeps the session with one refresh call", async () => {
        refreshCalls.length = 0;
        await page.reload();
        await page.getByRole("heading", { name: "Ideas", exact: true }).waitFor();
        assert.equal(new URL(page.url()).pathname, deepLink);
        assert.equal(refreshCalls.length, 1);
        assert.deepEqual(
          (await webStorage(page)).filter((s) => !s.startsWith("local:cp_last_workspace=")),
          [],
        );
      });

      await t.step("the shell passes axe at 1440 and 375 px", async () => {
        await checkA11y(page);
        await screenshot(page, "shell-ideas-1440");
        await page.setViewportSize(PHONE);
        await page.getByRole("button", { name: /Robin Writer/ }).waitFor();
        await checkA11y(page);
        await screenshot(page, "shell-ideas-375");
        const overflow = await page.evaluate(
          "document.documentElement.scrollWidth > document.documentElement.clientWidth",
        );
        assert.equal(overflow, false, "no horizontal scrolling at 375 px");
      });

      await t.step(
        "at 1280 px the top bar keeps one row (the avatar stands for the name)",
        async () => {
          await page.setViewportSize({ width: 1280, height: 800 });
          const user = page.getByRole("button", { name: /Robin Writer/ });
          const brand = await page.getByRole("link", { name: "Content Pipeline" }).boundingBox();
          const avatar = await user.boundingBox();
          assert.ok(brand && avatar);
          assert.ok(
            Math.abs((avatar.y + avatar.height / 2) - (brand.y + brand.height / 2)) < 12,
            `the user's button is on the brand's row (brand y ${brand.y}, user y ${avatar.y})`,
          );
          await screenshot(page, "shell-ideas-1280");
        },
      );

      await t.step(
        "from 640 to 1279 px the top bar keeps to two rows, nothing overlapping or cut off; " +
          "from 768 px the bell and the account stay on the brand's row",
        async () => {
          for (const width of [640, 700, 760, 800, 1024, 1200, 1279]) {
            await page.setViewportSize({ width, height: 800 });
            await page.waitForFunction(`window.innerWidth === ${width}`);
            const bar = await topBarLayout(page);
            assert.ok(
              bar.rows <= 2,
              `at ${width} px the top bar takes ${bar.rows} rows (${bar.height} px high)`,
            );
            assert.deepEqual(bar.overlapping, [], `at ${width} px no control covers another`);
            assert.deepEqual(bar.cutOff, [], `at ${width} px every control is in the window`);
            if (width >= 768) {
              assert.ok(bar.endBesideBrand, `at ${width} px the bell and the account are on row 1`);
            }
            await screenshot(page, `shell-top-bar-${width}`);
          }
        },
      );

      await t.step(
        "at 700 px the sections are behind the Menu button; Escape closes it",
        async () => {
          await page.setViewportSize({ width: 700, height: 800 });
          const menu = page.getByRole("button", { name: "Menu" });
          const posts = page.getByRole("navigation", { name: "Main" }).getByRole("link", {
            name: "Posts",
          });
          await menu.waitFor();
          await posts.waitFor({ state: "hidden" });
          await menu.click();
          await posts.waitFor();
          assert.equal(await menu.getAttribute("aria-expanded"), "true");
          await checkA11y(page);
          await screenshot(page, "shell-top-bar-menu-700");
          await page.keyboard.press("Escape");
          await posts.waitFor({ state: "hidden" });
          assert.equal(
            await page.evaluate(`document.activeElement?.getAttribute("aria-controls")`),
            "top-bar-menu",
            "the focus is back on the Menu button",
          );
          await page.setViewportSize({ width: 1280, height: 800 });
        },
      );

      await t.step(
        "a link to someone else's workspace says once that it is not yours, with a way back",
        async () => {
          const stranger = await createUser(web.stack, { name: "Sid Stranger" });
          const theirs = await api(web.stack, "POST", "/api/workspaces", {
            token: stranger.access_token,
            body: { name: "Not yours" },
          });
          assert.equal(theirs.status, 201);
          for (const section of ["ideas", "actions"]) {
            await page.goto(`${web.stack.url}/workspaces/${theirs.body.workspace_id}/${section}`);
            await page.getByRole("heading", {
              name: "You do not have access to this workspace",
              level: 1,
            }).waitFor();
            // no panel of the screen tried (and failed) on its own
            assert.equal(await page.getByText("Not a workspace member").count(), 0);
            assert.equal(await page.getByRole("button", { name: "Retry" }).count(), 0);
          }
          await checkA11y(page);
          await screenshot(page, "shell-not-a-member-1280");
          await page.getByRole("link", { name: "Go to your workspaces" }).click();
          await page.getByRole("heading", { name: "Ideas", exact: true }).waitFor();
          assert.equal(new URL(page.url()).pathname, deepLink);
        },
      );

      await t.step(
        "a list that fails to load says so once, in words (not a proxy's HTML page), and Retry recovers",
        async () => {
          const postsLink = `${web.stack.url}/workspaces/${created.body.workspace_id}/posts`;
          await page.route("**/api/posts?**", (route) =>
            route.fulfill({
              status: 502,
              contentType: "text/html",
              body: "<html><body><h1>502 Bad Gateway</h1><hr>proxy</body></html>",
            }));
          await page.goto(postsLink);
          const alert = page.getByRole("alert");
          await alert.filter({ hasText: "The server answered 502" }).waitFor();
          assert.equal(await alert.count(), 1, "one error, not one per panel");
          assert.equal(await page.getByText("<html>").count(), 0);
          await checkA11y(page);
          await screenshot(page, "shell-posts-502-1280");
          await page.unroute("**/api/posts?**");
          await page.getByRole("button", { name: "Retry" }).click();
          await page.getByRole("heading", { name: "No posts yet" }).waitFor();
          assert.equal(await alert.count(), 0);
        },
      );

      await t.step(
        "a link to a post that is gone says so and leads back to the posts",
        async () => {
          await page.goto(
            `${web.stack.url}/workspaces/${created.body.workspace_id}/posts/01ZZZZZZZZZZZZZZZZZZZZZZZZ`,
          );
          await page.getByRole("alert").filter({ hasText: "This post does not exist" }).waitFor();
          // Retry cannot bring back a post that is not there
          assert.equal(await page.getByRole("button", { name: "Retry" }).count(), 0);
          await checkA11y(page);
          await page.getByRole("link", { name: "Back to posts" }).click();
          await page.getByRole("heading", { name: "Posts", exact: true }).waitFor();
        },
      );

      await t.step("sign out ends the session on the server", async () => {
        const before = (await page.context().cookies()).find((c) => c.name === "cp_refresh");
        assert.ok(before);
        await page.getByRole("button", { name: /Robin Writer/ }).click();
        await page.getByRole("button", { name: "Sign out" }).click();
        await page.getByRole("heading", { name: "You are signed out" }).waitFor();
        await checkA11y(page);
        await screenshot(page, "shell-signed-out-375");
        const after = (await page.context().cookies()).find((c) => c.name === "cp_refresh");
        assert.equal(after, undefined, "the cookie is cleared");
        const reuse = await api(web.stack, "POST", "/api/auth/refresh", {
          body: {},
          headers: { cookie: `cp_refresh=${before.value}` },
        });
        assert.equal(reuse.status, 401, "the old refresh cookie no longer refreshes");
      });

      await t.step("the page ran under its CSP without errors", () => {
        assert.deepEqual(web.pageErrors, []);
      });
    } finally {
      await web.close();
    }
  },
);

Deno.test(
  "web shell: Back after signing in leads to the hosted login; signing in there again carries on signed in (not 'stale')",
  e2e,
  async () => {
    const web = await startWebTest();
    try {
      const user = await signupConfirmed(web.stack, { name: "Robin Writer" });
      await approve(web.stack, user.user_id);
      const tokens = await login(web.stack, user.email, user.password);
      const created = await api(web.stack, "POST", "/api/workspaces", {
        token: tokens.access_token,
        body: { name: "Launch team" },
      });
      assert.equal(created.status, 201);
      const page = await web.newPage();
      await page.goto(`${web.stack.url}/workspaces/${created.body.workspace_id}/posts`);
      await signIn(page, user.email, user.password);
      await page.getByRole("heading", { name: "Posts", exact: true }).waitFor();

      // Back: the hosted login form again (its entry stays in the history), with the state of
      // the sign-in that already finished
      await page.goBack();
      await signIn(page, user.email, user.password);
      // the session is still there: the app carries on with it instead of an error
      await page.getByRole("heading", { name: "Ideas", exact: true }).waitFor();
      assert.equal(
        new URL(page.url()).pathname,
        `/workspaces/${created.body.workspace_id}/ideas`,
      );
      assert.equal(await page.getByText(/sign-in link is stale/).count(), 0);
      assert.deepEqual(web.pageErrors, []);
    } finally {
      await web.close();
    }
  },
);

Deno.test(
  "keyboard: a button pressed with Enter keeps the focus while it is disabled for its request (settings Save, the editor's Publish now with its error)",
  e2e,
  async () => {
    const web = await startWebTest();
    try {
      const user = await signupConfirmed(web.stack, { name: "Robin Writer" });
      await approve(web.stack, user.user_id);
      const tokens = await login(web.stack, user.email, user.password);
      const created = await api(web.stack, "POST", "/api/workspaces", {
        token: tokens.access_token,
        body: { name: "Launch team" },
      });
      assert.equal(created.status, 201);
      const workspaceId = created.body.workspace_id;
      const post = await api(web.stack, "POST", "/api/posts", {
        token: tokens.access_token,
        body: { workspace_id: workspaceId, title: "Launch notes", content: "Hello" },
      });
      assert.equal(post.status, 201);
      const page = await web.newPage();
      const focused = () => page.evaluate("document.activeElement?.textContent?.trim() ?? null");

      await page.goto(`${web.stack.url}/workspaces/${workspaceId}/settings`);
      await signIn(page, user.email, user.password);
      const save = page.getByRole("button", { name: "Save settings" });
      await save.focus();
      await page.keyboard.press("Enter");
      await page.getByRole("status").filter({ hasText: /^Saved$/ }).waitFor();
      assert.equal(await focused(), "Save settings", "the focus is back on Save settings");

      await page.goto(`${web.stack.url}/workspaces/${workspaceId}/posts/${post.body.post_id}`);
      await page.getByRole("status", { name: "Connection" }).filter({ hasText: "Live" }).waitFor();
      await page.getByRole("button", { name: "Publish now" }).focus();
      await page.keyboard.press("Enter");
      await page.getByText("LinkedIn is not connected").waitFor();
      await page.waitForFunction(`[...document.querySelectorAll("button")]
        .some((b) => b.textContent.trim() === "Publish now" && !b.disabled)`);
      assert.equal(await focused(), "Publish now", "the focus is back on Publish now");
      assert.deepEqual(web.pageErrors, []);
    } finally {
      await web.close();
    }
  },
);

/**
 * The top bar's visible controls: how many rows they take (a control whose middle is below the
 * bottom of the row above starts a new one), which ones cover another, which ones stick out of
 * the window.
 */
async function topBarLayout(page: Page) {
  return await page.evaluate(`(() => {
    const bar = document.querySelector(".top-bar");
    const boxes = [...bar.querySelectorAll("a, button, select")]
      .map((el) => ({ name: el.textContent.trim() || el.getAttribute("aria-label") || el.tagName, r: el.getBoundingClientRect() }))
      .filter((b) => b.r.width > 0 && b.r.height > 0)
      .sort((a, b) => a.r.top - b.r.top);
    let rows = 0;
    let rowBottom = -Infinity;
    for (const { r } of boxes) {
      if (r.top + r.height / 2 > rowBottom) rows++;
      rowBottom = Math.max(rowBottom, r.bottom);
    }
    const overlapping = [];
    for (const [i, a] of boxes.entries()) {
      for (const b of boxes.slice(i + 1)) {
        if (a.r.left < b.r.right - 1 && b.r.left < a.r.right - 1 &&
            a.r.top < b.r.bottom - 1 && b.r.top < a.r.bottom - 1) overlapping.push(a.name + " / " + b.name);
      }
    }
    const cutOff = boxes
      .filter((b) => b.r.left < 0 || b.r.right > document.documentElement.clientWidth)
      .map((b) => b.name);
    const middle = (r) => r.top + r.height / 2;
    const brand = bar.querySelector(".brand").getBoundingClientRect();
    const end = bar.querySelector(".top-bar-end").getBoundingClientRect();
    const endBesideBrand = Math.abs(middle(end) - middle(brand)) < brand.height;
    return {
      rows,
      height: Math.round(bar.getBoundingClientRect().height),
      overlapping,
      cutOff,
      endBesideBrand,
    };
  })()`) as {
    rows: number;
    height: number;
    overlapping: string[];
    cutOff: string[];
    endBesideBrand: boolean;
  };
}
