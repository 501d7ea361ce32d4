/**
 * Review and publishing in the browser, against the fake
 * LinkedIn on loopback: an author requests a review, a reviewer approves in another browser
 * context, the author meets "LinkedIn is not connected", follows the link to the settings and
 * connects LinkedIn through the fake's authorization endpoint (back on the settings, showing the
 * connection), sets a publishing slot a minute ahead (a bad slot is a 400 at the field), picks a
 * time then unschedules, schedules into the next free slot, the fake receives the post when the
 * time comes, and the editor (and the posts list) show the LinkedIn link.
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
import { openEditor } from "./editor_fixture.ts";
import { waitFor as until } from "../helpers/wait.ts";

const DAYS = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];

function status(page: Page, label: string) {
  return page.getByRole("status", { name: "Post status" }).filter({ hasText: label });
}

async function noHorizontalScroll(page: Page) {
  const overflow = await page.evaluate(
    "document.documentElement.scrollWidth > document.documentElement.clientWidth",
  );
  assert.equal(overflow, false, "no horizontal scrolling");
}

Deno.test(
  "review and publishing: request review, approve in another browser, connect LinkedIn from settings, schedule into the next slot, published with the LinkedIn link",
  e2e,
  async () => {
    const fake = startFakeLinkedIn();
    const web = await startWebTest({
      LINKEDIN_CLIENT_ID: fake.clientId,
      LINKEDIN_CLIENT_SECRET: fake.clientSecret,
      LINKEDIN_AUTH_URL: fake.authUrl,
      LINKEDIN_API_URL: fake.apiUrl,
    });
    try {
      const { stack } = web;
      const author = await createUser(stack, { name: "Anna Author" });
      const reviewer = await createUser(stack, { name: "Rita Reviewer" });
      const ws = await api(stack, "POST", "/api/workspaces", {
        token: author.access_token,
        body: { name: "Launch team" },
      });
      assert.equal(ws.status, 201);
      const wsId = ws.body.workspace_id as string;
      await api(stack, "POST", `/api/workspaces/${wsId}/members`, {
        token: author.access_token,
        body: { email: reviewer.email, role: "editor" },
      });
      const setup = await api(stack, "PUT", `/api/workspaces/${wsId}`, {
        token: author.access_token,
        body: { approval_required: true, timezone: "UTC", publishing_slots: ["Mon 09:00"] },
      });
      assert.equal(setup.status, 200, JSON.stringify(setup.body));
      const text = "Ship it (v2) #launch";
      const created = await api(stack, "POST", "/api/posts", {
        token: author.access_token,
        body: { workspace_id: wsId, title: "Launch day", content: text },
      });
      const postId = created.body.post_id as string;
      const editorUrl = `${stack.url}/workspaces/${wsId}/posts/${postId}`;
      const getPost = async () =>
        (await api(stack, "GET", `/api/posts/${postId}?workspaceId=${wsId}`, {
          token: author.access_token,
        })).body;

      // The author asks Rita for a review.
      const pageA = await openEditor(web, editorUrl, author);
      await status(pageA, "Draft").waitFor();
      await pageA.getByText("No reviews yet").waitFor();
      await checkA11y(pageA);
      await screenshot(pageA, "review-editor-draft-1440");
      await pageA.getByRole("button", { name: "Request review" }).click();
      const rita = pageA.getByRole("checkbox", { name: /Rita Reviewer/ });
      await rita.waitFor();
      assert.equal(
        await pageA.getByRole("checkbox", { name: /Anna Author/ }).count(),
        0,
        "the author is not offered as a reviewer",
      );
      assert.equal(await pageA.getByRole("button", { name: "Send request" }).isDisabled(), true);
      await rita.check();
      await pageA.getByLabel("Note for the reviewers (optional)").fill("Launch copy, please");
      await checkA11y(pageA);
      await screenshot(pageA, "review-editor-request-1440");
      await pageA.getByRole("button", { name: "Send request" }).click();
      await status(pageA, "In review").waitFor();
      await pageA.getByText("Waiting for Rita Reviewer.").waitFor();
      assert.equal(await pageA.getByRole("button", { name: "Approve" }).count(), 0);
      assert.equal((await getPost()).status, "in_review");

      // Rita approves in her own browser context.
      const pageB = await openEditor(web, editorUrl, reviewer);
      await status(pageB, "In review").waitFor();
      await pageB.getByLabel("Note to the author (optional)").fill("Looks good");
      await checkA11y(pageB);
      await screenshot(pageB, "review-editor-reviewer-1440");
      await pageB.getByRole("button", { name: "Approve" }).click();
      await status(pageB, "Approved").waitFor();

      // The author's editor follows without a reload.
      await status(pageA, "Approved").waitFor({ timeout: 15_000 });
      await pageA.getByText(/Approved by Rita Reviewer/).waitFor();
      const history = pageA.getByRole("list", { name: "Review history" });
      await history.getByText("Looks good").waitFor();
      assert.match(await history.innerText(), /Approved\s*Rita Reviewer/);
      const approved = await getPost();
      assert.equal(approved.approved_by, reviewer.user_id);
      await checkA11y(pageA);
      await screenshot(pageA, "review-editor-approved-1440");

      // Scheduling before LinkedIn is connected: the 409, with the way to the settings.
      await pageA.getByRole("button", { name: "Next free slot" }).click();
      const alert = pageA.getByRole("alert").filter({ hasText: "LinkedIn is not connected" });
      await alert.waitFor();
      await checkA11y(pageA);
      await screenshot(pageA, "review-editor-not-connected-1440");
      await alert.getByRole("link", { name: "Connect LinkedIn in the workspace settings" })
        .click();

      // Settings: approval on, timezone, LinkedIn not connected; connect through the fake.
      await pageA.getByRole("heading", { name: "LinkedIn" }).waitFor();
      await pageA.getByText("Not connected.").waitFor();
      assert.equal(
        await pageA.getByRole("checkbox", { name: "Approval required before publishing" })
          .isChecked(),
        true,
      );
      assert.equal(await pageA.getByLabel("Timezone").inputValue(), "UTC");
      await checkA11y(pageA);
      await screenshot(pageA, "review-settings-not-connected-1440");
      await pageA.getByRole("button", { name: "Connect LinkedIn" }).click();
      await pageA.getByText(`Connected as ${fake.member.name}`).waitFor({ timeout: 15_000 });
      assert.equal(new URL(pageA.url()).pathname, `/workspaces/${wsId}/settings`);
      // The connecting member's name shows once the member list is in (never "a former
      // member" while it loads).
      assert.doesNotMatch(await pageA.locator("#linkedin").innerText(), /former member/);
      await pageA.locator("#linkedin").getByText(/connected by Anna Author/).waitFor();
      assert.ok(
        fake.requests.some((r) => r.path === "/oauth/v2/authorization"),
        "went through the fake's authorization endpoint",
      );
      await pageA.getByRole("button", { name: "Disconnect" }).waitFor();
      await checkA11y(pageA);
      await screenshot(pageA, "review-settings-connected-1440");

      // A bad slot is a 400 at the field; then a slot about a minute ahead (UTC).
      const slot1 = pageA.getByRole("textbox", { name: "Slot 1" });
      await slot1.fill("Funday 9");
      await pageA.getByRole("button", { name: "Save settings" }).click();
      const slotError = pageA.locator("#slots-error");
      await slotError.waitFor();
      assert.match(await slotError.innerText(), /publishing_slots/);
      await checkA11y(pageA);
      await screenshot(pageA, "review-settings-slot-error-1440");
      const slotMs = Math.ceil((Date.now() + 45_000) / 60_000) * 60_000;
      const slotDate = new Date(slotMs);
      const slot = `${DAYS[slotDate.getUTCDay()]} ${
        String(slotDate.getUTCHours()).padStart(2, "0")
      }:${String(slotDate.getUTCMinutes()).padStart(2, "0")}`;
      await slot1.fill(slot);
      await pageA.getByRole("button", { name: "Save settings" }).click();
      await pageA.getByRole("status").filter({ hasText: "Saved" }).first().waitFor();

      // Back in the editor: pick a time, unschedule, then the next free slot.
      await pageA.goto(editorUrl);
      await status(pageA, "Approved").waitFor();
      // Pick a time: a day and a time (UTC here), checked as typed before any schedule call.
      const scheduleCalls: string[] = [];
      pageA.on("request", (r) => {
        if (r.method() === "POST" && r.url().endsWith("/schedule")) scheduleCalls.push(r.url());
      });
      await pageA.getByRole("button", { name: "Pick a time" }).click();
      const picker = pageA.getByRole("group", { name: "Publish at (UTC)" });
      const dayField = picker.getByLabel("Day", { exact: true });
      const timeField = picker.getByLabel("Time", { exact: true });
      const pickedDay = await dayField.inputValue();
      const pickedTime = await timeField.inputValue();
      assert.match(pickedDay, /^\d{4}-\d\d-\d\d$/);
      assert.match(pickedTime, /^\d\d:\d\d$/);
      await dayField.focus();
      await pageA.keyboard.press("Backspace");
      await picker.getByText("Enter the whole date: day, month and year").waitFor();
      assert.equal(await dayField.getAttribute("aria-invalid"), "true");
      await dayField.fill(new Date(Date.now() - 86_400_000).toISOString().slice(0, 10));
      await picker.getByText("That day has passed in UTC: pick a later one").waitFor();
      await pageA.getByRole("button", { name: "Schedule", exact: true }).click();
      assert.equal(
        await pageA.evaluate("document.activeElement?.id"),
        "schedule-at-date",
        "the day field has the focus",
      );
      await checkA11y(pageA);
      await screenshot(pageA, "review-editor-pick-time-1440");
      assert.deepEqual(scheduleCalls, [], "nothing sent while the day and time are wrong");
      await dayField.fill(pickedDay);
      assert.equal(await picker.getByText(/has passed|Enter/).count(), 0);
      await pageA.getByRole("button", { name: "Schedule", exact: true }).click();
      await status(pageA, "Scheduled").waitFor();
      assert.equal(
        Date.parse((await getPost()).scheduled_at),
        Date.parse(`${pickedDay}T${pickedTime}:00Z`),
      );
      await pageA.getByRole("button", { name: "Unschedule" }).click();
      await status(pageA, "Approved").waitFor();
      assert.equal((await getPost()).scheduled_at, null);

      assert.ok(Date.now() < slotMs - 5_000, "the slot is still ahead");
      await pageA.getByRole("button", { name: "Next free slot" }).click();
      await status(pageA, "Scheduled").waitFor();
      const scheduled = await getPost();
      assert.equal(Date.parse(scheduled.scheduled_at), slotMs, "the next free slot");
      await pageA.getByText("Goes out on").waitFor();
      await checkA11y(pageA);
      await screenshot(pageA, "review-editor-scheduled-1440");

      // While it waits: the posts list shows when it goes out; the editor on a phone.
      await pageB.goto(`${stack.url}/workspaces/${wsId}/posts?status=scheduled`);
      await pageB.getByText(/goes out/).waitFor();
      await checkA11y(pageB);
      await screenshot(pageB, "review-posts-scheduled-1440");
      const phone = await web.newPage({ viewport: PHONE });
      await phone.goto(editorUrl);
      await signIn(phone, author.email, author.password);
      await status(phone, "Scheduled").waitFor();
      await noHorizontalScroll(phone);
      await screenshot(phone, "review-editor-scheduled-375");

      // The time comes: the fake LinkedIn receives the post, once, escaped.
      await until(() => fake.posts().length > 0, "the LinkedIn call", 150_000);
      const call = fake.posts()[0];
      assert.ok(Date.now() >= slotMs, "not before the slot");
      assert.equal(JSON.parse(call.body).commentary, "Ship it \\(v2\\) \\#launch");
      const link = pageA.getByRole("link", { name: /View on LinkedIn/ });
      await link.waitFor({ timeout: 15_000 });
      const published = await getPost();
      assert.equal(published.status, "published");
      assert.equal(await link.getAttribute("href"), published.linkedin_post_url);
      assert.equal(await link.getAttribute("target"), "_blank");
      assert.match((await link.getAttribute("rel")) ?? "", /noopener/);
      await status(pageA, "Published").waitFor();
      await checkA11y(pageA);
      await screenshot(pageA, "review-editor-published-1440");
      await phone.getByRole("link", { name: /View on LinkedIn/ }).waitFor({ timeout: 15_000 });
      await noHorizontalScroll(phone);
      await checkA11y(phone);
      await screenshot(phone, "review-editor-published-375");
      assert.equal(fake.posts().length, 1, "published once");

      await pageB.goto(`${stack.url}/workspaces/${wsId}/posts?status=published`);
      const listLink = pageB.getByRole("link", { name: /View on LinkedIn/ });
      await listLink.waitFor();
      assert.equal(await listLink.getAttribute("href"), published.linkedin_post_url);
      await checkA11y(pageB);
      await screenshot(pageB, "review-posts-published-1440");
      await phone.goto(`${stack.url}/workspaces/${wsId}/settings`);
      await phone.getByText(`Connected as ${fake.member.name}`).waitFor();
      await noHorizontalScroll(phone);
      await screenshot(phone, "review-settings-connected-375");

      assert.deepEqual(web.pageErrors, []);
    } finally {
      await web.close();
      await fake.close();
    }
  },
);

Deno.test(
  "publishing in the browser: a viewer gets no publishing controls, a voided approval is in the history, a published post says edits stay here",
  e2e,
  async () => {
    const web = await startWebTest();
    try {
      const { stack } = web;
      const author = await createUser(stack, { name: "Anna Author" });
      const reviewer = await createUser(stack, { name: "Rita Reviewer" });
      const viewer = await createUser(stack, { name: "Vic Viewer" });
      const ws = await api(stack, "POST", "/api/workspaces", {
        token: author.access_token,
        body: { name: "Trust team" },
      });
      const wsId = ws.body.workspace_id as string;
      for (const [user, role] of [[reviewer, "editor"], [viewer, "viewer"]] as const) {
        const added = await api(stack, "POST", `/api/workspaces/${wsId}/members`, {
          token: author.access_token,
          body: { email: user.email, role },
        });
        assert.equal(added.status, 201, JSON.stringify(added.body));
      }
      await api(stack, "PUT", `/api/workspaces/${wsId}`, {
        token: author.access_token,
        body: { approval_required: true },
      });
      const created = await api(stack, "POST", "/api/posts", {
        token: author.access_token,
        body: { workspace_id: wsId, title: "Approved words", content: "The approved words." },
      });
      const postId = created.body.post_id as string;
      const approve = async () => {
        await api(stack, "POST", `/api/posts/${postId}/review-requests`, {
          token: author.access_token,
          body: { workspace_id: wsId, reviewer_ids: [reviewer.user_id] },
        });
        const ok = await api(stack, "POST", `/api/posts/${postId}/reviews`, {
          token: reviewer.access_token,
          body: { workspace_id: wsId, decision: "approve" },
        });
        assert.equal(ok.body.status, "approved");
      };
      await approve();
      const editorUrl = `${stack.url}/workspaces/${wsId}/posts/${postId}`;

      // A viewer sees the approved post but no way to schedule or publish it.
      const viewerPage = await openEditor(web, editorUrl, viewer);
      await status(viewerPage, "Approved").waitFor();
      await viewerPage.getByText("The workspace's owner and editors schedule and publish posts.")
        .waitFor();
      for (const name of ["Next free slot", "Pick a time", "Publish now", "Unschedule"]) {
        assert.equal(await viewerPage.getByRole("button", { name }).count(), 0, name);
      }
      await checkA11y(viewerPage);
      await screenshot(viewerPage, "publish-viewer-approved-1440");

      // The author changes the approved text: the history says the approval was voided.
      const authorPage = await openEditor(web, editorUrl, author);
      await status(authorPage, "Approved").waitFor();
      await authorPage.getByRole("button", { name: "Publish now" }).waitFor();
      const edited = await api(stack, "PUT", `/api/posts/${postId}`, {
        token: author.access_token,
        body: { workspace_id: wsId, content: "The approved words, and more." },
      });
      assert.equal(edited.body.status, "in_review");
      await status(authorPage, "In review").waitFor({ timeout: 15_000 });
      const history = authorPage.getByRole("list", { name: "Review history" });
      await history.getByText("Approval voided").waitFor({ timeout: 15_000 });
      assert.match(await history.innerText(), /Approval voided\s*Rita Reviewer/);
      await history.getByText("text changed after approval").waitFor();
      await authorPage.getByText(/The text changed after Rita Reviewer approved it/).waitFor();
      await checkA11y(authorPage);
      await screenshot(authorPage, "publish-history-voided-1440");

      // Approved again and marked published: the editor says edits stay here, and no longer
      // claims an approval for whatever the text becomes.
      await approve();
      const marked = await api(stack, "PUT", `/api/posts/${postId}/status`, {
        token: author.access_token,
        body: { workspace_id: wsId, status: "published" },
      });
      assert.equal(marked.status, 200, JSON.stringify(marked.body));
      await authorPage.reload();
      await status(authorPage, "Published").waitFor();
      const notice = authorPage.getByRole("note").filter({
        hasText: "This text is live on LinkedIn. Editing it here changes nothing there",
      });
      await notice.waitFor();
      assert.equal(await authorPage.getByText(/Approved by/).count(), 0);
      await checkA11y(authorPage);
      await screenshot(authorPage, "publish-published-notice-1440");
      const phone = await web.newPage({ viewport: PHONE });
      await phone.goto(editorUrl);
      await signIn(phone, author.email, author.password);
      await status(phone, "Published").waitFor();
      await phone.getByText("This text is live on LinkedIn.", { exact: false }).waitFor();
      await noHorizontalScroll(phone);
      await screenshot(phone, "publish-published-notice-375");
      assert.deepEqual(web.pageErrors, []);
    } finally {
      await web.close();
    }
  },
);
