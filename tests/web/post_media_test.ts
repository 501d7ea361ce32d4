/**
 * What is published with a post, in the browser, against the fake LinkedIn on loopback: images
 * added with the file picker (upload progress shown while the bytes go) and by dropping a file
 * on the drop zone, moved with the keyboard and by dragging, alt texts saved (and the warning
 * while one is empty), removed; a PDF with its title; refusals shown in words (a document beside
 * images, a 21st image); the first comment with its counter; "Publish as" a page, read-only for
 * a viewer and absent without pages; then published, LinkedIn receiving exactly that, and the
 * first comment's failure shown beside the publishing controls.
 */
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { api, e2e, type TestStack } from "../helpers/stack.ts";
import { createUser, type TestUser } from "../helpers/users.ts";
import { createWorkspace } from "../helpers/workspaces.ts";
import {
  checkA11y,
  type Page,
  PHONE,
  screenshot,
  signIn,
  startWebTest,
  type WebTest,
} from "../helpers/browser.ts";
import { startFakeLinkedIn } from "../fakes/linkedin.ts";
import { connectLinkedIn, linkedInEnv } from "../helpers/linkedin_publishing.ts";
import { GIF, JPEG, PDF, PNG, uploadMedia } from "../helpers/media_files.ts";
import { waitFor } from "../helpers/wait.ts";

/** Waits until `probe` holds (or answers a value); `what` names it when it never does. */
const until = <T>(
  probe: () => T | undefined | false | Promise<T | undefined | false>,
  what = "the page to follow",
  timeoutMs = 10_000,
) => waitFor(probe, what, timeoutMs);

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(bytes: Uint8Array): number {
  let c = 0xffffffff;
  for (const b of bytes) c = CRC_TABLE[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

/**
 * The 1×1 PNG grown to about `size` bytes by a private ancillary chunk before IEND, which
 * decoders skip: a real image whose upload takes long enough to watch.
 */
function largePng(size: number): Uint8Array {
  const iend = PNG.length - 12;
  const data = new Uint8Array(size);
  const chunk = new Uint8Array(12 + size);
  const view = new DataView(chunk.buffer);
  view.setUint32(0, size);
  chunk.set(new TextEncoder().encode("prVt"), 4);
  chunk.set(data, 8);
  view.setUint32(8 + size, crc32(chunk.subarray(4, 8 + size)));
  const out = new Uint8Array(PNG.length + chunk.length);
  out.set(PNG.subarray(0, iend));
  out.set(chunk, iend);
  out.set(PNG.subarray(iend), iend + chunk.length);
  return out;
}

const asFile = (name: string, mimeType: string, bytes: Uint8Array) => ({
  name,
  mimeType,
  buffer: Buffer.from(bytes),
});

async function openEditorAs(web: WebTest, url: string, user: TestUser, viewport?: typeof PHONE) {
  const page = await web.newPage(viewport ? { viewport } : {});
  await page.goto(url);
  await signIn(page, user.email, user.password);
  await page.getByRole("textbox", { name: "Post text" }).waitFor();
  await page.getByRole("heading", { name: "Media" }).waitFor();
  return page;
}

/** The file names of the media list, in the order shown. */
async function shownOrder(page: Page): Promise<string[]> {
  return await page.locator(".media-list .media-filename").allInnerTexts();
}

/** The accessible name of the focused element. */
async function focusedName(page: Page): Promise<string | null> {
  return await page.evaluate(
    `document.activeElement?.getAttribute("aria-label") ?? null`,
  ) as string | null;
}

/** Whether `count` images match `selector` and each has loaded (a decoded picture). */
async function imagesLoaded(page: Page, selector: string, count: number): Promise<boolean> {
  return await page.evaluate(`(() => {
    const images = Array.from(document.querySelectorAll(${JSON.stringify(selector)}));
    return images.length === ${count} &&
      images.every((img) => img.complete && img.naturalWidth > 0);
  })()`) as boolean;
}

/** Whether every thumbnail image of the list has loaded (a decoded picture). */
async function thumbnailsLoaded(page: Page): Promise<boolean> {
  return await page.evaluate(
    `Array.from(document.querySelectorAll(".media-thumb img"))
      .every((img) => img.complete && img.naturalWidth > 0)`,
  ) as boolean;
}

async function noHorizontalScroll(page: Page) {
  const overflow = await page.evaluate(
    "document.documentElement.scrollWidth > document.documentElement.clientWidth",
  );
  assert.equal(overflow, false, "no horizontal scrolling");
}

async function newPost(stack: TestStack, user: TestUser, wsId: string, title: string) {
  const res = await api(stack, "POST", "/api/posts", {
    token: user.access_token,
    body: { workspace_id: wsId, title, content: `${title}: the text` },
  });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body.post_id as string;
}

Deno.test(
  "post media in the editor: picker and drop, progress, keyboard and drag order, alt text, a PDF with its title, refusals, first comment, publish as a page",
  e2e,
  async () => {
    const fake = startFakeLinkedIn();
    const web = await startWebTest({ ...linkedInEnv(fake), LINKEDIN_ORGANIZATIONS: "true" });
    try {
      const { stack } = web;
      const owner = await createUser(stack, { name: "Olga Owner" });
      const viewer = await createUser(stack, { name: "Vic Viewer" });

      // A workspace whose member administers no page, and one whose member administers one.
      const plainWs = await createWorkspace(stack, owner, "Personal");
      await connectLinkedIn(stack, owner, plainWs);
      fake.organizations = [{ id: "1001", name: "Acme Robotics" }];
      const wsId = await createWorkspace(stack, owner, "Acme", [[viewer, "viewer"]]);
      await connectLinkedIn(stack, owner, wsId);
      const conn = await api(stack, "GET", `/api/workspaces/${wsId}/linkedin`, {
        token: owner.access_token,
      });
      assert.deepEqual(conn.body.organizations, [
        { urn: "urn:li:organization:1001", name: "Acme Robotics" },
      ]);

      const postId = await newPost(stack, owner, wsId, "Launch");
      const url = `${stack.url}/workspaces/${wsId}/posts/${postId}`;
      const getPost = async (id = postId, ws = wsId) =>
        (await api(stack, "GET", `/api/posts/${id}?workspaceId=${ws}`, {
          token: owner.access_token,
        })).body;

      const page = await openEditorAs(web, url, owner);
      await page.getByText("No images or document yet").waitFor();
      const picker = page.getByLabel("Add images or a PDF");
      assert.equal(await picker.getAttribute("type"), "file");
      // The picker is reached with the keyboard (its label is the visible button).
      await page.getByLabel("Tags").focus();
      for (let i = 0; i < 30 && await focusedId(page) !== "post-media-input"; i++) {
        await page.keyboard.press("Tab");
      }
      assert.equal(await focusedId(page), "post-media-input", "Tab reaches the file picker");

      // Two images through the file picker; the upload is slowed so its progress shows.
      const cdp = await page.context().newCDPSession(page);
      await cdp.send("Network.enable");
      await cdp.send("Network.emulateNetworkConditions", {
        offline: false,
        latency: 0,
        downloadThroughput: -1,
        uploadThroughput: 384 * 1024,
      });
      const cover = largePng(1_200_000);
      await picker.setInputFiles([
        asFile("cover.png", "image/png", cover),
        asFile("team.jpg", "image/jpeg", JPEG),
      ]);
      const progress = page.getByRole("progressbar", { name: "Uploading cover.png" });
      await progress.waitFor();
      await until(
        async () => {
          const v = Number(await progress.getAttribute("value").catch(() => "0"));
          return v > 0 && v < 100 ? v : undefined;
        },
        "progress between 0 and 100 %",
        10_000,
      );
      await screenshot(page, "post-media-uploading-1440");
      await cdp.send("Network.emulateNetworkConditions", {
        offline: false,
        latency: 0,
        downloadThroughput: -1,
        uploadThroughput: -1,
      });
      await progress.waitFor({ state: "detached", timeout: 20_000 });
      const live = page.getByRole("status", { name: "Media updates" });
      await until(
        async () => /uploaded/.test(await live.innerText()),
        "the live region says the upload ended",
      );

      // A third image dropped on the drop zone (a real drop with a DataTransfer).
      const gif64 = btoa(String.fromCharCode(...GIF));
      const transfer = await page.evaluateHandle(`(() => {
        const dt = new DataTransfer();
        const bytes = Uint8Array.from(atob("${gif64}"), (c) => c.charCodeAt(0));
        dt.items.add(new File([bytes], "chart.gif", { type: "image/gif" }));
        return dt;
      })()`);
      const zone = page.locator(".media-drop");
      await zone.dispatchEvent("dragenter", { dataTransfer: transfer });
      await zone.dispatchEvent("dragover", { dataTransfer: transfer });
      await page.getByText("Drop the files to add them").waitFor();
      assert.match(await zone.getAttribute("class") ?? "", /is-active/);
      await zone.dispatchEvent("drop", { dataTransfer: transfer });
      await until(async () => (await shownOrder(page)).length === 3);
      await until(async () => await page.getByRole("progressbar").count() === 0);
      assert.deepEqual(await shownOrder(page), ["cover.png", "team.jpg", "chart.gif"]);
      await page.getByText("3 of 20 images").waitFor();
      // A file dropped beside the drop zone neither leaves the editor nor adds anything.
      const strayPrevented = await page.evaluate(`(() => {
        const dt = new DataTransfer();
        dt.items.add(new File(["x"], "stray.png", { type: "image/png" }));
        const drop = new DragEvent("drop", { dataTransfer: dt, bubbles: true, cancelable: true });
        document.querySelector(".editor-pane").dispatchEvent(drop);
        return drop.defaultPrevented;
      })()`);
      assert.equal(strayPrevented, true, "the browser does not open the stray file");
      const uploaded = await getPost();
      assert.deepEqual(await shownOrder(page), ["cover.png", "team.jpg", "chart.gif"]);
      assert.deepEqual(uploaded.media.map((m: { filename: string }) => m.filename), [
        "cover.png",
        "team.jpg",
        "chart.gif",
      ]);
      const sizes = uploaded.media.map((m: { size: number }) => m.size);
      assert.deepEqual(sizes, [cover.length, JPEG.length, GIF.length]);
      // The bytes arrived as sent.
      const back = new Uint8Array(await (await fetch(uploaded.media[2].downloadUrl)).arrayBuffer());
      assert.deepEqual(back, GIF);
      await until(() => thumbnailsLoaded(page), "thumbnails shown");
      // (its pictures load lazily: once it is in view)
      await page.getByRole("region", { name: "LinkedIn preview" }).scrollIntoViewIfNeeded();
      // (its pictures load lazily: once it is in view)
      await page.getByRole("region", { name: "LinkedIn preview" }).scrollIntoViewIfNeeded();
      await until(
        () => imagesLoaded(page, `section[aria-label="LinkedIn preview"] img`, 3),
        "the LinkedIn preview shows the uploaded pictures",
      );

      // Keyboard: chart.gif moves earlier twice; the focus stays with it.
      await page.getByRole("button", { name: "Move chart.gif earlier" }).focus();
      await page.keyboard.press("Enter");
      await until(async () => (await shownOrder(page)).join() === "cover.png,chart.gif,team.jpg");
      assert.equal(await focusedName(page), "Move chart.gif earlier");
      await until(async () => /Moved chart\.gif to position 2 of 3/.test(await live.innerText()));
      await page.keyboard.press("Enter");
      await until(async () => (await shownOrder(page)).join() === "chart.gif,cover.png,team.jpg");
      // First now: "earlier" is disabled, so "later" has the focus.
      assert.equal(await focusedName(page), "Move chart.gif later");
      assert.equal(
        await page.getByRole("button", { name: "Move chart.gif earlier" }).isDisabled(),
        true,
      );
      await until(
        async () =>
          (await getPost()).media.map((m: { filename: string }) => m.filename).join() ===
            "chart.gif,cover.png,team.jpg",
        "the keyboard order saved",
      );

      // Drag: team.jpg's thumbnail onto the left half of the first item.
      const items = page.getByRole("list", { name: "Media, in publishing order" }).getByRole(
        "listitem",
      );
      await items.nth(2).locator(".media-thumb").dragTo(items.nth(0), {
        targetPosition: { x: 10, y: 40 },
      });
      await until(async () => (await shownOrder(page)).join() === "team.jpg,chart.gif,cover.png");
      await until(async () => /Moved team\.jpg to position 1 of 3/.test(await live.innerText()));
      await until(
        async () =>
          (await getPost()).media.map((m: { filename: string }) => m.filename).join() ===
            "team.jpg,chart.gif,cover.png",
        "the dragged order saved",
      );

      // Alt texts: saved on leaving the field; the warning stays on the image without one.
      const warning = page.getByText("Add alt text so everyone can read this image");
      assert.equal(await warning.count(), 3);
      await page.getByLabel("Alt text for team.jpg").fill("Four people around a whiteboard");
      await page.getByLabel("Alt text for chart.gif").fill("Bar chart: sign-ups doubled in May");
      await page.keyboard.press("Tab");
      await until(async () => await warning.count() === 1);
      const coverItem = items.filter({ hasText: "cover.png" });
      assert.equal(
        await coverItem.getByText("Add alt text so everyone can read this image").count(),
        1,
      );
      await until(async () => {
        const alts = (await getPost()).media.map((m: { alt_text: string }) => m.alt_text);
        return alts.join("|") ===
          "Four people around a whiteboard|Bar chart: sign-ups doubled in May|";
      }, "alt texts saved");
      const described = await page.getByLabel("Alt text for cover.png").getAttribute(
        "aria-describedby",
      );
      assert.ok(described, "the empty field points at its warning");

      // The first comment: counter, warning near the limit, no more than the limit, saved.
      const comment = page.getByRole("textbox", { name: "First comment" });
      const counter = page.locator("#first-comment-count");
      await comment.fill("x".repeat(1130));
      await until(async () => /1,130 \/ 1,250 \(120 left\)/.test(await counter.innerText()));
      assert.match(await counter.getAttribute("class") ?? "", /is-warning/);
      await comment.fill("y".repeat(1300));
      assert.equal((await comment.inputValue()).length, 1250, "the box takes no more");
      await until(async () => /1,250 \/ 1,250/.test(await counter.innerText()));
      assert.match(await counter.innerText(), /limit reached/);
      const firstComment = "Sources and the full report: https://example.com/report";
      await comment.fill(firstComment);
      await until(async () =>
        (await counter.innerText()).includes(`${firstComment.length} / 1,250`)
      );
      assert.doesNotMatch(await counter.getAttribute("class") ?? "", /is-warning|is-over/);
      await comment.blur();
      await until(
        async () => (await getPost()).first_comment === firstComment,
        "the first comment saved",
      );
      await page.getByRole("status", { name: "First comment save state" }).filter({
        hasText: "Saved",
      }).waitFor();

      // Publish as: the member or the page.
      const publishAs = page.getByRole("combobox", { name: "Publish as" });
      await publishAs.waitFor();
      assert.deepEqual(await publishAs.locator("option").allInnerTexts(), [
        "Lina Linked (member)",
        "Acme Robotics (page)",
      ]);
      assert.equal(await publishAs.inputValue(), "member");
      await publishAs.selectOption({ label: "Acme Robotics (page)" });
      await until(
        async () => (await getPost()).publish_as === "urn:li:organization:1001",
        "publish_as saved",
      );

      await checkA11y(page);
      await screenshot(page, "post-media-editor-1440");
      const phone = await openEditorAs(web, url, owner, PHONE);
      await until(async () => (await shownOrder(phone)).length === 3);
      await until(() => thumbnailsLoaded(phone), "thumbnails from download URLs");
      await phone.getByRole("combobox", { name: "Publish as" }).waitFor();
      assert.equal(
        await phone.getByRole("textbox", { name: "First comment" }).inputValue(),
        firstComment,
      );
      await noHorizontalScroll(phone);
      await checkA11y(phone);
      await screenshot(phone, "post-media-editor-375");
      await phone.context().close();

      // A document beside images is refused, in the server's words, next to the drop zone.
      await picker.setInputFiles([asFile("deck.pdf", "application/pdf", PDF)]);
      const refusal = page.getByRole("alert").filter({ hasText: "deck.pdf" });
      await refusal.waitFor();
      assert.match(
        await refusal.innerText(),
        /deck\.pdf: A post can have one document, never beside images or another document/,
      );
      await checkA11y(page);
      await screenshot(page, "post-media-refused-1440");
      await refusal.getByRole("button", { name: "Dismiss" }).click();
      await refusal.waitFor({ state: "detached" });

      // Removing cover.png (the last) moves the focus to the one before it.
      await page.getByRole("button", { name: "Remove cover.png" }).click();
      await until(async () => (await shownOrder(page)).join() === "team.jpg,chart.gif");
      assert.equal(await focusedName(page), "Remove chart.gif");
      await until(async () => /Removed cover\.png/.test(await live.innerText()));
      await until(async () => (await getPost()).media.length === 2);
      assert.equal(await warning.count(), 0);

      // A viewer reads who the post is published as, and cannot change it.
      const viewerPage = await openEditorAs(web, url, viewer);
      await viewerPage.getByText("Publishes as Acme Robotics (page)").waitFor();
      assert.equal(await viewerPage.getByRole("combobox", { name: "Publish as" }).count(), 0);
      await checkA11y(viewerPage);
      await screenshot(viewerPage, "post-media-viewer-1440");
      await viewerPage.context().close();

      // Published as the page: LinkedIn gets the images in order with their alt texts; the
      // first comment fails there and says so beside the publishing controls.
      fake.commentFailures = [422];
      await page.getByRole("button", { name: "Publish now" }).click();
      await page.getByRole("status", { name: "Post status" }).filter({ hasText: "Published" })
        .waitFor({ timeout: 30_000 });
      const sent = JSON.parse(fake.posts()[0].body);
      assert.equal(sent.author, "urn:li:organization:1001");
      assert.deepEqual(
        sent.content.multiImage.images.map((i: { altText: string }) => i.altText),
        ["Four people around a whiteboard", "Bar chart: sign-ups doubled in May"],
      );
      await page.getByText(
        /The first comment was not posted: LinkedIn refused the first comment \(422\)/,
      )
        .waitFor({ timeout: 30_000 });
      await page.getByText("Published as Acme Robotics (page)").waitFor();
      await page.getByText("changing its media here changes nothing there").waitFor();
      await checkA11y(page);
      await screenshot(page, "post-media-published-1440");

      // A PDF with its title, on a post of its own.
      const docPost = await newPost(stack, owner, wsId, "Roadmap");
      await page.goto(`${stack.url}/workspaces/${wsId}/posts/${docPost}`);
      await page.getByRole("heading", { name: "Media" }).waitFor();
      await page.getByLabel("Add images or a PDF").setInputFiles([
        asFile("deck.pdf", "application/pdf", PDF),
      ]);
      const title = page.getByRole("textbox", { name: "Document title for deck.pdf" });
      await title.waitFor();
      await page.getByText("1 document").waitFor();
      await page.getByText("Add a title: LinkedIn shows it above the document").waitFor();
      await until(async () => await page.getByRole("progressbar").count() === 0);
      await title.fill("Roadmap 2030");
      await title.blur();
      await until(
        async () => (await getPost(docPost)).media[0]?.title === "Roadmap 2030",
        "the document title saved",
      );
      // The hint goes once the page has the saved title (its answer may land after the store's).
      await page.getByText("Add a title: LinkedIn shows it above the document").waitFor({
        state: "detached",
      });
      await checkA11y(page);
      await screenshot(page, "post-media-document-1440");

      // Twenty images already: a 21st is refused; without pages there is no "Publish as".
      const fullPost = await newPost(stack, owner, plainWs, "Gallery");
      for (let i = 1; i <= 20; i++) {
        await uploadMedia(stack, owner.access_token, { workspaceId: plainWs, postId: fullPost }, {
          filename: `photo-${i}.png`,
          contentType: "image/png",
          bytes: PNG,
        });
      }
      await page.goto(`${stack.url}/workspaces/${plainWs}/posts/${fullPost}`);
      await page.getByText("20 of 20 images").waitFor();
      await page.getByRole("heading", { name: "Review and publishing" }).waitFor();
      await page.getByRole("button", { name: "Publish now" }).waitFor();
      assert.equal(await page.getByRole("combobox", { name: "Publish as" }).count(), 0);
      await page.getByLabel("Add images or a PDF").setInputFiles([
        asFile("one-more.png", "image/png", PNG),
      ]);
      const tooMany = page.getByRole("alert").filter({ hasText: "one-more.png" });
      await tooMany.waitFor();
      assert.match(await tooMany.innerText(), /A post can have at most 20 images/);
      assert.equal((await getPost(fullPost, plainWs)).media.length, 20);
      await checkA11y(page);
      await screenshot(page, "post-media-twenty-1440");

      assert.deepEqual(web.pageErrors, []);
    } finally {
      await web.close();
      await fake.close();
    }
  },
);

async function focusedId(page: Page): Promise<string | null> {
  return await page.evaluate(`document.activeElement?.id ?? null`) as string | null;
}
