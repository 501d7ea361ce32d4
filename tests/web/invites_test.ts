/**
 * Browser test of the pending invites in workspace settings: an invite made in the form is
 * listed (and still listed after a reload, so it comes from the API), a viewer sees it without
 * a cancel button, and the owner cancels it.
 */
import assert from "node:assert/strict";
import { api, e2e } from "../helpers/stack.ts";
import { createUser } from "../helpers/users.ts";
import {
  checkA11y,
  type Page,
  PHONE,
  screenshot,
  SCREENSHOT_DIR,
  signIn,
  startWebTest,
} from "../helpers/browser.ts";

/** A close-up of the Members card, beside the full-page screenshot. */
async function closeUp(page: Page, name: string) {
  await page.getByRole("region", { name: "Members" }).screenshot({
    path: `${SCREENSHOT_DIR}${name}.png`,
  });
}

/** axe and screenshots at 1440 and 375 px (back to 1440 afterwards); no sideways scrolling. */
async function lookAt(page: Page, name: string) {
  await checkA11y(page);
  await screenshot(page, `${name}-1440`);
  await closeUp(page, `${name}-members-1440`);
  await page.setViewportSize(PHONE);
  await page.waitForTimeout(100);
  await checkA11y(page);
  await screenshot(page, `${name}-375`);
  await closeUp(page, `${name}-members-375`);
  const overflow = await page.evaluate(
    "document.documentElement.scrollWidth > document.documentElement.clientWidth",
  );
  assert.equal(overflow, false, `${name}: no horizontal scrolling at 375 px`);
  await page.setViewportSize({ width: 1440, height: 900 });
}

Deno.test(
  "settings: a pending invite is listed after a reload, a viewer sees it read-only, the owner cancels it",
  e2e,
  async () => {
    const web = await startWebTest();
    try {
      const owner = await createUser(web.stack, { name: "Olga Owner" });
      const viewer = await createUser(web.stack, { name: "Vic Viewer" });
      const created = await api(web.stack, "POST", "/api/workspaces", {
        token: owner.access_token,
        body: { name: "Launch team" },
      });
      const id = created.body.workspace_id as string;
      const added = await api(web.stack, "POST", `/api/workspaces/${id}/members`, {
        token: owner.access_token,
        body: { email: viewer.email, role: "viewer" },
      });
      assert.equal(added.status, 201, JSON.stringify(added.body));
      const stamp = Date.now().toString(36);
      const stranger = `stranger-${stamp}@example.test`;
      const other = `second-${stamp}@example.test`;

      const page = await web.newPage();
      await page.goto(`${web.stack.url}/workspaces/${id}/settings`);
      await signIn(page, owner.email, owner.password);
      const members = page.getByRole("region", { name: "Members" });
      await members.getByText("Olga Owner").waitFor();
      await members.getByText("No pending invites.").waitFor();

      // invite two emails without an account; each shows up under the members at once
      for (const [email, role] of [[stranger, "editor"], [other, "viewer"]] as const) {
        await members.getByLabel("Email").fill(email);
        await members.getByLabel("Role").selectOption(role);
        await members.getByRole("button", { name: "Invite", exact: true }).click();
        await members.getByRole("status").filter({ hasText: email }).waitFor();
        await members.getByRole("list", { name: "Pending invites" }).getByRole("listitem")
          .filter({ hasText: email }).waitFor();
      }

      // a reload lists them from the API, with role, the Pending badge and the inviter
      await page.reload();
      const invites = page.getByRole("list", { name: "Pending invites" });
      const row = invites.getByRole("listitem").filter({ hasText: stranger });
      await row.waitFor();
      await row.getByText("Pending", { exact: true }).waitFor();
      await row.getByText("Editor", { exact: true }).waitFor();
      await row.getByText(/Invited .* by Olga Owner/).waitFor();
      assert.equal(await invites.getByRole("listitem").count(), 2);
      assert.equal(await members.getByRole("heading", { name: "Pending invites (2)" }).count(), 1);
      await lookAt(page, "settings-invites");

      // a viewer sees the invites but cannot cancel them
      const viewerPage = await web.newPage();
      await viewerPage.goto(`${web.stack.url}/workspaces/${id}/settings`);
      await signIn(viewerPage, viewer.email, viewer.password);
      const seen = viewerPage.getByRole("list", { name: "Pending invites" });
      await seen.getByRole("listitem").filter({ hasText: stranger }).waitFor();
      assert.equal(await seen.getByRole("listitem").count(), 2);
      assert.equal(await viewerPage.getByRole("button", { name: /Cancel invite/ }).count(), 0);

      // the owner cancels one by keyboard; focus stays in the list's place
      const cancel = row.getByRole("button", { name: `Cancel invite for ${stranger}` });
      await cancel.focus();
      await page.keyboard.press("Enter");
      await members.getByRole("status").filter({ hasText: `Invite for ${stranger} cancelled.` })
        .waitFor();
      await row.waitFor({ state: "detached" });
      assert.equal(
        await page.evaluate("document.activeElement && document.activeElement.id"),
        "invites-heading",
      );
      const listed = await api(web.stack, "GET", `/api/workspaces/${id}/invites`, {
        token: owner.access_token,
      });
      assert.deepEqual(listed.body.invites.map((i: { email: string }) => i.email), [other]);

      // still gone after a reload; the other invite stays
      await page.reload();
      await invites.getByRole("listitem").filter({ hasText: other }).waitFor();
      assert.equal(await invites.getByRole("listitem").count(), 1);
      assert.equal(await page.getByText(stranger).count(), 0);

      assert.deepEqual(web.pageErrors, []);
    } finally {
      await web.close();
    }
  },
);
