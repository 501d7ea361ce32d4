/**
 * The calendar in the browser against the fake LinkedIn: a week two weeks ahead with a
 * scheduled post and free slots, the post dragged to a free slot and onto a day (the server's
 * `scheduled_at` follows), moved from the keyboard with its Move button (a day and a time,
 * checked as typed), a ready post dragged from the tray into a slot; the month view by deep
 * link, today marked, a viewer without Move; axe and screenshots at 1440 and 375.
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
import { linkedInEnv, publishingFixtures } from "../helpers/linkedin_publishing.ts";
import {
  addDays,
  dayInZone,
  dayName,
  monthName,
  startOfWeek,
} from "../../services/web/src/components/calendar_dates.ts";
import { zonedToIso } from "../../services/web/src/components/schedule_time.ts";
import { waitFor } from "../helpers/wait.ts";

const ZONE = "Europe/Zurich";
const at = (day: string, time: string) => Date.parse(zonedToIso(`${day}T${time}`, ZONE)!);

async function noHorizontalScroll(page: Page) {
  const overflow = await page.evaluate(
    "document.documentElement.scrollWidth > document.documentElement.clientWidth",
  );
  assert.equal(overflow, false, "no horizontal scrolling");
}

Deno.test(
  "calendar: drag a post to a slot and to a day, move it from the keyboard, schedule a ready post, month view, today marked",
  e2e,
  async () => {
    const fake = startFakeLinkedIn();
    const web = await startWebTest(linkedInEnv(fake));
    try {
      const { stack } = web;
      const owner = await createUser(stack, { name: "Olga Owner" });
      const author = await createUser(stack, { name: "Anna Author" });
      const viewer = await createUser(stack, { name: "Vic Viewer" });
      const { connected } = publishingFixtures(stack, { owner, author, viewer });
      const { wsId, approvedPost, getPost, schedule } = await connected();
      const slots = await api(stack, "PUT", `/api/workspaces/${wsId}`, {
        token: owner.access_token,
        body: { publishing_slots: ["Mon 09:00", "Wed 09:00"] },
      });
      assert.equal(slots.status, 200, JSON.stringify(slots.body));
      const today = dayInZone(Date.now(), ZONE);
      const monday = startOfWeek(addDays(today, 14));
      const wednesday = addDays(monday, 2);
      const thursday = addDays(monday, 3);
      const friday = addDays(monday, 4);
      const launch = await approvedPost("Launch day notes");
      assert.equal(
        (await schedule(launch, new Date(at(monday, "09:00")).toISOString())).status,
        200,
      );
      const ready = await approvedPost("Hiring post");
      const scheduledAt = async (id: string) => {
        const p = await getPost(id);
        return p.scheduled_at ? Date.parse(p.scheduled_at) : null;
      };

      // The week, by deep link; the post on its Monday, approved, with the free slots.
      const page = await web.newPage();
      const calendarUrl = `${stack.url}/workspaces/${wsId}/calendar`;
      await page.goto(`${calendarUrl}?view=week&date=${wednesday}`);
      await signIn(page, author.email, author.password);
      await page.getByRole("heading", { name: "Calendar", level: 1 }).waitFor();
      const day = (key: string) => page.getByRole("group", { name: dayName(key), exact: true });
      const card = day(monday).getByRole("listitem").filter({ hasText: "T Launch day" });
      await card.waitFor();
      assert.match(await card.innerText(), /09:00[\s\S]*Approved/);
      await day(wednesday).getByText("Free slot").waitFor();
      assert.equal(await day(monday).getByText("Free slot").count(), 0, "the post holds it");
      assert.equal(
        await page.getByRole("link", { name: "Calendar" }).getAttribute("aria-current"),
        "page",
        "linked from the workspace navigation",
      );
      await checkA11y(page);
      await screenshot(page, "calendar-week-1440");

      // Dragged to Wednesday's free slot, then onto Thursday (which keeps 09:00).
      await card.dragTo(day(wednesday).getByRole("listitem").filter({ hasText: "Free slot" }));
      await page.getByRole("status").filter({
        hasText: `Moved “T Launch day” to ${dayName(wednesday)} at 09:00`,
      })
        .waitFor();
      assert.equal(await scheduledAt(launch), at(wednesday, "09:00"));
      const moved = day(wednesday).getByRole("listitem").filter({ hasText: "T Launch day" });
      await moved.waitFor();
      await day(monday).getByText("Free slot").waitFor();
      await moved.dragTo(day(thursday));
      await day(thursday).getByText("T Launch day").waitFor();
      assert.equal(await scheduledAt(launch), at(thursday, "09:00"));

      // From the keyboard: Move opens a day and a time; a past day is refused as typed.
      const move = day(thursday).getByRole("button", { name: "Move “T Launch day”" });
      await move.focus();
      await page.keyboard.press("Enter");
      const dialog = page.getByRole("dialog", { name: "Move “T Launch day”" });
      await dialog.waitFor();
      assert.equal(await dialog.getByLabel("Day").inputValue(), thursday);
      assert.equal(await dialog.getByLabel("Time").inputValue(), "09:00");
      await dialog.getByLabel("Day").fill(addDays(today, -1));
      await dialog.getByText(`That day has passed in ${ZONE}: pick a later one`).waitFor();
      assert.equal(await dialog.getByLabel("Day").getAttribute("aria-invalid"), "true");
      await checkA11y(page);
      await screenshot(page, "calendar-move-dialog-1440");
      await dialog.getByLabel("Day").fill(friday);
      await dialog.getByLabel("Time").fill("16:30");
      assert.equal(await dialog.getByText(/has passed/).count(), 0);
      await page.keyboard.press("Enter");
      await dialog.waitFor({ state: "hidden" });
      await day(friday).getByText("T Launch day").waitFor();
      assert.equal(await scheduledAt(launch), at(friday, "16:30"));

      // A ready post, dragged from the tray into Monday's free slot.
      const tray = page.getByRole("region", { name: /Ready to schedule/ });
      const readyCard = tray.getByRole("listitem").filter({ hasText: "T Hiring po" });
      await readyCard.waitFor();
      await readyCard.dragTo(day(monday).getByRole("listitem").filter({ hasText: "Free slot" }));
      await day(monday).getByText("T Hiring po").waitFor();
      assert.equal(await scheduledAt(ready), at(monday, "09:00"));
      assert.equal(await tray.getByRole("listitem").count(), 0);
      await checkA11y(page);
      await screenshot(page, "calendar-week-moved-1440");

      // The month, by its link; the URL says the view and the day. Its range is held back
      // a moment: the week's grid stays, marked busy, and still passes axe (contrast included).
      let releaseRange = () => {};
      const rangeHeld = new Promise<void>((r) => releaseRange = r);
      await page.route("**/api/workspaces/*/calendar?*", async (route) => {
        await rangeHeld;
        await route.continue();
      });
      await page.getByRole("link", { name: "Month" }).click();
      await page.waitForURL(/view=month/);
      await page.locator('.cal-grid[aria-busy="true"]').waitFor();
      await checkA11y(page, { settle: false });
      await screenshot(page, "calendar-loading-1440");
      releaseRange();
      assert.equal(new URL(page.url()).searchParams.get("date"), wednesday);
      await page.getByRole("heading", { name: monthName(wednesday) }).waitFor();
      await day(friday).getByText("T Launch day").waitFor();
      await page.locator(".cal-grid:not([aria-busy])").waitFor();
      await page.unroute("**/api/workspaces/*/calendar?*");
      await checkA11y(page);
      await screenshot(page, "calendar-month-1440");

      // Today is marked.
      await page.getByRole("button", { name: "Today" }).click();
      await day(today).waitFor();
      assert.equal(await day(today).getAttribute("aria-current"), "date");

      // A viewer sees the posts but no way to move them; the phone layout.
      const phone = await web.newPage({ viewport: PHONE });
      await phone.goto(`${calendarUrl}?view=week&date=${monday}`);
      await signIn(phone, viewer.email, viewer.password);
      const phoneDay = phone.getByRole("group", { name: dayName(friday), exact: true });
      await phoneDay.getByText("T Launch day").waitFor();
      assert.equal(await phone.getByRole("button", { name: /^Move/ }).count(), 0);
      await noHorizontalScroll(phone);
      await checkA11y(phone);
      await screenshot(phone, "calendar-week-375");
      await phone.goto(`${calendarUrl}?view=month&date=${monday}`);
      await phone.getByRole("heading", { name: monthName(monday) }).waitFor();
      await noHorizontalScroll(phone);
      await screenshot(phone, "calendar-month-375");

      // The phone header folds its navigation into a menu button.
      const menu = phone.getByRole("button", { name: "Menu" });
      assert.equal(await menu.getAttribute("aria-expanded"), "false");
      assert.equal(await phone.getByRole("link", { name: "Posts" }).isVisible(), false);
      await screenshot(phone, "header-closed-375");
      await menu.click();
      await phone.getByRole("link", { name: "Posts" }).waitFor();
      await checkA11y(phone);
      await screenshot(phone, "header-open-375");
      await phone.getByRole("link", { name: "Posts" }).click();
      await phone.getByRole("heading", { name: "Posts", level: 1 }).waitFor();
      await waitFor(
        async () => (await menu.getAttribute("aria-expanded")) === "false",
        "the menu closes after a navigation",
      );
      assert.deepEqual(web.pageErrors, []);
    } finally {
      await web.close();
      await fake.close();
    }
  },
);
