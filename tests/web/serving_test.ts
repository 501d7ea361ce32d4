/**
 * How the web app is served through the gateway: every app route answers `index.html` (never
 * cached) under a strict Content-Security-Policy, the hashed files are cached for a year, the
 * API's prefixes never answer the page; and the "Page not found" screen for an unknown app URL.
 */
import assert from "node:assert/strict";
import { e2e, startTestStack } from "../helpers/stack.ts";
import { createUser } from "../helpers/users.ts";
import {
  checkA11y,
  PHONE,
  screenshot,
  signIn,
  startWebTest,
  webStorage,
} from "../helpers/browser.ts";
import { ensureBuilt } from "../../services/web/build.ts";
import { IMMUTABLE } from "../../services/web/routes.ts";

Deno.test(
  "web serving: app routes answer index.html; hashed files are immutable",
  e2e,
  async (t) => {
    await ensureBuilt({ log: () => {} });
    const stack = await startTestStack();
    try {
      let html = "";
      await t.step(
        "every app route answers index.html, not cached, under a strict CSP",
        async () => {
          for (
            const path of ["/", "/workspaces/x/ideas", "/workspaces/x/posts/y?comment=z", "/admin"]
          ) {
            const res = await fetch(stack.url + path);
            const body = await res.text();
            assert.equal(res.status, 200, path);
            assert.match(res.headers.get("content-type") ?? "", /^text\/html/, path);
            assert.equal(res.headers.get("cache-control"), "no-cache", path);
            assert.match(body, /<div id="app"><\/div>/, path);
            const csp = res.headers.get("content-security-policy") ?? "";
            assert.match(csp, /(^|; )default-src 'self'(;|$)/, path);
            assert.match(csp, /(^|; )script-src 'self'(;|$)/, path);
            assert.match(csp, /(^|; )style-src 'self'(;|$)/, path);
            assert.match(csp, /(^|; )object-src 'none'(;|$)/, path);
            assert.match(csp, /(^|; )frame-ancestors 'none'(;|$)/, path);
            assert.ok(!/unsafe-(inline|eval)/.test(csp), `${path}: ${csp}`);
            assert.equal(res.headers.get("x-content-type-options"), "nosniff");
            html = body;
          }
          assert.ok(!/<script(?![^>]*\bsrc=)[^>]*>/.test(html), "no inline script in the page");
        },
      );

      await t.step("the page's hashed files are cached immutably with their type", async () => {
        const files = [...html.matchAll(/(?:src|href)="(\/static\/[^"]+)"/g)].map((m) => m[1]);
        assert.ok(files.some((f) => f.endsWith(".js")), html);
        assert.ok(files.some((f) => f.endsWith(".css")), html);
        for (const file of files) {
          assert.match(file, /-[A-Za-z0-9_-]{8}\.(js|css)$/, `${file} carries a content hash`);
          const res = await fetch(stack.url + file);
          await res.body?.cancel();
          assert.equal(res.status, 200, file);
          assert.equal(res.headers.get("cache-control"), IMMUTABLE, file);
          assert.equal(res.headers.get("cache-control"), "public, max-age=31536000, immutable");
          const type = file.endsWith(".js") ? /^text\/javascript/ : /^text\/css/;
          assert.match(res.headers.get("content-type") ?? "", type, file);
        }
      });

      await t.step("a missing hashed file is a 404, not the page", async () => {
        for (const path of ["/static/index-00000000.js", "/static/.fingerprint", "/static/"]) {
          const res = await fetch(stack.url + path);
          const body = await res.text();
          assert.equal(res.status, 404, path);
          assert.ok(!body.includes('<div id="app">'), path);
        }
      });

      await t.step("the API's prefixes never answer the page", async () => {
        for (const path of ["/api/no-such-route", "/oauth/nothing", "/internal/anything"]) {
          const res = await fetch(stack.url + path);
          const body = await res.text();
          assert.equal(res.status, 404, path);
          assert.ok(!body.includes('<div id="app">'), path);
          assert.ok(typeof JSON.parse(body).error === "string", `${path}: ${body}`);
        }
      });
    } finally {
      await stack.close();
    }
  },
);

Deno.test("web serving: an unknown app URL says Page not found, with a way home", e2e, async () => {
  const web = await startWebTest();
  try {
    const user = await createUser(web.stack, { name: "Robin Writer" });
    const page = await web.newPage();
    await page.goto(`${web.stack.url}/no/such/page`);
    await signIn(page, user.email, user.password);
    await page.getByRole("heading", { name: "Page not found" }).waitFor();
    assert.equal(new URL(page.url()).pathname, "/no/such/page", "the address is kept");
    await checkA11y(page);
    await screenshot(page, "not-found-1440");
    await page.setViewportSize(PHONE);
    await checkA11y(page);
    await screenshot(page, "not-found-375");
    assert.deepEqual(
      (await webStorage(page)).filter((s) => !s.startsWith("local:cp_last_workspace=")),
      [],
    );
    await page.getByRole("link", { name: "Go to your workspace" }).click();
    await page.getByRole("heading", { name: "Create your first workspace" }).waitFor();
    assert.deepEqual(web.pageErrors, []);
  } finally {
    await web.close();
  }
});
