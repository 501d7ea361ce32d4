import assert from "node:assert/strict";
import { api, e2e } from "../helpers/stack.ts";
import { approve, login, signupConfirmed } from "../helpers/users.ts";
import {
  checkA11y,
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
