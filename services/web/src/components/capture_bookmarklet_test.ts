/// <reference lib="deno.ns" />
import assert from "node:assert/strict";
import { CAPTURE_TEXT_MAX, captureText, MAX_SELECTION } from "./capture_bookmarklet.ts";

/** The longest `title` text `POST /api/quick-capture` takes (the ideas service's limit). */
const API_TITLE_MAX = 20_000;

Deno.test("capture text: selection, page title and address, each on its own line", () => {
  assert.equal(
    captureText({ title: "Page", url: "https://x.test/a", text: "Selected words" }),
    "Selected words\n\nPage\nSource: https://x.test/a",
  );
  assert.equal(captureText({ title: "Page", url: "", text: "" }), "Page");
});

Deno.test("capture text: a page whose address is very long still captures (within the API's limit)", () => {
  const url = `https://x.test/search?q=${"a".repeat(40_000)}`;
  const text = "s".repeat(MAX_SELECTION);
  const title = "t".repeat(300);
  const captured = captureText({ title, url, text });
  assert.equal(CAPTURE_TEXT_MAX, API_TITLE_MAX);
  assert.ok(captured.length <= API_TITLE_MAX, `${captured.length} characters`);
  assert.ok(captured.startsWith(`${text}\n\n${title}\nSource: https://x.test/search?q=aaa`));
  assert.ok(captured.endsWith("…"), "a shortened address ends in an ellipsis");
  // An address that fits is kept whole.
  const fits = captureText({ title, url: "https://x.test/" + "b".repeat(5_000), text });
  assert.ok(fits.endsWith("b".repeat(5_000)));
});
