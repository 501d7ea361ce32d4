/**
 * Mentions and notifications in the browser: the author types `@` in a comment box, picks a
 * member with the keyboard (the picker filters as typed, Escape closes it), and sends; the
 * mentioned member's unread count moves within 30 seconds in their own browser without a
 * reload; their list shows the mention first and unread, opening it goes to the comment's deep
 * link and marks it read; a mention in a reply reaches them too; Mark all read clears the count.
 */
import assert from "node:assert/strict";
import { api, e2e } from "../helpers/stack.ts";
import {
  checkA11y,
  type Page,
  PHONE,
  screenshot,
  signIn,
  startWebTest,
} from "../helpers/browser.ts";
import { waitFor } from "../helpers/wait.ts";
import { openEditor } from "./editor_fixture.ts";
import { makePost, reviewTeam } from "./review_fixture.ts";

/** The unread count the Notifications button shows (0 without a badge). */
async function unreadShown(page: Page): Promise<number> {
  const name = await page.getByRole("button", { name: /^Notifications/ }).innerText();
  const m = /(\d+)/.exec(name);
  return m ? Number(m[1]) : 0;
}

Deno.test(
  "mentions: picked by keyboard in a comment and a reply; the member's unread count moves without a reload, the list opens the deep link and marks read",
  e2e,
  async () => {
    const web = await startWebTest();
    try {
      const { stack } = web;
      const { owner, editor, workspaceId } = await reviewTeam(stack);
      const postId = await makePost(stack, owner, workspaceId, {
        title: "Launch notes",
        content: "Hello team, the launch is on Monday.",
      });
      const notificationsOf = async (token: string) =>
        (await api(stack, "GET", "/api/notifications?limit=20", { token })).body;

      // Bob sits on his ideas board; the page is never reloaded after this marker.
      const bob = await web.newPage();
      await bob.goto(`${stack.url}/workspaces/${workspaceId}/ideas`);
      await signIn(bob, editor.email, editor.password);
      await bob.getByRole("heading", { name: "Ideas", exact: true }).waitFor();
      const before = (await notificationsOf(editor.access_token)).unread_count as number;
      await waitFor(async () => await unreadShown(bob) === before, "Bob's first count");
      await bob.evaluate("globalThis.__noReload = true");

      // Anna mentions Bob in a comment, by keyboard only.
      const anna = await openEditor(
        web,
        `${stack.url}/workspaces/${workspaceId}/posts/${postId}`,
        owner,
      );
      const box = anna.getByRole("textbox", { name: "Comment on the whole post" });
      await box.click();
      await box.pressSequentially("Could you check the date, @");
      const picker = anna.getByRole("listbox", { name: "Members to mention" });
      await picker.waitFor();
      // The box names the open picker as its popup.
      assert.equal(await box.getAttribute("aria-haspopup"), "listbox");
      assert.equal(await box.getAttribute("aria-controls"), await picker.getAttribute("id"));
      assert.deepEqual(
        await picker.getByRole("option").allInnerTexts().then((t) =>
          t.map((s) => s.split("\n")[0])
        ),
        ["Anna Author", "Bob Editor"],
      );
      await box.pressSequentially("bo");
      assert.deepEqual(
        (await picker.getByRole("option").allInnerTexts()).map((s) => s.split("\n")[0]),
        ["Bob Editor"],
      );
      await box.press("Backspace");
      await box.press("Backspace");
      // Both members listed again before the arrow moves (as a person sees them first).
      await picker.getByRole("option", { name: /Anna Author/ }).waitFor();
      await box.press("ArrowDown");
      const active = await box.getAttribute("aria-activedescendant");
      assert.ok(active, "the active option is the box's active descendant");
      assert.equal(
        await anna.locator(`[id="${active}"]`).getAttribute("aria-selected"),
        "true",
      );
      assert.match(await anna.locator(`[id="${active}"]`).innerText(), /Bob Editor/);
      await checkA11y(anna);
      await screenshot(anna, "mention-picker-1440");
      await box.press("Enter");
      await picker.waitFor({ state: "hidden" });
      assert.equal(await box.inputValue(), "Could you check the date, @Bob Editor ");
      // Escape closes the picker and leaves the text as typed.
      await box.pressSequentially("and @an");
      await picker.waitFor();
      await box.press("Escape");
      await picker.waitFor({ state: "hidden" });
      assert.equal(await box.getAttribute("aria-activedescendant"), null);
      assert.equal(await box.inputValue(), "Could you check the date, @Bob Editor and @an");
      for (let i = 0; i < "and @an".length; i++) await box.press("Backspace");
      await box.pressSequentially("please?");
      await box.press("Control+Enter");
      const thread = anna.getByRole("list", { name: "Open comments" }).getByText(
        "Could you check the date, @Bob Editor please?",
      );
      await thread.waitFor();

      // Bob's count moves within 30 s, in his own context, without a reload.
      const sentAt = Date.now();
      await waitFor(async () => await unreadShown(bob) === before + 1, "Bob's count", 30_000);
      const movedMs = Date.now() - sentAt;
      console.log(`unread count moved ${movedMs} ms after the comment`);
      assert.equal(await bob.evaluate("globalThis.__noReload"), true, "no reload");
      const list = await notificationsOf(editor.access_token);
      const mention = list.items[0];
      assert.equal(mention.template, "mentioned");
      assert.equal(mention.data.post_id, postId);

      // The list: newest first, unread marked; opening it goes to the comment and reads it.
      await bob.getByRole("button", { name: /^Notifications/ }).click();
      const panel = bob.getByRole("region", { name: "Notifications" });
      const first = panel.getByRole("listitem").first();
      await first.getByText("Anna Author mentioned you on “Launch notes”").waitFor();
      assert.match(await first.innerText(), /Could you check the date/);
      assert.match(await first.textContent() ?? "", /^Unread:/);
      await checkA11y(bob);
      await screenshot(bob, "notifications-list-1440");
      await first.getByRole("link").click();
      await bob.waitForURL((u) =>
        u.pathname === `/workspaces/${workspaceId}/posts/${postId}` &&
        u.searchParams.get("comment") === mention.data.comment_id
      );
      await bob.getByRole("textbox", { name: "Post text" }).waitFor();
      await bob.locator(`[data-thread-id="${mention.data.comment_id}"]`).waitFor();
      assert.equal(await bob.evaluate("globalThis.__noReload"), true, "opened in place");
      await waitFor(async () => {
        const now = await notificationsOf(editor.access_token);
        return now.items[0].read_at !== null && now.unread_count === before;
      }, "the mention read");
      await waitFor(async () => await unreadShown(bob) === before, "Bob's count after reading");

      // A mention in a reply, picked with Tab.
      const reply = anna.getByRole("textbox", { name: "Reply to Anna Author" });
      await reply.click();
      await reply.pressSequentially("Thanks @Bo");
      await anna.getByRole("listbox", { name: "Members to mention" }).waitFor();
      await reply.press("Tab");
      assert.equal(await reply.inputValue(), "Thanks @Bob Editor ");
      await anna.getByRole("button", { name: "Reply", exact: true }).click();
      await waitFor(async () => {
        const now = await notificationsOf(editor.access_token);
        return now.items[0].template === "mentioned" && now.items[0].read_at === null &&
          now.items[0].notification_id !== mention.notification_id;
      }, "the reply's mention");

      // Mark all read.
      await bob.getByRole("button", { name: /^Notifications/ }).click();
      await panel.getByText("Anna Author mentioned you on “Launch notes”").first().waitFor();
      await waitFor(async () => await unreadShown(bob) > 0, "the reply's mention shown");
      await panel.getByRole("button", { name: "Mark all read" }).click();
      await panel.getByText("All read", { exact: true }).waitFor();
      assert.equal(await unreadShown(bob), 0);
      assert.equal((await notificationsOf(editor.access_token)).unread_count, 0);
      // Escape closes the list and gives the focus back to the button.
      await bob.keyboard.press("Escape");
      await panel.waitFor({ state: "detached" });
      assert.equal(
        await bob.evaluate("document.activeElement?.getAttribute('aria-controls')"),
        "notifications-panel",
      );

      // Phones: the picker and the list at 375 px.
      const annaPhone = await web.newPage({ viewport: PHONE });
      await annaPhone.goto(`${stack.url}/workspaces/${workspaceId}/posts/${postId}`);
      await signIn(annaPhone, owner.email, owner.password);
      const phoneBox = annaPhone.getByRole("textbox", { name: "Comment on the whole post" });
      await phoneBox.click();
      await phoneBox.pressSequentially("Over to @");
      await annaPhone.getByRole("listbox", { name: "Members to mention" }).waitFor();
      await phoneBox.scrollIntoViewIfNeeded();
      await checkA11y(annaPhone);
      await screenshot(annaPhone, "mention-picker-375");

      const bobPhone = await web.newPage({ viewport: PHONE });
      await bobPhone.goto(`${stack.url}/workspaces/${workspaceId}/ideas`);
      await signIn(bobPhone, editor.email, editor.password);
      await bobPhone.getByRole("button", { name: /^Notifications/ }).click();
      await bobPhone.getByRole("region", { name: "Notifications" }).getByRole("listitem").first()
        .waitFor();
      await checkA11y(bobPhone);
      await screenshot(bobPhone, "notifications-list-375");
      assert.deepEqual(web.pageErrors, []);
    } finally {
      await web.close();
    }
  },
);
