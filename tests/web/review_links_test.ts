/**
 * Review links in the browser: the owner shares a post for review from the editor (name,
 * hours, the URL with Copy, the list with its decisions, Revoke); the reviewer opens the link
 * in a fresh browser context with no cookies and no account, sees the post as the feed shows
 * it (text, images, first comment), the workspace, their name and the expiry, and approves; a
 * second visit shows the decision; the editor counts the approval ("1 of 2 approvals"); a link
 * dies when the post changes and when it is revoked, said in words.
 */
import assert from "node:assert/strict";
import { api, e2e } from "../helpers/stack.ts";
import { checkA11y, type Page, PHONE, screenshot, startWebTest } from "../helpers/browser.ts";
import { openEditor } from "./editor_fixture.ts";
import { addImage, makePost, reviewTeam, solidPng } from "./review_fixture.ts";
import { PDF, uploadMedia } from "../helpers/media_files.ts";

const TEXT = "We shipped the new planner today.\n\nThree things changed:\n1. Faster boards\n" +
  "2. A calendar\n3. Review links for clients\n\nThanks to everyone who tested it #launch #product";

async function noHorizontalScroll(page: Page) {
  const overflow = await page.evaluate(
    "document.documentElement.scrollWidth > document.documentElement.clientWidth",
  );
  assert.equal(overflow, false, "no horizontal scrolling");
}

Deno.test(
  "review links: shared from the editor, approved from a browser without an account, shown decided on a second visit, dead after a change or a revoke",
  e2e,
  async () => {
    const web = await startWebTest();
    try {
      const { stack } = web;
      const { owner, workspaceId } = await reviewTeam(stack, {
        approval_required: true,
        approvals_required: 2,
      });
      const postId = await makePost(stack, owner, workspaceId, {
        title: "Planner launch",
        content: TEXT,
        first_comment: "Read the release notes: https://example.test/notes",
      });
      const colours: [number, number, number][] = [[47, 111, 222], [26, 127, 55], [
        180,
        35,
        24,
      ]];
      for (const [i, colour] of colours.entries()) {
        await addImage(
          stack,
          owner,
          workspaceId,
          postId,
          `shot-${i + 1}.png`,
          await solidPng(240, 160, colour),
          `Screenshot ${i + 1}`,
        );
      }
      const getPost = async () =>
        (await api(stack, "GET", `/api/posts/${postId}?workspaceId=${workspaceId}`, {
          token: owner.access_token,
        })).body;

      // The owner makes a link from the editor's review bar.
      const editorUrl = `${stack.url}/workspaces/${workspaceId}/posts/${postId}`;
      const editor = await openEditor(web, editorUrl, owner);
      await editor.getByText("0 of 2 approvals").waitFor();
      await editor.getByRole("button", { name: "Share for review" }).click();
      await editor.getByLabel("Reviewer's name").fill("Clara Client");
      assert.equal(await editor.getByLabel("Works for (hours)").inputValue(), "72");
      await checkA11y(editor);
      await editor.getByRole("button", { name: "Make link" }).click();
      const urlBox = editor.getByRole("textbox", { name: "Review link for Clara Client" });
      await urlBox.waitFor();
      const link = await urlBox.inputValue();
      assert.match(link, new RegExp(`^${stack.url}/review/[A-Za-z0-9_-]+$`));
      await editor.getByRole("button", { name: "Copy" }).click();
      await editor.getByRole("status").filter({ hasText: /Copied|Selected/ }).waitFor();
      const links = editor.getByRole("list", { name: "Review links" });
      await links.getByText("Clara Client").waitFor();
      await links.getByText("No decision yet").waitFor();
      await checkA11y(editor);
      await screenshot(editor, "review-links-editor-made-1440");

      // A fresh context: no cookies, no session, no sign-in.
      const reviewer = await web.newPage();
      assert.deepEqual(await reviewer.context().cookies(), []);
      await reviewer.goto(link);
      await reviewer.getByRole("heading", { name: "Launch team asks for your review" }).waitFor();
      assert.equal(new URL(reviewer.url()).pathname, new URL(link).pathname, "no sign-in detour");
      const card = reviewer.getByRole("article", { name: "Post by Launch team" });
      await card.getByText("We shipped the new planner today.").waitFor();
      await reviewer.getByText("For Clara Client").waitFor();
      await reviewer.getByText(/this link works until/).waitFor();
      // The feed's cut: three lines, then "…see more" shows the rest with its line breaks.
      assert.equal(await card.getByText("Thanks to everyone who tested it").count(), 0);
      await card.getByRole("button", { name: "…see more" }).click();
      // one paragraph per line of the text, as the feed breaks it
      const lines = (await card.locator(".lp-text .lp-line").allInnerTexts()).map((l) => l.trim());
      assert.deepEqual(lines, TEXT.split("\n"));
      assert.equal(await card.getByRole("img").count(), 3);
      assert.equal(await card.getByRole("img", { name: "Screenshot 2" }).count(), 1);
      // A string, so it runs in the page (which has images), not type-checked as Deno code.
      const loaded = await reviewer.waitForFunction(
        `[...document.querySelectorAll(".lp-images img")].every((i) => i.complete && i.naturalWidth > 0)`,
      ).then(() => true, () => false);
      assert.equal(loaded, true, "the images load under the page's CSP");
      await card.locator(".lp-comment").getByText(/release notes/).waitFor();
      assert.match(await card.locator(".lp-comment").innerText(), /First comment:/);
      await checkA11y(reviewer);
      await screenshot(reviewer, "review-page-1440");

      const phone = await web.newPage({ viewport: PHONE });
      await phone.goto(link);
      await phone.getByRole("button", { name: "Approve" }).waitFor();
      await noHorizontalScroll(phone);
      await checkA11y(phone);
      await screenshot(phone, "review-page-375");

      await reviewer.getByLabel("Note for the team (optional)").fill("Lovely, ship it");
      await reviewer.getByRole("button", { name: "Approve" }).click();
      await reviewer.getByRole("heading", { name: "You approved this post" }).waitFor();
      assert.equal(await reviewer.getByRole("button", { name: "Approve" }).count(), 0);
      await checkA11y(reviewer);
      await screenshot(reviewer, "review-page-approved-1440");

      // A second visit shows the decision, and offers no second one.
      const again = await web.newPage();
      await again.goto(link);
      await again.getByRole("heading", { name: "You approved this post" }).waitFor();
      assert.equal(await again.getByRole("button", { name: "Request changes" }).count(), 0);

      // The post counts one external approval of two; the editor follows without a reload.
      const post = await getPost();
      assert.equal(post.status, "in_review");
      assert.deepEqual(
        post.approvals.map((a: { reviewer_name: string; external: boolean }) => [
          a.reviewer_name,
          a.external,
        ]),
        [["Clara Client", true]],
      );
      await editor.getByText("1 of 2 approvals").waitFor({ timeout: 15_000 });
      await editor.getByText("Clara Client (review link)").waitFor();
      await links.getByText("Approved").waitFor({ timeout: 15_000 });
      const history = editor.getByRole("list", { name: "Review history" });
      await history.getByText("Lovely, ship it").waitFor();
      await checkA11y(editor);
      await screenshot(editor, "review-links-editor-approved-1440");

      // A link made before a change of the post dies with the change.
      const second = await api(stack, "POST", `/api/posts/${postId}/review-links`, {
        token: owner.access_token,
        body: { workspace_id: workspaceId, reviewer_name: "Dan Later" },
      });
      assert.equal(second.status, 201);
      const late = await web.newPage();
      await late.goto(second.body.url);
      await late.getByRole("button", { name: "Request changes" }).waitFor();
      const edit = await api(stack, "PUT", `/api/posts/${postId}`, {
        token: owner.access_token,
        body: { workspace_id: workspaceId, content: `${TEXT}\n\nP.S. One more thing.` },
      });
      assert.equal(edit.status, 200);
      await late.reload();
      await late.getByRole("heading", { name: "This review link is not valid any more" })
        .waitFor();
      assert.equal(await late.getByRole("button", { name: "Approve" }).count(), 0);
      await checkA11y(late);
      await screenshot(late, "review-page-gone-1440");

      // Revoke from the editor: the link stops working at once.
      await editor.getByRole("button", { name: "Share for review" }).click();
      await editor.getByLabel("Reviewer's name").fill("Eve Revoked");
      await editor.getByLabel("Works for (hours)").fill("2");
      await editor.getByRole("button", { name: "Make link" }).click();
      const revokedUrl = await editor.getByRole("textbox", { name: "Review link for Eve Revoked" })
        .inputValue();
      await editor.getByRole("button", { name: "Revoke the link for Eve Revoked" }).click();
      await editor.getByRole("dialog").getByRole("button", { name: "Revoke link" }).click();
      await links.getByText("Eve Revoked").waitFor({ state: "detached" });
      const revoked = await web.newPage();
      await revoked.goto(revokedUrl);
      await revoked.getByRole("heading", { name: "This review link is not valid any more" })
        .waitFor();

      // A document post shows its PDF's title; too many requests on a link say try again.
      const docPost = await makePost(stack, owner, workspaceId, {
        title: "Whitepaper",
        content: "Our whitepaper is out.",
      });
      const pdfId = await uploadMedia(stack, owner.access_token, {
        workspaceId,
        postId: docPost,
      }, { filename: "paper.pdf", contentType: "application/pdf", bytes: PDF });
      const titled = await api(stack, "PATCH", `/api/posts/${docPost}/media/${pdfId}`, {
        token: owner.access_token,
        body: { workspace_id: workspaceId, title: "The 2026 planning guide" },
      });
      assert.equal(titled.status, 200, JSON.stringify(titled.body));
      const docLink = await api(stack, "POST", `/api/posts/${docPost}/review-links`, {
        token: owner.access_token,
        body: { workspace_id: workspaceId, reviewer_name: "Paula Paper", expires_in_hours: 1 },
      });
      const docPage = await web.newPage();
      await docPage.goto(docLink.body.url);
      const docCard = docPage.getByRole("article", { name: "Post by Launch team" });
      await docCard.getByText("The 2026 planning guide").first().waitFor();
      await docPage.getByRole("link", { name: /Open the document “The 2026 planning guide”/ })
        .waitFor();
      await checkA11y(docPage);
      await screenshot(docPage, "review-page-document-1440");
      const token = new URL(docLink.body.url).pathname.split("/").pop();
      for (let i = 0; i < 30; i++) {
        const res = await fetch(`${stack.url}/api/review-links/${token}`);
        await res.body?.cancel();
      }
      await docPage.reload();
      await docPage.getByRole("heading", { name: "Too many requests for this link" }).waitFor();
      await docPage.getByText("Try again in a minute.").waitFor();
      await docPage.getByRole("button", { name: "Try again" }).waitFor();
      assert.deepEqual(web.pageErrors, []);
    } finally {
      await web.close();
    }
  },
);
