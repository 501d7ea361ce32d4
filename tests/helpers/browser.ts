/**
 * Browser tests: Debian's Chromium driven by playwright-core (which runs under Deno as is).
 *
 *     const web = await startWebTest();               // stack + browser, bundle built if stale
 *     const page = await web.newPage();               // fresh context (own cookies) at 1440x900
 *     await page.goto(`${web.stack.url}/workspaces/${id}/ideas`);
 *     await signIn(page, email, password);            // through the hosted login form
 *     await checkA11y(page);                          // axe-core: no violation of any impact
 *     await screenshot(page, "ideas-1440");           // test-results/screenshots/ideas-1440.png
 *     await web.close();
 *
 * Name elements the way a user does: `page.getByRole("button", { name: "Sign out" })`.
 */
// deno-lint-ignore no-import-prefix -- test-only: kept out of deno.json so `deno task start` does not install it
import { type Browser, type BrowserContext, chromium, type Page } from "npm:playwright-core@1.64.1";
import { ensureBuilt } from "../../services/web/build.ts";
import { startTestStack, type TestStack } from "./stack.ts";

export type { Browser, BrowserContext, Page };

export const CHROMIUM = Deno.env.get("CHROMIUM_PATH") ?? "/usr/bin/chromium";
export const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];
export const SCREENSHOT_DIR = new URL("../../test-results/screenshots/", import.meta.url).pathname;
export const DESKTOP = { width: 1440, height: 900 };
export const PHONE = { width: 375, height: 812 };

export async function launchBrowser(): Promise<Browser> {
  return await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
}

export interface WebTest {
  stack: TestStack;
  browser: Browser;
  /** A new browser context (its own cookies and storage), its page at 1440x900. */
  newPage(options?: { viewport?: { width: number; height: number } }): Promise<Page>;
  /** What went wrong in the pages: CSP violations, console errors, uncaught exceptions. */
  pageErrors: string[];
  close(): Promise<void>;
}

/** The test stack (bundle built first when stale) and a headless Chromium. */
export async function startWebTest(env: Record<string, string> = {}): Promise<WebTest> {
  await ensureBuilt({ log: () => {} });
  const stack = await startTestStack(env);
  const browser = await launchBrowser();
  const contexts: BrowserContext[] = [];
  const pageErrors: string[] = [];
  return {
    stack,
    browser,
    pageErrors,
    async newPage(options = {}) {
      const context = await browser.newContext({ viewport: options.viewport ?? DESKTOP });
      contexts.push(context);
      const page = await context.newPage();
      page.on("console", (msg) => {
        // An HTTP error answer is logged by Chrome too; tests assert on those themselves.
        if (msg.type() === "error" && !msg.text().startsWith("Failed to load resource")) {
          pageErrors.push(`console: ${msg.text()}`);
        }
      });
      page.on("pageerror", (err) => pageErrors.push(`uncaught: ${err.message}`));
      return page;
    },
    async close() {
      for (const c of contexts) await c.close().catch(() => {});
      await browser.close().catch(() => {});
      await stack.close();
    },
  };
}

/**
 * Signs in on the hosted login page (labels `Email` and `Password`, button `Sign in`);
 * waits until the app has the browser back on its own origin.
 */
export async function signIn(page: Page, email: string, password: string): Promise<void> {
  await page.waitForURL(/\/oauth\/authorize/);
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.waitForURL((url) =>
    !url.pathname.startsWith("/oauth/") && !url.searchParams.has("code")
  );
}

/** Saves a PNG of the whole page to test-results/screenshots/<name>.png. */
export async function screenshot(page: Page, name: string): Promise<string> {
  await Deno.mkdir(SCREENSHOT_DIR, { recursive: true });
  const path = `${SCREENSHOT_DIR}${name}.png`;
  await page.screenshot({ path, fullPage: true });
  return path;
}

let axeSource: string | null = null;

/**
 * Runs axe-core on the page (every rule axe runs by default, best practices included) and throws
 * on any violation, whatever its impact: minor and moderate ones (heading order, allowed roles,
 * landmarks) too. The script goes in through the DevTools protocol, so the page's strict CSP
 * stays on.
 */
export async function checkA11y(page: Page, options: { settle?: boolean } = {}): Promise<void> {
  axeSource ??=
    // deno-lint-ignore no-import-prefix -- test-only: kept out of deno.json so `deno task start` does not install it
    ((await import("npm:axe-core@4.14.1")).default as unknown as { source: string }).source;
  // Check the page a loading region settles into. Something that stays busy (an idea queued
  // while offline) is checked as it is after 5 s.
  // `settle: false` checks the busy state itself.
  if (options.settle !== false) {
    await page.waitForFunction(`document.querySelector('[aria-busy="true"]') === null`, null, {
      timeout: 5_000,
    }).catch(() => {});
  }
  const hasAxe = await page.evaluate(() => "axe" in globalThis);
  if (!hasAxe) await page.evaluate(axeSource);
  // A string, so it runs in the page (which has `document`), not type-checked as Deno code.
  const violations = await page.evaluate(`axe.run(document, { resultTypes: ["violations"] })
    .then((r) => r.violations.map((v) => ({
      id: v.id, impact: v.impact, help: v.help,
      targets: v.nodes.map((n) => n.target.join(" ")).slice(0, 5),
    })))`) as { id: string; impact: string; help: string; targets: string[] }[];
  if (violations.length > 0) {
    const lines = violations.map((v) =>
      `- ${v.impact} ${v.id}: ${v.help} (${v.targets.join(", ")})`
    );
    throw new Error(
      `axe: ${violations.length} violation(s) on ${page.url()}:\n${lines.join("\n")}`,
    );
  }
}

/** Everything in the page's localStorage and sessionStorage, as "where:key=value" lines. */
export async function webStorage(page: Page): Promise<string[]> {
  return await page.evaluate(() => {
    const out: string[] = [];
    for (const [where, store] of [["local", localStorage], ["session", sessionStorage]] as const) {
      for (let i = 0; i < store.length; i++) {
        const key = store.key(i)!;
        out.push(`${where}:${key}=${store.getItem(key)}`);
      }
    }
    return out;
  });
}
