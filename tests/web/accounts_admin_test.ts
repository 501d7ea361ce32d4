/**
 * Browser tests of the account screens (setup, sign up, confirm, waiting for approval, forgot,
 * reset) and the admin screen (users, workspaces, metrics, backups), on the real stack.
 */
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { api, e2e, startTestStack, TEST_ADMIN } from "../helpers/stack.ts";
import { readOutbox, settledOutboxLength, waitForOutbox } from "../helpers/outbox.ts";
import { createUser, loginAdmin, signupConfirmed, uniqueEmail } from "../helpers/users.ts";
import {
  checkA11y,
  DESKTOP,
  type Page,
  PHONE,
  screenshot,
  signIn,
  startWebTest,
  type WebTest,
} from "../helpers/browser.ts";
import { contentSecurityPolicy } from "../../services/web/routes.ts";
import { ensureBuilt } from "../../services/web/build.ts";

const NEW_PASSWORD = "N3w-Passw0rd!";

/** axe and a screenshot at 1440 and at 375 px (no sideways scrolling there), back to 1440. */
async function looksRight(page: Page, name: string): Promise<void> {
  await checkA11y(page);
  await screenshot(page, `accounts-${name}-1440`);
  await page.setViewportSize(PHONE);
  await checkA11y(page);
  await screenshot(page, `accounts-${name}-375`);
  const overflow = await page.evaluate(
    "document.documentElement.scrollWidth > document.documentElement.clientWidth",
  );
  assert.equal(overflow, false, `${name}: no horizontal scrolling at 375 px`);
  await page.setViewportSize(DESKTOP);
}

/** The password field of a form (exact: the rules list is labelled "Password rules"). */
function passwordInput(page: Page, label = "Password") {
  return page.getByLabel(label, { exact: true });
}

/** The live rules tick as the password is typed. */
async function checkLiveRules(page: Page, label = "Password"): Promise<void> {
  const input = passwordInput(page, label);
  await input.fill("abc");
  const rules = page.getByRole("list", { name: "Password rules" });
  await rules.getByText("A lowercase letter (done)").waitFor();
  await rules.getByText("An uppercase letter (not yet)").waitFor();
  await rules.getByText("At least 8 characters (not yet)").waitFor();
  await input.fill("abcDEF12");
  await rules.getByText("At least 8 characters (done)").waitFor();
  await rules.getByText("A symbol (not yet)").waitFor();
  await input.fill("abcDEF12!");
  await rules.getByText("A symbol (done)").waitFor();
  assert.equal(await rules.getByText("(not yet)").count(), 0);
}

async function withWeb(env: Record<string, string>, fn: (web: WebTest) => Promise<void>) {
  const web = await startWebTest(env);
  try {
    await fn(web);
    assert.deepEqual(web.pageErrors, [], "the pages ran under their CSP without errors");
  } finally {
    await web.close();
  }
}

Deno.test(
  "accounts web: first-run setup creates the admin, who ends signed in on the app",
  e2e,
  async () => {
    const lines: string[] = [];
    const log = console.log;
    console.log = (...args: unknown[]) => {
      lines.push(args.map(String).join(" "));
    };
    let web: WebTest;
    try {
      web = await startWebTest({ ADMIN_EMAIL: "", ADMIN_PASSWORD: "", ADMIN_NAME: "" });
    } finally {
      console.log = log;
    }
    try {
      const line = lines.find((l) => l.includes("/setup?token="));
      assert.ok(line, "the start-up log holds the setup URL");
      const setupUrl = /(http[^\s"]+?\/setup\?token=[A-Za-z0-9_-]+)/.exec(line)![1];
      const page = await web.newPage();

      await page.goto(`${web.stack.url}/setup`);
      await page.getByText("Open the one-time setup link").waitFor();

      await page.goto(setupUrl);
      await page.getByRole("heading", { name: "Set up Content Pipeline" }).waitFor();
      await page.getByLabel("Name").fill("First Admin");
      await page.getByLabel("Email").fill("first@example.test");
      await checkLiveRules(page);
      await passwordInput(page).fill("weakpass");
      await page.getByRole("button", { name: "Create admin account" }).click();
      await page.getByText("Password must contain an uppercase letter").waitFor();
      assert.equal(new URL(page.url()).pathname, "/setup", "a broken rule stays on the form");
      await passwordInput(page).fill("Adm1n-Passw0rd!");
      await looksRight(page, "setup");

      await page.getByRole("button", { name: "Create admin account" }).click();
      await signIn(page, "first@example.test", "Adm1n-Passw0rd!");
      await page.getByRole("heading", { name: "Create your first workspace" }).waitFor();
      await page.getByRole("link", { name: "Admin" }).click();
      await page.getByRole("heading", { name: "Admin", exact: true }).waitFor();
      await page.getByRole("heading", { name: "No one is waiting for approval" }).waitFor();
      await page.getByRole("button", { name: /First Admin/ }).waitFor();

      // the link is single use: once an admin exists the page says so
      await page.goto(setupUrl);
      await page.getByRole("heading", { name: "Setup is already done — sign in" }).waitFor();
      await looksRight(page, "setup-done");
      assert.deepEqual(web.pageErrors, []);
    } finally {
      await web.close();
    }
  },
);

Deno.test(
  "accounts web: sign up, confirm, wait for approval; the admin approves on the admin screen, the waiting screen continues; the user signs out and signs in",
  e2e,
  () =>
    withWeb({}, async (web) => {
      const email = uniqueEmail("signup");
      const user = await web.newPage();
      await user.goto(`${web.stack.url}/signup`);
      await user.getByRole("heading", { name: "Create your account" }).waitFor();
      await user.getByLabel("Name").fill("Sam Signup");
      await user.getByLabel("Email").fill(email);
      await checkLiveRules(user);
      await looksRight(user, "signup");
      await passwordInput(user).fill(NEW_PASSWORD);
      await user.getByRole("button", { name: "Create account" }).click();

      await user.getByRole("heading", { name: "Confirm your email" }).waitFor();
      assert.equal(await user.getByLabel("Email").inputValue(), email);
      await waitForOutbox(web.stack.outboxFile, (l) =>
        l.template === "confirm_email" && l.to === email);

      // new codes until the limit says no, plainly
      let refused = false;
      for (let i = 0; i < 5 && !refused; i++) {
        await user.getByRole("button", { name: "Send a new code" }).click();
        const answer = user.getByText(/A new code is on its way|Too many requests/);
        await answer.waitFor();
        refused = (await user.getByRole("alert").count()) > 0;
      }
      assert.ok(refused, "the resend limit answered 429");
      await user.getByRole("alert").getByText("Too many requests for this email or address")
        .waitFor();
      await user.getByText("wait 15 minutes, then ask again").waitFor();
      await looksRight(user, "confirm");

      await settledOutboxLength(web.stack.outboxFile);
      const mails = (await readOutbox(web.stack.outboxFile)).filter((l) =>
        l.template === "confirm_email" && l.to === email
      );
      const code = String(mails.at(-1)!.data.code);
      await user.getByLabel("Confirmation code").fill(code);
      await user.getByRole("button", { name: "Confirm email" }).click();
      await user.getByRole("heading", { name: "Email confirmed" }).waitFor();
      await user.getByRole("button", { name: "Sign in" }).click();

      // the hosted login links to sign-up and password reset
      await user.waitForURL(/\/oauth\/authorize/);
      await user.getByRole("link", { name: "Create an account" }).waitFor();
      await user.getByRole("link", { name: "Forgot password?" }).waitFor();
      await looksRight(user, "hosted-login");
      await signIn(user, email, NEW_PASSWORD);
      await user.getByRole("heading", { name: "Waiting for approval" }).waitFor();
      await looksRight(user, "waiting");

      const admin = await web.newPage();
      await admin.goto(`${web.stack.url}/admin?tab=pending`);
      await signIn(admin, TEST_ADMIN.email, TEST_ADMIN.password);
      const pending = admin.getByRole("list", { name: "Pending users" });
      await pending.getByRole("listitem").filter({ hasText: "Sam Signup" }).waitFor();
      await looksRight(admin, "admin-pending");
      await admin.getByRole("button", { name: "Approve Sam Signup" }).click();
      await admin.getByText("Sam Signup is approved").waitFor();
      await admin.getByRole("heading", { name: "No one is waiting for approval" }).waitFor();

      // the waiting screen notices within its ~5 s poll and continues into the app
      await user.getByRole("heading", { name: "Create your first workspace" }).waitFor({
        timeout: 15_000,
      });
      assert.equal(await user.getByRole("heading", { name: "Waiting for approval" }).count(), 0);

      // the user signs out through the app's menu, then signs in on the hosted login
      await user.getByRole("button", { name: /Sam Signup/ }).click();
      await user.getByRole("button", { name: "Sign out" }).click();
      await user.getByRole("heading", { name: "You are signed out" }).waitFor();
      assert.equal(
        (await user.context().cookies()).find((c) =>
          c.name === "cp_refresh"
        ),
        undefined,
        "signed out: no refresh cookie left",
      );
      await user.getByRole("button", { name: "Sign in" }).click();
      await signIn(user, email, NEW_PASSWORD);
      // approved and signed in: the app itself, with the user's menu, and no waiting screen
      await user.getByRole("heading", { name: "Create your first workspace" }).waitFor();
      await user.getByRole("button", { name: /Sam Signup/ }).click();
      await user.getByRole("button", { name: "Sign out" }).waitFor();
      await user.getByText(email).waitFor();
      await user.keyboard.press("Escape");
      assert.equal(await user.getByRole("heading", { name: "Waiting for approval" }).count(), 0);
      assert.ok(
        (await user.context().cookies()).some((c) => c.name === "cp_refresh"),
        "a new session",
      );

      // a member who opens /admin is told plainly
      await user.goto(`${web.stack.url}/admin`);
      await user.getByRole("heading", { name: "Admin access required" }).waitFor();
      await looksRight(user, "admin-denied");
    }),
);

Deno.test(
  "accounts web: forgot password, reset with the emailed code, sign in with the new password",
  e2e,
  () =>
    withWeb({}, async (web) => {
      const account = await createUser(web.stack, { name: "Riley Reset" });
      const page = await web.newPage();
      await page.goto(`${web.stack.url}/forgot`);
      await page.getByRole("heading", { name: "Reset your password" }).waitFor();
      await looksRight(page, "forgot");
      await page.getByLabel("Email").fill(account.email);
      await page.getByRole("button", { name: "Email me a code" }).click();

      await page.getByRole("heading", { name: "Set a new password" }).waitFor();
      assert.equal(await page.getByLabel("Email").inputValue(), account.email);
      const mail = await waitForOutbox(
        web.stack.outboxFile,
        (l) => l.template === "password_reset" && l.to === account.email,
      );
      await checkLiveRules(page, "New password");
      await page.getByLabel("Reset code").fill("000000");
      await passwordInput(page, "New password").fill(NEW_PASSWORD);
      await looksRight(page, "reset");
      if (String(mail.data.code) !== "000000") {
        await page.getByRole("button", { name: "Set new password" }).click();
        await page.getByRole("alert").waitFor();
      }
      await page.getByLabel("Reset code").fill(String(mail.data.code));
      await page.getByRole("button", { name: "Set new password" }).click();
      await page.getByRole("heading", { name: "Password changed" }).waitFor();
      await looksRight(page, "reset-done");

      const old = await api(web.stack, "POST", "/api/auth/login", {
        body: { email: account.email, password: account.password },
      });
      assert.equal(old.status, 401, "the old password no longer works");
      await page.getByRole("button", { name: "Sign in" }).click();
      await signIn(page, account.email, NEW_PASSWORD);
      await page.getByRole("heading", { name: "Create your first workspace" }).waitFor();
    }),
);

Deno.test(
  "admin web: users (role, disable with a confirmation), workspaces (delete, recover), metrics",
  e2e,
  () =>
    withWeb({}, async (web) => {
      const member = await createUser(web.stack, { name: "Morgan Member" });
      const waiting = await signupConfirmed(web.stack, { name: "Pat Pending" });
      const created = await api(web.stack, "POST", "/api/workspaces", {
        token: member.access_token,
        body: { name: "Morgan's team" },
      });
      assert.equal(created.status, 201);

      const page = await web.newPage();
      await page.goto(`${web.stack.url}/admin?tab=pending`);
      await signIn(page, TEST_ADMIN.email, TEST_ADMIN.password);

      // reject asks first; Cancel keeps the user
      await page.getByRole("button", { name: "Reject Pat Pending" }).click();
      const dialog = page.getByRole("dialog", { name: "Reject Pat Pending?" });
      await dialog.waitFor();
      assert.equal(
        await page.evaluate("document.activeElement?.textContent"),
        "Cancel",
        "Cancel has the focus",
      );
      await looksRight(page, "admin-reject-dialog");
      await page.keyboard.press("Escape");
      await dialog.waitFor({ state: "hidden" });
      await page.getByRole("button", { name: "Reject Pat Pending" }).click();
      await dialog.getByRole("button", { name: "Reject" }).click();
      await page.getByText("Pat Pending was rejected").waitFor();

      // all users: deep link, role and disable
      await page.getByRole("link", { name: "All users" }).click();
      assert.equal(new URL(page.url()).search, "?tab=users");
      const users = page.getByRole("list", { name: "All users" });
      await users.getByRole("listitem").filter({ hasText: "Morgan Member" }).waitFor();
      await looksRight(page, "admin-users");
      await page.getByRole("combobox", { name: "Role of Morgan Member" }).selectOption("admin");
      await page.getByText("Morgan Member is now an admin").waitFor();
      await page.getByRole("button", { name: "Disable Morgan Member" }).click();
      await page.getByRole("dialog", { name: "Disable Morgan Member?" })
        .getByRole("button", { name: "Disable" }).click();
      await page.getByText("Morgan Member is disabled").waitFor();
      await page.getByRole("button", { name: "Enable Morgan Member" }).waitFor();
      const list = await api(web.stack, "GET", "/api/admin/users", {
        token: (await loginAdmin(web.stack)).access_token,
      });
      const morgan = list.body.users.find((u: { email: string }) => u.email === member.email);
      assert.equal(morgan.role, "admin");
      assert.equal(morgan.enabled, false);
      const pat = list.body.users.find((u: { email: string }) => u.email === waiting.email);
      assert.equal(pat.status, "rejected");

      // the filter is kept in the URL: a reload or Back from another tab shows the same list
      await page.getByLabel("Filter users").pressSequentially("morgan");
      await page.waitForFunction(`location.search === "?tab=users&q=morgan"`);
      await users.getByRole("listitem").filter({ hasText: "Pat Pending" }).waitFor({
        state: "detached",
      });
      await page.getByRole("link", { name: "Metrics" }).click();
      await page.getByRole("button", { name: "Refresh" }).waitFor();
      await page.goBack();
      await users.getByRole("listitem").filter({ hasText: "Morgan Member" }).waitFor();
      assert.equal(await page.getByLabel("Filter users").inputValue(), "morgan");
      assert.equal(await users.getByRole("listitem").count(), 1);
      await page.reload();
      await users.getByRole("listitem").filter({ hasText: "Morgan Member" }).waitFor();
      assert.equal(await page.getByLabel("Filter users").inputValue(), "morgan");
      assert.equal(await users.getByRole("listitem").count(), 1);

      // workspaces: delete asks, the deleted one stays listed and can be recovered
      await page.goto(`${web.stack.url}/admin?tab=workspaces`);
      await page.getByRole("list", { name: "Workspaces" }).getByRole("listitem")
        .filter({ hasText: "Morgan's team" }).waitFor();
      await page.getByRole("button", { name: "Delete Morgan's team" }).click();
      await page.getByRole("dialog", { name: "Delete Morgan's team?" })
        .getByRole("button", { name: "Delete workspace" }).click();
      await page.getByText("Morgan's team is deleted").waitFor();
      await page.getByText(/^Deleted /).waitFor();
      await looksRight(page, "admin-workspaces");
      await page.getByRole("button", { name: "Recover Morgan's team" }).click();
      await page.getByText("Morgan's team is recovered").waitFor();
      await page.getByRole("button", { name: "Delete Morgan's team" }).waitFor();

      await page.getByRole("link", { name: "Metrics" }).click();
      await page.getByText("Waiting for approval").waitFor();
      const total = page.locator(".admin-metric").filter({ hasText: "Users" }).first();
      assert.match(await total.innerText(), /\d/);
      await looksRight(page, "admin-metrics");
    }),
);

Deno.test(
  "admin web: backup, download, upload a ZIP with progress, restore with its status shown",
  e2e,
  () =>
    withWeb({}, async (web) => {
      const page = await web.newPage();
      await page.goto(`${web.stack.url}/admin?tab=backups`);
      await signIn(page, TEST_ADMIN.email, TEST_ADMIN.password);
      await page.getByRole("heading", { name: "No backups yet" }).waitFor();
      await looksRight(page, "admin-backups-empty");

      await page.getByRole("button", { name: "Create backup" }).click();
      await page.getByText(/^Backup created: /).waitFor({ timeout: 20_000 });
      const rows = page.getByRole("list", { name: "Backups" }).getByRole("listitem");
      await rows.first().waitFor();
      assert.equal(await rows.count(), 1);

      const [download] = await Promise.all([
        page.waitForEvent("download"),
        page.getByRole("button", { name: /^Download Backup / }).click(),
      ]);
      assert.match(download.suggestedFilename(), /\.zip$/);
      const zipPath = await download.path();
      const zip = await Deno.readFile(zipPath);
      assert.equal(String.fromCharCode(zip[0], zip[1]), "PK", "the download is a ZIP");

      // upload it back through the presigned URL: the progress bar shows, then the key
      const puts: string[] = [];
      page.on("request", (req) => {
        if (req.method() === "PUT") puts.push(req.headers()["content-type"] ?? "");
      });
      // a file that is not a .zip is refused at the field
      const fileInput = page.getByLabel("Backup ZIP file");
      await fileInput.setInputFiles(zipPath);
      await page.getByRole("button", { name: "Upload", exact: true }).click();
      await page.getByText("Choose a .zip file").waitFor();
      await fileInput.setInputFiles({
        name: "team-backup.zip",
        mimeType: "application/zip",
        buffer: Buffer.from(zip),
      });
      await page.evaluate(`window.sawProgress = [];
        new MutationObserver(() => {
          const bar = document.querySelector("progress");
          if (bar) window.sawProgress.push(bar.labels[0]?.textContent ?? "");
        }).observe(document.body, { childList: true, subtree: true, attributes: true });`);
      await page.getByRole("button", { name: "Upload", exact: true }).click();
      await page.getByText(/^Uploaded as _backups\/upload-/).waitFor({ timeout: 20_000 });
      const sawProgress = await page.evaluate("window.sawProgress") as string[];
      assert.ok(sawProgress.includes("Upload progress"), "a labelled progress bar showed");
      assert.deepEqual(puts, ["application/zip"]);
      await rows.nth(1).waitFor();
      assert.equal(await rows.count(), 2);
      await looksRight(page, "admin-backups");

      // restore the backup made here: it asks, then shows the job's live status
      await page.getByRole("button", { name: /^Restore Backup / }).click();
      const dialog = page.getByRole("dialog", { name: /^Restore Backup / });
      await dialog.waitFor();
      await looksRight(page, "admin-restore-dialog");
      await dialog.getByRole("button", { name: "Restore", exact: true }).click();
      const status = page.getByRole("status").filter({ hasText: /^Restore / });
      await status.waitFor();
      assert.match(await status.innerText(), /queued|running|succeeded/);
      await page.getByText("Restore succeeded").waitFor({ timeout: 30_000 });
      assert.match(new URL(page.url()).search, /job=/);
      await looksRight(page, "admin-restore-succeeded");

      // a restore ends every session (shared/archive/kv_backup.ts); the status is a deep link, so
      // signing in again comes back to it
      await page.reload();
      await signIn(page, TEST_ADMIN.email, TEST_ADMIN.password);
      await page.getByText("Restore succeeded").waitFor();
      assert.match(new URL(page.url()).search, /job=/);
    }),
);

Deno.test("web config: the CSP allows Google's reCAPTCHA only with a site key", () => {
  const plain = contentSecurityPolicy("http://localhost:8000");
  assert.ok(!plain.includes("google"));
  assert.ok(!plain.includes("frame-src"));
  const withKey = contentSecurityPolicy("http://localhost:8000", true);
  assert.match(withKey, /script-src 'self' https:\/\/www\.google\.com https:\/\/www\.gstatic\.com/);
  assert.match(withKey, /frame-src https:\/\/www\.google\.com https:\/\/www\.gstatic\.com/);
  assert.match(withKey, /connect-src 'self' ws:\/\/localhost:8000 https:\/\/www\.google\.com/);
});

Deno.test(
  "accounts web: with RECAPTCHA_SITE_KEY the page carries the key and the wider CSP",
  e2e,
  async () => {
    await ensureBuilt({ log: () => {} });
    const stack = await startTestStack({ RECAPTCHA_SITE_KEY: "site-key-123" });
    try {
      const res = await fetch(`${stack.url}/signup`);
      const html = await res.text();
      assert.match(html, /<meta name="cp-recaptcha-site-key" content="site-key-123">/);
      assert.match(
        res.headers.get("content-security-policy")!,
        /script-src 'self' https:\/\/www\.google\.com/,
      );
      const plain = await startTestStack();
      try {
        const other = await fetch(`${plain.url}/signup`);
        assert.ok(!(await other.text()).includes("cp-recaptcha-site-key"));
        assert.ok(!other.headers.get("content-security-policy")!.includes("google"));
      } finally {
        await plain.close();
      }
    } finally {
      await stack.close();
    }
  },
);
