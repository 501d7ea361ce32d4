/**
 * The browser tests' axe check fails on a violation of any impact, not only serious or critical
 * ones: a page clean but for one minor or one moderate violation does not pass.
 */
import assert from "node:assert/strict";
import { e2e } from "../helpers/stack.ts";
import { checkA11y, launchBrowser } from "../helpers/browser.ts";

/** A page with a language, a title, a main landmark and one h1: nothing for axe to report. */
function page(body: string): string {
  return `<!doctype html><html lang="en"><head><title>Check</title></head>` +
    `<body><main><h1>Check</h1>${body}</main></body></html>`;
}

Deno.test(
  "the axe check fails on a minor or a moderate violation and passes a clean page",
  e2e,
  async () => {
    const browser = await launchBrowser();
    try {
      const tab = await browser.newPage();
      await tab.setContent(page(`<label for="t">Note</label><textarea id="t"></textarea>`));
      await checkA11y(tab);

      // minor: a textarea may carry no role (aria-allowed-role)
      await tab.setContent(
        page(`<label for="t">Note</label><textarea id="t" role="combobox"
        aria-expanded="false" aria-controls="l"></textarea><ul id="l" role="listbox"
        aria-label="Choices" hidden></ul>`),
      );
      await assert.rejects(checkA11y(tab), /minor aria-allowed-role/);

      // moderate: a heading level skipped (heading-order)
      await tab.setContent(page(`<section><h3>Skipped a level</h3><p>Text</p></section>`));
      await assert.rejects(checkA11y(tab), /moderate heading-order/);
    } finally {
      await browser.close();
    }
  },
);
