/**
 * The ideas board, quick capture (bookmarklet and curl) and the posts list, in Chromium
 * against the real stack. Each test starts its own stack and browser.
 */
import assert from "node:assert/strict";
import { api, e2e } from "../helpers/stack.ts";
import { createUser, type TestUser } from "../helpers/users.ts";
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
import { startFakeChatCompletions } from "../fakes/chat_completions.ts";
import { waitFor } from "../helpers/wait.ts";

interface Idea {
  idea_id: string;
  title: string;
  description: string;
  tags: string[];
  source_url: string;
  status: string;
  created_by: string;
  linked_post_id: string | null;
}

async function workspaceOf(web: WebTest, user: TestUser, name = "Launch team") {
  const res = await api(web.stack, "POST", "/api/workspaces", {
    token: user.access_token,
    body: { name },
  });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body.workspace_id as string;
}

async function addIdea(
  web: WebTest,
  user: TestUser,
  ws: string,
  text: string,
  extra: { tags?: string[]; source_url?: string } = {},
): Promise<Idea> {
  const res = await api(web.stack, "POST", "/api/ideas", {
    token: user.access_token,
    body: { workspace_id: ws, title: text, ...extra },
  });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body as Idea;
}

async function listIdeas(web: WebTest, user: TestUser, ws: string): Promise<Idea[]> {
  const res = await api(web.stack, "GET", `/api/ideas?workspaceId=${ws}`, {
    token: user.access_token,
  });
  assert.equal(res.status, 200);
  return res.body.items as Idea[];
}

/** A fresh context signed in through the hosted login, on `path`. */
async function openSignedIn(web: WebTest, user: TestUser, path: string): Promise<Page> {
  const page = await web.newPage();
  await page.goto(web.stack.url + path);
  await signIn(page, user.email, user.password);
  await page.waitForURL(web.stack.url + path);
  return page;
}

/** axe and the two screenshots of a screen; no horizontal scrolling on a phone. */
async function lookAt(page: Page, name: string, ready: () => Promise<unknown>) {
  await page.setViewportSize(DESKTOP);
  await ready();
  await checkA11y(page);
  await screenshot(page, `${name}-1440`);
  await page.setViewportSize(PHONE);
  await ready();
  await checkA11y(page);
  await screenshot(page, `${name}-375`);
  const overflow = await page.evaluate(
    "document.documentElement.scrollWidth > document.documentElement.clientWidth",
  );
  assert.equal(overflow, false, `${name}: no horizontal scrolling at 375 px`);
  await page.setViewportSize(DESKTOP);
}

function ideaCard(page: Page, text: string) {
  return page.getByRole("list", { name: "Ideas" }).getByRole("listitem").filter({
    has: page.getByRole("heading", { name: text }),
  });
}

Deno.test(
  "ideas: quick add shows the idea at once with Titling…, then the AI's title",
  e2e,
  async () => {
    const ai = startFakeChatCompletions();
    ai.setDefault({ delayMs: 1500, content: "Why junior hires pay off" });
    const web = await startWebTest({
      OPENAI_BASE_URL: ai.baseUrl,
      OPENAI_API_KEY: "sk-test",
      OPENAI_MODEL: "title-model",
    });
    try {
      const user = await createUser(web.stack, { name: "Robin Writer" });
      const ws = await workspaceOf(web, user);
      const page = await openSignedIn(web, user, `/workspaces/${ws}/ideas`);
      await page.getByRole("heading", { name: "No ideas yet" }).waitFor();

      // The landing screen stays light: the JS of a load of the ideas screen, gzipped.
      const fresh = await page.context().newPage();
      const scripts = new Map<string, Promise<Uint8Array<ArrayBuffer>>>();
      fresh.on("response", (res) => {
        if (new URL(res.url()).pathname.endsWith(".js")) {
          scripts.set(res.url(), res.body().then((b) => Uint8Array.from(b)));
        }
      });
      await fresh.goto(page.url());
      await fresh.getByRole("heading", { name: "No ideas yet" }).waitFor();
      let gzipped = 0;
      for (const body of scripts.values()) {
        const stream = new Blob([await body]).stream().pipeThrough(new CompressionStream("gzip"));
        gzipped += (await new Response(stream).arrayBuffer()).byteLength;
      }
      console.log(`ideas screen: ${scripts.size} scripts, ${(gzipped / 1024).toFixed(1)} KB gzip`);
      assert.ok(scripts.size > 0);
      assert.ok(gzipped <= 200 * 1024, `ideas screen JS ${gzipped} bytes gzip > 200 KB`);
      assert.ok(
        ![...scripts.keys()].some((u) => /post_editor|codemirror|yjs/i.test(u)),
        `the editor stays out of the ideas screen: ${[...scripts.keys()].join(", ")}`,
      );
      await fresh.close();

      await lookAt(
        page,
        "ideas-empty",
        () => page.getByRole("heading", { name: "Ideas", exact: true }).waitFor(),
      );

      // "n" focuses quick add; typing "n" inside another field does not jump.
      const quickAdd = page.getByRole("textbox", { name: "New idea" });
      const tagsFilter = page.getByRole("searchbox", { name: "Tags" });
      await tagsFilter.click();
      await page.keyboard.press("n");
      assert.equal(await tagsFilter.inputValue(), "n", "typing in a field is not stolen");
      await tagsFilter.fill("");
      await page.getByRole("heading", { name: "Ideas", exact: true }).click();
      await page.keyboard.press("n");
      assert.equal(await page.evaluate("document.activeElement.id"), "idea-quick-add");
      assert.equal(await quickAdd.inputValue(), "", "the key that focused it is not typed");

      await quickAdd.fill("Hire juniors: they grow with the team and stay.");
      await page.keyboard.press("Enter");
      const pending = page.getByRole("list", { name: "Ideas" }).getByRole("listitem").filter({
        hasText: "Titling…",
      });
      await pending.waitFor();
      assert.match(await pending.innerText(), /Hire juniors: they grow with the team/);
      assert.equal(await quickAdd.inputValue(), "", "the box is cleared for the next idea");

      const card = ideaCard(page, "Why junior hires pay off");
      await card.waitFor({ timeout: 10_000 });
      assert.equal(await pending.count(), 0, "the placeholder is replaced");
      assert.equal(ai.requests.length, 1);
      const stored = await listIdeas(web, user, ws);
      assert.equal(stored.length, 1);
      assert.equal(stored[0].title, "Why junior hires pay off");
      assert.equal(stored[0].description, "Hire juniors: they grow with the team and stay.");

      // "/" focuses it too; a few more ideas for the screenshots.
      ai.setDefault({ content: "Remote rituals that work" });
      await page.getByRole("heading", { name: "Ideas", exact: true }).click();
      await page.keyboard.press("/");
      await page.keyboard.type("Our remote team's Friday demo is the best hour of the week");
      await page.keyboard.press("Enter");
      await ideaCard(page, "Remote rituals that work").waitFor();
      await lookAt(page, "ideas-board", () => ideaCard(page, "Remote rituals that work").waitFor());
      assert.deepEqual(web.pageErrors, []);
    } finally {
      await web.close();
      await ai.close();
    }
  },
);

Deno.test("ideas: filters narrow the list and survive a reload (deep link)", e2e, async () => {
  const web = await startWebTest();
  try {
    const robin = await createUser(web.stack, { name: "Robin Writer" });
    const sam = await createUser(web.stack, { name: "Sam Lead" });
    const ws = await workspaceOf(web, robin);
    const added = await api(web.stack, "POST", `/api/workspaces/${ws}/members`, {
      token: robin.access_token,
      body: { email: sam.email, role: "editor" },
    });
    assert.ok(added.status === 200 || added.status === 201, JSON.stringify(added.body));
    await addIdea(web, robin, ws, "Alpha plain idea", { tags: ["hiring"] });
    await addIdea(web, robin, ws, "Bravo hiring remote idea", { tags: ["hiring", "remote"] });
    await addIdea(web, sam, ws, "Charlie by Sam on hiring remote", { tags: ["hiring", "remote"] });
    const delta = await addIdea(web, robin, ws, "Delta converted remote", { tags: ["remote"] });
    const converted = await api(web.stack, "PUT", `/api/ideas/${delta.idea_id}/status`, {
      token: robin.access_token,
      body: { workspace_id: ws, status: "converted" },
    });
    assert.equal(converted.status, 200);

    const page = await openSignedIn(web, robin, `/workspaces/${ws}/ideas`);
    const titles = () =>
      page.getByRole("list", { name: "Ideas" }).getByRole("heading").allInnerTexts();
    await ideaCard(page, "Alpha plain idea").waitFor();
    assert.deepEqual(await titles(), [
      "Delta converted remote",
      "Charlie by Sam on hiring remote",
      "Bravo hiring remote idea",
      "Alpha plain idea",
    ], "newest first");

    await page.getByRole("searchbox", { name: "Tags" }).fill("hiring, remote");
    await page.getByRole("searchbox", { name: "Tags" }).press("Enter");
    await page.waitForURL(/tags=hiring%2Cremote/);
    await page.getByText("2 ideas match the filters").waitFor();
    assert.deepEqual(await titles(), [
      "Charlie by Sam on hiring remote",
      "Bravo hiring remote idea",
    ]);

    await page.getByRole("combobox", { name: "Author" }).selectOption({
      label: "Robin Writer (you)",
    });
    await page.waitForURL(/author=/);
    await page.getByText("1 idea matches the filters").waitFor({ timeout: 5000 }).catch(
      async (e) => {
        console.log(page.url(), await page.locator("main").innerText());
        throw e;
      },
    );
    assert.deepEqual(await titles(), ["Bravo hiring remote idea"]);
    await lookAt(page, "ideas-filtered", () => page.getByText("1 idea matches").waitFor());

    const deepLink = page.url();
    await page.reload();
    await page.getByText("1 idea matches the filters").waitFor();
    assert.deepEqual(await titles(), ["Bravo hiring remote idea"]);
    assert.equal(
      await page.getByRole("searchbox", { name: "Tags" }).inputValue(),
      "hiring, remote",
    );
    assert.equal(await page.getByRole("combobox", { name: "Author" }).inputValue(), robin.user_id);

    // The same link in another signed-in browser shows the same view.
    const other = await web.newPage();
    await other.goto(deepLink);
    await signIn(other, sam.email, sam.password);
    await other.waitForURL(deepLink);
    await other.getByText("1 idea matches the filters").waitFor();
    assert.deepEqual(
      await other.getByRole("list", { name: "Ideas" }).getByRole("heading").allInnerTexts(),
      ["Bravo hiring remote idea"],
    );

    await page.getByRole("button", { name: "Clear filters" }).first().click();
    await page.getByRole("combobox", { name: "Status" }).selectOption("converted");
    await page.waitForURL(/\?status=converted$/);
    await page.getByText("1 idea matches the filters").waitFor();
    assert.deepEqual(await titles(), ["Delta converted remote"]);

    await page.getByRole("combobox", { name: "Status" }).selectOption("new");
    await page.getByRole("searchbox", { name: "Tags" }).fill("nothing-has-this");
    await page.getByRole("searchbox", { name: "Tags" }).press("Enter");
    await page.getByRole("heading", { name: "No idea matches these filters" }).waitFor();
    await checkA11y(page);
    assert.deepEqual(web.pageErrors, []);
  } finally {
    await web.close();
  }
});

Deno.test("ideas: edit an idea inline, then delete it after confirming", e2e, async () => {
  const web = await startWebTest();
  try {
    const user = await createUser(web.stack, { name: "Robin Writer" });
    const ws = await workspaceOf(web, user);
    const idea = await addIdea(web, user, ws, "Write about onboarding");
    await addIdea(web, user, ws, "Another idea stays");
    const page = await openSignedIn(web, user, `/workspaces/${ws}/ideas`);

    const card = ideaCard(page, "Write about onboarding");
    await card.getByRole("button", { name: "Edit" }).click();
    const form = page.getByRole("form", { name: /Edit idea/ });
    await form.getByLabel("Title").fill("Onboarding in week one");
    await form.getByLabel("Description").fill("What a new hire needs on day one.");
    await form.getByLabel("Tags").fill("people, onboarding");
    await form.getByLabel("Source URL").fill("https://example.com/onboarding");
    await lookAt(page, "ideas-edit", () => form.getByLabel("Title").waitFor());
    await form.getByRole("button", { name: "Save" }).click();

    const edited = ideaCard(page, "Onboarding in week one");
    await edited.waitFor();
    assert.match(await edited.innerText(), /What a new hire needs on day one/);
    assert.match(await edited.innerText(), /#people/);
    assert.equal(
      await edited.getByRole("link", { name: "example.com" }).getAttribute("href"),
      "https://example.com/onboarding",
    );
    const got = await api(web.stack, "GET", `/api/ideas/${idea.idea_id}?workspaceId=${ws}`, {
      token: user.access_token,
    });
    assert.equal(got.body.title, "Onboarding in week one");
    assert.equal(got.body.description, "What a new hire needs on day one.");
    assert.deepEqual(got.body.tags, ["people", "onboarding"]);
    assert.equal(got.body.source_url, "https://example.com/onboarding");

    // An empty title is refused at the field, before any request.
    await edited.getByRole("button", { name: "Edit" }).click();
    await form.getByLabel("Title").fill("  ");
    await form.getByText("A title is needed").waitFor();
    assert.equal(await form.getByRole("button", { name: "Save" }).isDisabled(), true);
    await form.getByLabel("Title").press("Escape");
    await edited.waitFor();

    // Delete asks first; Cancel keeps it.
    await edited.getByRole("button", { name: "Delete" }).click();
    await edited.getByText("Delete this idea? This cannot be undone.").waitFor();
    await checkA11y(page);
    await edited.getByRole("button", { name: "Cancel" }).click();
    assert.equal(await edited.count(), 1);
    await edited.getByRole("button", { name: "Delete" }).click();
    await edited.getByRole("button", { name: "Delete idea" }).click();
    await edited.waitFor({ state: "detached" });
    await ideaCard(page, "Another idea stays").waitFor();
    const gone = await api(web.stack, "GET", `/api/ideas/${idea.idea_id}?workspaceId=${ws}`, {
      token: user.access_token,
    });
    assert.equal(gone.status, 404);
    await page.reload();
    await ideaCard(page, "Another idea stays").waitFor();
    assert.equal(await ideaCard(page, "Onboarding in week one").count(), 0);
    assert.deepEqual(web.pageErrors, []);
  } finally {
    await web.close();
  }
});

Deno.test(
  "ideas: Write a post lands on the editor URL and the idea is converted",
  e2e,
  async () => {
    const web = await startWebTest();
    try {
      const user = await createUser(web.stack, { name: "Robin Writer" });
      const ws = await workspaceOf(web, user);
      const idea = await addIdea(web, user, ws, "Three lessons from our first launch.");
      const page = await openSignedIn(web, user, `/workspaces/${ws}/ideas`);
      await ideaCard(page, idea.title).getByRole("button", { name: "Write a post" }).click();
      await page.waitForURL(new RegExp(`/workspaces/${ws}/posts/[^/?#]+$`));
      assert.deepEqual(web.pageErrors, [], "no error on the ideas board");
      const postId = new URL(page.url()).pathname.split("/").at(-1)!;

      const got = await api(web.stack, "GET", `/api/ideas/${idea.idea_id}?workspaceId=${ws}`, {
        token: user.access_token,
      });
      assert.equal(got.body.status, "converted");
      assert.equal(got.body.linked_post_id, postId);
      const post = await api(web.stack, "GET", `/api/posts/${postId}?workspaceId=${ws}`, {
        token: user.access_token,
      });
      assert.equal(post.status, 200);
      assert.equal(post.body.source_idea_id, idea.idea_id);

      // Back on the board the idea says Converted and links to its post.
      const board = await openSignedIn(web, user, `/workspaces/${ws}/ideas`);
      const card = ideaCard(board, idea.title);
      await card.getByText("Converted").waitFor();
      assert.equal(
        await card.getByRole("link", { name: "Open post" }).getAttribute("href"),
        `/workspaces/${ws}/posts/${postId}`,
      );
      assert.equal(await card.getByRole("button", { name: "Write a post" }).count(), 0);
    } finally {
      await web.close();
    }
  },
);

/**
 * A page with the strictest Content-Security-Policy, on another loopback origin: no script,
 * no connection anywhere.
 */
function startStrictPage() {
  const aborts = new AbortController();
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {}, signal: aborts.signal },
    () =>
      new Response(
        `<!doctype html><html lang="en"><head><title>Strict Article</title></head><body>
<h1>Strict Article</h1>
<p id="quote">Small teams ship faster when they write things down.</p>
<p>Another paragraph that is not selected.</p>
</body></html>`,
        {
          headers: {
            "content-type": "text/html; charset=utf-8",
            "content-security-policy":
              "default-src 'none'; script-src 'none'; connect-src 'none'; style-src 'none'",
          },
        },
      ),
  );
  return {
    url: `http://127.0.0.1:${server.addr.port}/articles/teams?ref=test`,
    async close() {
      aborts.abort();
      await server.finished;
    },
  };
}

/** The capture screen with a fresh token; answers the token, bookmarklet href and curl line. */
async function createToken(page: Page) {
  await page.getByRole("button", { name: "Create capture token" }).click();
  const token = await page.getByLabel("Token", { exact: true }).inputValue();
  assert.ok(token.length > 10, "a token is shown");
  const href = await page.getByRole("link", { name: /^Capture to / }).getAttribute("href");
  assert.ok(href?.startsWith("javascript:"), "the bookmarklet is a javascript: link");
  const curl = await page.getByLabel("curl command").inputValue();
  return { token, href: href!, curl };
}

Deno.test(
  "capture: the bookmarklet captures selection, title and URL from a page with a strict CSP",
  e2e,
  async () => {
    const web = await startWebTest();
    const strict = startStrictPage();
    let strictContext: BrowserContext | null = null;
    try {
      const user = await createUser(web.stack, { name: "Robin Writer" });
      const ws = await workspaceOf(web, user);
      const page = await openSignedIn(web, user, `/workspaces/${ws}/capture`);
      await page.getByRole("heading", { name: "Quick capture" }).waitFor();
      await lookAt(page, "capture-start", () => page.getByText("1. Your capture token").waitFor());
      const { token, href } = await createToken(page);
      assert.equal(
        await page.getByRole("link", { name: /^Capture to / }).getAttribute("draggable"),
        "true",
      );
      assert.ok(!href.includes(" "), "no raw spaces in the bookmark's address");
      await lookAt(
        page,
        "capture-token",
        () => page.getByLabel("Token", { exact: true }).waitFor(),
      );
      // Clicking it here does nothing (our CSP would refuse a javascript: URL) but explain.
      await page.getByRole("link", { name: /^Capture to / }).click();
      await page.getByText("Drag the button to your bookmarks bar").waitFor();

      // The other site, in a browser context that is not signed in to our app.
      strictContext = await web.browser.newContext({ viewport: DESKTOP });
      const popupErrors: string[] = [];
      strictContext.on("page", (p) => {
        p.on("pageerror", (err) => popupErrors.push(`uncaught: ${err.message}`));
        p.on("console", (msg) => {
          if (msg.type() === "error" && !msg.text().startsWith("Failed to load resource")) {
            popupErrors.push(`console: ${msg.text()}`);
          }
        });
      });
      const article = await strictContext.newPage();
      await article.goto(strict.url);
      // The page really is strict: a fetch from it is refused.
      const fetchFromPage = await article.evaluate(
        `fetch(${JSON.stringify(web.stack.url + "/healthz")}).then(() => "sent", () => "blocked")`,
      );
      assert.equal(fetchFromPage, "blocked", "connect-src 'none' blocks the page's own fetch");
      popupErrors.length = 0; // the refused fetch logged its CSP violation on the article

      await article.evaluate(`(() => {
        const range = document.createRange();
        range.selectNodeContents(document.getElementById("quote"));
        const sel = getSelection();
        sel.removeAllRanges();
        sel.addRange(range);
      })()`);

      // Chrome runs a bookmarklet whatever the page's script-src says; evaluating the same code
      // through the DevTools protocol (Runtime.evaluate, which page.evaluate uses) is the
      // faithful stand-in for clicking the bookmark. The page's connect-src still applies to
      // that code, so a bookmarklet that fetched our API would fail here.
      const code = decodeURIComponent(href.slice("javascript:".length));
      const [popup] = await Promise.all([
        strictContext.waitForEvent("page"),
        article.evaluate(code),
      ]);
      await popup.waitForURL((u) => u.pathname === "/capture/new");
      assert.equal(new URL(popup.url()).origin, web.stack.url, "the window is on our origin");
      await popup.getByRole("heading", { name: "Captured ✓" }).waitFor({ timeout: 10_000 });
      assert.equal(new URL(popup.url()).hash, "", "the token is dropped from the address");
      const closed = popup.waitForEvent("close", { timeout: 10_000 });
      await popup.screenshot({ path: await shotPath("capture-popup-480") }).catch(() => {});
      await closed;

      const ideas = await listIdeas(web, user, ws);
      assert.equal(ideas.length, 1);
      assert.match(ideas[0].description, /^Small teams ship faster when they write things down\./);
      assert.ok(ideas[0].description.includes(`Source: ${strict.url}`), ideas[0].description);
      assert.ok(ideas[0].description.includes("Strict Article"), "the page title is kept");
      assert.ok(!ideas[0].description.includes("Another paragraph"), "only the selection");
      assert.deepEqual(popupErrors, []);

      // Without a selection the page title is the capture.
      await article.evaluate(`getSelection().removeAllRanges()`);
      const [popup2] = await Promise.all([
        strictContext.waitForEvent("page"),
        article.evaluate(code),
      ]);
      await popup2.getByRole("heading", { name: "Captured ✓" }).waitFor({ timeout: 10_000 });
      const after = await listIdeas(web, user, ws);
      assert.equal(after.length, 2);
      assert.equal(after[0].description, `Strict Article\n\nSource: ${strict.url}`);

      // The capture window with a bad token says so, with the server's message.
      const direct = await web.newPage({ viewport: { width: 480, height: 560 } });
      await direct.goto(`${web.stack.url}/capture/new#t=not-a-token&title=Hello&url=x`);
      await direct.getByRole("heading", { name: "Not captured" }).waitFor();
      await direct.getByRole("alert").waitFor();
      await checkA11y(direct);
      await screenshot(direct, "capture-popup-error-480");

      // A capture window that cannot close itself (a direct visit) says so once saved.
      const kept = await web.newPage({ viewport: { width: 480, height: 560 } });
      await kept.addInitScript("window.close = () => {};");
      const hash = new URLSearchParams({ t: token, title: "Kept open", url: strict.url });
      await kept.goto(`${web.stack.url}/capture/new#${hash}`);
      await kept.getByRole("heading", { name: "Captured ✓" }).waitFor({ timeout: 10_000 });
      await kept.getByText("Saved to your ideas. You can close this window.").waitFor();
      await checkA11y(kept);
      await screenshot(kept, "capture-popup-done-480");
      assert.equal((await listIdeas(web, user, ws)).length, 3);
      assert.deepEqual(web.pageErrors, []);
    } finally {
      await strictContext?.close().catch(() => {});
      await web.close();
      await strict.close();
    }
  },
);

async function shotPath(name: string): Promise<string> {
  const dir = new URL("../../test-results/screenshots/", import.meta.url).pathname;
  await Deno.mkdir(dir, { recursive: true });
  return `${dir}${name}.png`;
}

/** Runs the copied curl line in a shell, as a person pasting it would. */
async function runCurl(line: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const out = await new Deno.Command("sh", {
    args: ["-c", `${line} -s -w '\\n%{http_code}'`],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(out.stdout).trim();
  const lines = text.split("\n");
  const status = Number(lines.pop());
  return { status, body: JSON.parse(lines.join("\n") || "{}") };
}

Deno.test("capture: the curl line works; revoking stops the token", e2e, async () => {
  const web = await startWebTest();
  try {
    const user = await createUser(web.stack, { name: "Robin Writer" });
    const ws = await workspaceOf(web, user);
    const page = await openSignedIn(web, user, `/capture`);
    await page.getByRole("heading", { name: "Quick capture" }).waitFor();
    const { curl, token } = await createToken(page);
    assert.ok(curl.startsWith(`curl -X POST '${web.stack.url}/api/quick-capture'`), curl);
    assert.ok(curl.includes(`-H 'X-Capture-Token: ${token}'`));

    const first = await runCurl(curl);
    assert.equal(first.status, 201, JSON.stringify(first.body));
    assert.equal(first.body.status, "created");
    const ideas = await listIdeas(web, user, ws);
    assert.equal(ideas.length, 1);
    assert.equal(ideas[0].idea_id, first.body.idea_id);
    assert.equal(ideas[0].description, "An idea worth writing about");

    await page.getByRole("button", { name: "Revoke token" }).click();
    await page.getByText("Token revoked").waitFor();
    assert.equal(await page.getByLabel("Token", { exact: true }).count(), 0, "token hidden");
    await lookAt(page, "capture-revoked", () => page.getByText("Token revoked").waitFor());
    let again = await runCurl(curl);
    await waitFor(
      async () => (again = await runCurl(curl)).status === 401,
      "the revoked token",
      5_000,
    )
      .catch(() => {}); // the assertion below says what it answered instead
    assert.equal(again.status, 401, JSON.stringify(again.body));
    assert.deepEqual(web.pageErrors, []);
  } finally {
    await web.close();
  }
});

Deno.test(
  "capture: the token list shows each token's dates; an older token is revoked from it",
  e2e,
  async () => {
    const web = await startWebTest();
    try {
      const user = await createUser(web.stack, { name: "Robin Writer" });
      const ws = await workspaceOf(web, user);
      const side = await workspaceOf(web, user, "Side project");
      const apiToken = async (workspace: string) => {
        const res = await api(web.stack, "POST", "/api/quick-capture/token", {
          token: user.access_token,
          body: { workspace_id: workspace },
        });
        assert.equal(res.status, 201, JSON.stringify(res.body));
        return res.body.token as string;
      };
      const captureWith = async (token: string) =>
        (await api(web.stack, "POST", "/api/quick-capture", {
          headers: { "X-Capture-Token": token },
          body: { title: "An idea from a script" },
        })).status;
      const leaked = await apiToken(ws);
      assert.equal(await captureWith(leaked), 201);
      const sideToken = await apiToken(side);
      const unused = await apiToken(ws);

      const page = await openSignedIn(web, user, `/workspaces/${ws}/capture`);
      const tokenList = page.getByRole("list", { name: "Your capture tokens" });
      const rows = tokenList.getByRole("listitem");
      const listed = () => tokenList.waitFor().then(() => rows.count());
      assert.equal(await listed(), 3);
      // Newest first: the unused one, the side project's, then the one in use.
      assert.match(await rows.nth(0).innerText(), /Launch team[\s\S]*Latest[\s\S]*Never used/);
      assert.match(await rows.nth(1).innerText(), /Side project[\s\S]*Never used/);
      assert.match(await rows.nth(2).innerText(), /Launch team[\s\S]*Created[\s\S]*Last used/);
      const text = await tokenList.innerText();
      for (const token of [leaked, sideToken, unused]) {
        assert.ok(!text.includes(token), "no token value is shown in the list");
      }
      await lookAt(page, "capture-tokens", () => tokenList.waitFor());

      // Revoke the older token in use, after confirming.
      await rows.nth(2).getByRole("button", { name: /^Revoke the Launch team token created / })
        .click();
      const dialog = page.getByRole("dialog", { name: "Revoke this token?" });
      await dialog.waitFor();
      await checkA11y(page);
      await screenshot(page, "capture-tokens-confirm-1440");
      await dialog.getByRole("button", { name: "Revoke", exact: true }).click();
      await page.getByText("Token for Launch team revoked.").waitFor();
      assert.equal(await rows.count(), 2);
      assert.equal(await captureWith(leaked), 401, "the revoked token stops working");
      assert.equal(await captureWith(unused), 201);

      // A new token offers to revoke the older one left for this workspace, checked already.
      const revokeOlder = page.getByRole("checkbox", { name: /Revoke my older tokens/ });
      assert.equal(await revokeOlder.isChecked(), true);
      await page.getByRole("button", { name: "Create capture token" }).click();
      const created = await page.getByLabel("Token", { exact: true }).inputValue();
      await page.getByText("Your older token for Launch team was revoked.").waitFor();
      assert.equal(await revokeOlder.count(), 0, "no older token left to offer");
      await page.waitForFunction(
        `document.querySelectorAll('[aria-label="Your capture tokens"] li').length === 2`,
      );
      assert.match(await rows.nth(0).innerText(), /Launch team[\s\S]*New[\s\S]*Latest/);
      assert.match(await rows.nth(1).innerText(), /Side project/);
      assert.equal(await captureWith(unused), 401, "the older token was revoked");
      assert.equal(await captureWith(created), 201);
      assert.equal(await captureWith(sideToken), 201, "another workspace's token is kept");
      await lookAt(page, "capture-tokens-created", () => tokenList.waitFor());
      assert.deepEqual(web.pageErrors, []);
    } finally {
      await web.close();
    }
  },
);

Deno.test("posts: tabs by status; a post shows under its status", e2e, async () => {
  const web = await startWebTest();
  try {
    const user = await createUser(web.stack, { name: "Robin Writer" });
    const ws = await workspaceOf(web, user);
    const page = await openSignedIn(web, user, `/workspaces/${ws}/posts`);
    await page.getByRole("heading", { name: "No posts yet" }).waitFor();
    await lookAt(
      page,
      "posts-empty",
      () => page.getByRole("heading", { name: "Posts", exact: true }).waitFor(),
    );

    const draft = await api(web.stack, "POST", "/api/posts", {
      token: user.access_token,
      body: { workspace_id: ws, title: "", content: "First line of a draft\nmore text" },
    });
    assert.equal(draft.status, 201);
    const review = await api(web.stack, "POST", "/api/posts", {
      token: user.access_token,
      body: { workspace_id: ws, title: "Ready for review", content: "Body" },
    });
    const moved = await api(web.stack, "PUT", `/api/posts/${review.body.post_id}/status`, {
      token: user.access_token,
      body: { workspace_id: ws, status: "in_review" },
    });
    assert.equal(moved.status, 200);

    await page.reload();
    const tabs = page.getByRole("navigation", { name: "Post status" });
    await tabs.getByRole("link", { name: "All", exact: true }).waitFor();
    const list = page.getByRole("list", { name: "All posts" });
    await list.getByRole("listitem").nth(1).waitFor();
    assert.equal(await list.getByRole("listitem").count(), 2);
    const firstRow = list.getByRole("listitem").filter({ hasText: "First line of a draft" });
    assert.match(await firstRow.innerText(), /Robin Writer/);
    assert.match(await firstRow.innerText(), /edited just now/);
    assert.match(await firstRow.innerText(), /Draft/);
    assert.equal(
      await firstRow.getByRole("link").getAttribute("href"),
      `/workspaces/${ws}/posts/${draft.body.post_id}`,
    );

    await tabs.getByRole("link", { name: /^In review/ }).click();
    await page.waitForURL(/\?status=in_review$/);
    const inReview = page.getByRole("list", { name: "In review posts" });
    // The tab's list loads after the URL changes: wait for its first row before reading them all.
    await inReview.getByRole("link").first().waitFor();
    assert.deepEqual(await inReview.getByRole("link").allInnerTexts(), ["Ready for review"]);
    await lookAt(page, "posts-in-review", () => inReview.waitFor());
    await page.reload();
    await inReview.waitFor();
    assert.deepEqual(await inReview.getByRole("link").allInnerTexts(), ["Ready for review"]);

    await tabs.getByRole("link", { name: /^Published/ }).click();
    await page.getByRole("heading", { name: "Nothing published" }).waitFor();
    await checkA11y(page);

    await page.getByRole("button", { name: "New post" }).click();
    await page.waitForURL(new RegExp(`/workspaces/${ws}/posts/[^/?#]+$`));
    assert.deepEqual(web.pageErrors, []);
    const postId = new URL(page.url()).pathname.split("/").at(-1)!;
    const created = await api(web.stack, "GET", `/api/posts/${postId}?workspaceId=${ws}`, {
      token: user.access_token,
    });
    assert.equal(created.body.status, "draft");
  } finally {
    await web.close();
  }
});
