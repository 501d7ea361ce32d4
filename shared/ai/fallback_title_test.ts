import assert from "node:assert/strict";
import { fallbackTitle } from "./fallback_title.ts";
import { cleanTitle } from "./titles.ts";

Deno.test("the fallback title is the text's first sentence", () => {
  assert.equal(fallbackTitle("Ship the beta. Then celebrate!"), "Ship the beta.");
  assert.equal(fallbackTitle("  What about   remote work?\nMore text"), "What about remote work?");
  assert.equal(fallbackTitle("no punctuation at all"), "no punctuation at all");
});

Deno.test("the fallback title is cut at a word boundary to at most 80 characters", () => {
  const text = "word ".repeat(40) + "end.";
  const title = fallbackTitle(text);
  assert.ok(title.length <= 80, `${title.length} characters`);
  assert.ok(!title.endsWith(" "));
  assert.ok(text.startsWith(title));
  assert.equal(title, ("word ".repeat(16)).trim());
  assert.equal(fallbackTitle("x".repeat(200)).length, 80);
});

Deno.test("model answers are cleaned to one unquoted line", () => {
  assert.equal(cleanTitle('"Remote work wins"\n'), "Remote work wins");
  assert.equal(cleanTitle("Title: Remote work wins"), "Remote work wins");
  assert.equal(cleanTitle("\n\n**Bold idea**\nsecond line"), "Bold idea");
});
