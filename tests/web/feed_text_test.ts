import assert from "node:assert/strict";
import { feedCut, feedTokens } from "../../services/web/src/editor/feed_text.ts";

Deno.test("the feed's cut: after three lines, or 210 characters on a word's end", () => {
  assert.deepEqual(feedCut("One line"), { shown: "One line", cut: false });
  assert.deepEqual(feedCut("a\nb\nc"), { shown: "a\nb\nc", cut: false }, "three lines fit");
  assert.deepEqual(feedCut("a\nb\nc\nd"), { shown: "a\nb\nc", cut: true });
  assert.deepEqual(feedCut("a\nb\nc\n\n"), { shown: "a\nb\nc", cut: false }, "trailing lines");
  const words = "word ".repeat(60); // 300 characters
  const long = feedCut(words);
  assert.equal(long.cut, true);
  assert.ok(long.shown.length <= 210 && long.shown.endsWith("word"), long.shown);
  const exact = "x".repeat(210);
  assert.deepEqual(feedCut(exact), { shown: exact, cut: false });
  const emoji = "x".repeat(209) + "😀 and more";
  assert.equal(feedCut(emoji).shown, "x".repeat(209), "no half emoji");
});

Deno.test("feed tokens: hashtags, mentions and links; # and @ inside a word are text", () => {
  assert.deepEqual(feedTokens("Ship #launch with @Ada at https://x.test/a, mail a@b.c or C#"), [
    { kind: "text", text: "Ship " },
    { kind: "hashtag", text: "#launch" },
    { kind: "text", text: " with " },
    { kind: "mention", text: "@Ada" },
    { kind: "text", text: " at " },
    { kind: "link", text: "https://x.test/a," },
    { kind: "text", text: " mail a@b.c or C#" },
  ]);
  assert.deepEqual(feedTokens("#مرحبا"), [{ kind: "hashtag", text: "#مرحبا" }]);
});
