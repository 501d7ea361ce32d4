/**
 * Personal settings and the settings around them, in the browser: the user menu opens
 * Personal settings; the time zone starts as the browser's; name and zone are saved (the top
 * bar follows); a wrong current password is refused and a new one that breaks the rules is
 * shown its rule; a password change keeps this tab signed in (a reload too) and signs the other
 * sessions out. A new workspace starts in the browser's zone; the workspace settings take how
 * many approvals a post needs; the Admin link counts the accounts awaiting approval and follows
 * a new one without a reload; the code screen says where the code is without email.
 */
import assert from "node:assert/strict";
import { api, e2e } from "../helpers/stack.ts";
import {
  type BrowserContext,
  checkA11y,
  DESKTOP,
  type Page,
  PHONE,
  screenshot,
  signIn,
  startWebTest,
  type WebTest,
} from "../helpers/browser.ts";
import { createUser, loginAdmin, signupConfirmed } from "../helpers/users.ts";
import { waitFor } from "../helpers/wait.ts";
import { reviewTeam } from "./review_fixture.ts";

const NEW_PASSWORD = "Fresh-Passw0rd!";

/** A page in a context whose clock is in `timezoneId` (the browser's zone the app sees). */
async function pageIn(
  web: WebTest,
  contexts: BrowserContext[],
  timezoneId: string,
  viewport = { width: 1440, height: 900 },
): Promise<Page> {
  const context = await web.browser.newContext({ viewport, timezoneId });
  contexts.push(context);
  const page = await context.newPage();
  page.on("pageerror", (err) => web.pageErrors.push(`uncaught: ${err.message}`));
  return page;
}

Deno.test(
  "personal settings: name and time zone saved, a wrong current password refused, a changed password keeps this tab signed in and signs the others out",
  e2e,
  async () => {
    const web = await startWebTest();
    const contexts: BrowserContext[] = [];
    try {
      const { stack } = web;
      const user = await createUser(stack, { name: "Ann Author" });
      const page = await pageIn(web, contexts, "America/New_York");
      await page.goto(`${stack.url}/`);
      await signIn(page, user.email, user.password);
      await page.getByRole("heading", { name: "Create your first workspace" }).waitFor();
      await page.getByRole("button", { name: /Ann Author/ }).click();
      await page.getByRole("link", { name: "Personal settings" }).click();
      await page.getByRole("heading", { name: "Personal settings" }).waitFor();
      assert.equal(new URL(page.url()).pathname, "/account");
      const zone = page.getByLabel("Time zone");
      assert.equal(await zone.inputValue(), "America/New_York", "the browser's zone first");
      await page.getByText("Not saved yet: this is your browser's zone.").waitFor();
      await checkA11y(page);
      await screenshot(page, "settings-1440");

      await page.getByLabel("Name", { exact: true }).fill("Ann Renamed");
      await zone.selectOption("Asia/Tokyo");
      await page.getByRole("button", { name: "Save profile" }).click();
      await page.getByRole("status").filter({ hasText: "Saved" }).waitFor();
      await page.getByRole("button", { name: /Ann Renamed/ }).waitFor();
      const me = await api(stack, "GET", "/api/auth/me", { token: user.access_token });
      assert.equal(me.body.name, "Ann Renamed");
      assert.equal(me.body.timezone, "Asia/Tokyo");

      // Another session, signed in before the change.
      const other = await web.newPage();
      await other.goto(`${stack.url}/`);
      await signIn(other, user.email, user.password);
      await other.getByRole("heading", { name: "Create your first workspace" }).waitFor();

      // A wrong current password is refused; the rules are checked before sending.
      await page.getByLabel("Current password").fill("Not-the-0ne!");
      await page.locator("#account-new-password").fill(NEW_PASSWORD);
      await page.getByRole("button", { name: "Change password" }).click();
      await page.getByRole("alert").filter({ hasText: "Current password is incorrect" }).waitFor();
      assert.equal(
        await page.getByLabel("Current password").getAttribute("aria-invalid"),
        "true",
      );
      await page.getByLabel("Current password").fill(user.password);
      await page.locator("#account-new-password").fill("short");
      await page.getByRole("button", { name: "Change password" }).click();
      await page.getByText("Password must be at least 8 characters long").waitFor();
      await checkA11y(page);
      await screenshot(page, "settings-password-refused-1440");
      const still = await api(stack, "POST", "/api/auth/login", {
        body: { email: user.email, password: user.password },
      });
      assert.equal(still.status, 200, "nothing changed so far");

      await page.locator("#account-new-password").fill(NEW_PASSWORD);
      await page.getByRole("button", { name: "Change password" }).click();
      await page.getByRole("status").filter({ hasText: "Password changed" }).waitFor();
      assert.equal(await page.getByLabel("Current password").inputValue(), "");

      // This tab goes on with the new session, after a reload too.
      await page.getByRole("link", { name: "Content Pipeline" }).click();
      await page.getByRole("heading", { name: "Create your first workspace" }).waitFor();
      await page.goto(`${stack.url}/account`);
      await page.getByRole("heading", { name: "Personal settings" }).waitFor();
      assert.equal(await page.getByLabel("Time zone").inputValue(), "Asia/Tokyo");
      const login = await api(stack, "POST", "/api/auth/login", {
        body: { email: user.email, password: NEW_PASSWORD },
      });
      assert.equal(login.status, 200);
      const oldLogin = await api(stack, "POST", "/api/auth/login", {
        body: { email: user.email, password: user.password },
      });
      assert.equal(oldLogin.status, 401);
      // The other session is signed out: its next call finds no session to refresh.
      await waitFor(
        async () =>
          (await api(stack, "GET", "/api/auth/me", { token: user.access_token })).status === 401,
        "the old token refused",
      );
      await other.reload();
      await other.waitForURL(/\/oauth\/authorize/);

      const phone = await pageIn(web, contexts, "Europe/Paris", PHONE);
      await phone.goto(`${stack.url}/account`);
      await signIn(phone, user.email, NEW_PASSWORD);
      await phone.getByRole("heading", { name: "Personal settings" }).waitFor();
      await checkA11y(phone);
      await screenshot(phone, "settings-375");
      assert.deepEqual(web.pageErrors, []);
    } finally {
      for (const c of contexts) await c.close().catch(() => {});
      await web.close();
    }
  },
);

Deno.test(
  "settings around review: a new workspace in the browser's zone, approvals needed, the Admin link's count of accounts awaiting approval, the code screen's outbox note",
  e2e,
  async () => {
    const web = await startWebTest();
    const contexts: BrowserContext[] = [];
    try {
      const { stack } = web;
      const { owner, workspaceId } = await reviewTeam(stack);

      // The workspace settings: approvals needed, beside "approval required".
      const page = await pageIn(web, contexts, "Australia/Sydney");
      await page.goto(`${stack.url}/workspaces/${workspaceId}/settings`);
      await signIn(page, owner.email, owner.password);
      const approvals = page.getByLabel("Approvals needed");
      await approvals.waitFor();
      assert.equal(await approvals.isDisabled(), true, "needs approval on first");
      await page.getByRole("checkbox", { name: "Approval required before publishing" }).check();
      await approvals.selectOption("3");
      await page.getByText("3 different reviewers must approve the same text").waitFor();
      await checkA11y(page);
      await screenshot(page, "settings-workspace-approvals-1440");
      await page.getByRole("button", { name: "Save settings" }).click();
      await page.getByRole("status").filter({ hasText: "Saved" }).first().waitFor();
      const ws = await api(stack, "GET", `/api/workspaces/${workspaceId}`, {
        token: owner.access_token,
      });
      assert.equal(ws.body.approval_required, true);
      assert.equal(ws.body.approvals_required, 3);

      // A new workspace starts in the browser's time zone.
      await page.getByRole("button", { name: "New workspace" }).click();
      const dialog = page.getByRole("dialog", { name: "New workspace" });
      assert.equal(await dialog.getByLabel("Time zone").inputValue(), "Australia/Sydney");
      await dialog.getByLabel("Name").fill("Sydney desk");
      await dialog.getByRole("button", { name: "Create workspace" }).click();
      await page.waitForURL(/\/workspaces\/[^/]+\/ideas$/);
      const newId = new URL(page.url()).pathname.split("/")[2];
      const created = await api(stack, "GET", `/api/workspaces/${newId}`, {
        token: owner.access_token,
      });
      assert.equal(created.body.timezone, "Australia/Sydney");

      // The admin's top bar counts the accounts awaiting approval, and follows a new one.
      const admin = await loginAdmin(stack);
      const adminPage = await web.newPage();
      await adminPage.goto(`${stack.url}/admin`);
      await signIn(adminPage, admin.email, admin.password);
      await adminPage.getByRole("heading", { name: "No one is waiting for approval" }).waitFor();
      const adminLink = adminPage.getByRole("navigation", { name: "Main" }).getByRole("link", {
        name: /^Admin/,
      });
      assert.equal(await adminLink.innerText(), "Admin");
      await adminPage.evaluate("globalThis.__noReload = true");
      await signupConfirmed(stack, { name: "Pat Pending" });
      await adminLink.filter({ hasText: "1" }).waitFor({ timeout: 30_000 });
      assert.match(await adminLink.textContent() ?? "", /Admin1account awaits approval/);
      assert.equal(await adminPage.evaluate("globalThis.__noReload"), true, "no reload");
      await checkA11y(adminPage);
      await screenshot(adminPage, "admin-badge-1440");
      // Without a workspace, Admin and its badge stay on the brand's row at 1280 and 800 px.
      for (const width of [1280, 800]) {
        await adminPage.setViewportSize({ width, height: 800 });
        const brand = await adminPage.getByRole("link", { name: "Content Pipeline" }).boundingBox();
        const badge = await adminLink.boundingBox();
        assert.ok(brand && badge);
        const sameRow = Math.abs((badge.y + badge.height / 2) - (brand.y + brand.height / 2)) < 12;
        assert.ok(sameRow, `at ${width} px Admin is on the brand's row`);
        await screenshot(adminPage, `admin-badge-${width}`);
      }
      await adminPage.setViewportSize(DESKTOP);
      // The pending list on the screen follows the count.
      await adminPage.getByRole("button", { name: "Approve Pat Pending" }).click();
      await adminPage.getByText("Pat Pending is approved").waitFor();
      await waitFor(async () => await adminLink.innerText() === "Admin", "the badge gone");

      // The code screen says where a code is when the server sends no email.
      const signup = await web.newPage();
      await signup.goto(`${stack.url}/confirm`);
      await signup.getByText(
        "If email is not set up on this server, an administrator can find your code in the server's outbox file.",
      ).waitFor();
      await checkA11y(signup);
      assert.deepEqual(web.pageErrors, []);
    } finally {
      for (const c of contexts) await c.close().catch(() => {});
      await web.close();
    }
  },
);
