import assert from "node:assert/strict";
import { e2e } from "../helpers/stack.ts";
import { approve, signupConfirmed } from "../helpers/users.ts";
import {
  checkA11y,
  DESKTOP,
  type Page,
  PHONE,
  screenshot,
  signIn,
  startWebTest,
} from "../helpers/browser.ts";

/** Every failing answer (4xx/5xx), console error and refresh call a page makes, as they come. */
function watch(page: Page) {
  const seen = { failures: [] as string[], consoleErrors: [] as string[], refreshes: 0 };
  page.on("response", (res) => {
    if (res.status() >= 400) {
      seen.failures.push(`${res.status()} ${res.request().method()} ${res.url()}`);
    }
  });
  page.on("console", (msg) => {
    if (msg.type() === "error") seen.consoleErrors.push(msg.text());
  });
  page.on("request", (req) => {
    if (new URL(req.url()).pathname === "/api/auth/refresh") seen.refreshes++;
  });
  return {
    seen,
    reset() {
      seen.failures.length = 0;
      seen.consoleErrors.length = 0;
      seen.refreshes = 0;
    },
  };
}

const hasMarker = (page: Page) =>
  page.evaluate('document.cookie.split(";").some((c) => c.trim() === "cp_session=1")');

Deno.test(
  "web: a signed-out visit makes no failing request and logs no console error",
  e2e,
  async (t) => {
    const web = await startWebTest();
    try {
      const user = await signupConfirmed(web.stack, { name: "Sam Signed-Out" });
      await approve(web.stack, user.user_id);
      const page = await web.newPage();
      const { seen, reset } = watch(page);

      await t.step("a signed-out load of a public screen asks for no refresh", async () => {
        await page.goto(`${web.stack.url}/signup`);
        await page.getByRole("heading", { name: "Create your account" }).waitFor();
        await page.waitForLoadState("networkidle");
        assert.deepEqual(seen.failures, []);
        assert.deepEqual(seen.consoleErrors, []);
        assert.equal(seen.refreshes, 0);
        await checkA11y(page);
        await screenshot(page, "signed-out-signup-1440");
        await page.setViewportSize(PHONE);
        await screenshot(page, "signed-out-signup-375");
      });

      await t.step("a signed-out load of the app goes to sign-in without an error", async () => {
        reset();
        await page.goto(`${web.stack.url}/`);
        await page.getByLabel("Email").waitFor();
        await page.waitForLoadState("networkidle");
        assert.match(new URL(page.url()).pathname, /^\/oauth\/authorize/);
        assert.deepEqual(seen.failures, []);
        assert.deepEqual(seen.consoleErrors, []);
        assert.equal(seen.refreshes, 0);
        await screenshot(page, "signed-out-login-375");
        // The hosted sign-in page has the app's signed-out look: the brand above a card with
        // room on both sides, and passes the same accessibility check.
        const card = await page.locator("main").boundingBox();
        assert.ok(card && card.x >= 8 && card.x + card.width <= PHONE.width - 8, "card margins");
        await page.getByText("Content Pipeline", { exact: true }).waitFor();
        await checkA11y(page);
        await page.setViewportSize(DESKTOP);
        await screenshot(page, "signed-out-login-1440");
        await page.setViewportSize(PHONE);
      });

      await t.step("signed in, a reload keeps the session with one refresh call", async () => {
        await signIn(page, user.email, user.password);
        await page.getByRole("button", { name: /Sam Signed-Out/ }).waitFor();
        assert.equal(await hasMarker(page), true);
        assert.equal(await page.evaluate('document.cookie.includes("cp_refresh")'), false);
        reset();
        await page.reload();
        await page.getByRole("button", { name: /Sam Signed-Out/ }).waitFor();
        await page.waitForLoadState("networkidle");
        assert.equal(seen.refreshes, 1);
        assert.deepEqual(seen.failures, []);
        await page.setViewportSize({ width: 1440, height: 900 });
        await screenshot(page, "signed-in-after-reload-1440");
      });

      await t.step("after sign out a reload asks for no refresh", async () => {
        await page.getByRole("button", { name: /Sam Signed-Out/ }).click();
        await page.getByRole("button", { name: "Sign out" }).click();
        await page.getByRole("heading", { name: "You are signed out" }).waitFor();
        assert.equal(await hasMarker(page), false);
        reset();
        await page.goto(`${web.stack.url}/signup`);
        await page.getByRole("heading", { name: "Create your account" }).waitFor();
        await page.waitForLoadState("networkidle");
        assert.equal(seen.refreshes, 0);
        assert.deepEqual(seen.failures, []);
        assert.deepEqual(seen.consoleErrors, []);
      });

      await t.step("the pages ran under their CSP without errors", () => {
        assert.deepEqual(web.pageErrors, []);
      });
    } finally {
      await web.close();
    }
  },
);
