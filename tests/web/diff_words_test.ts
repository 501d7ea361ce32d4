import assert from "node:assert/strict";
import { diffWords, minimalChange } from "../../services/web/src/editor/diff_words.ts";

Deno.test("diffWords marks the changed words and keeps the rest", () => {
  assert.deepEqual(
    diffWords("Remote teams write things down.", "Remote teams write everything down!"),
    [
      { kind: "same", text: "Remote teams write " },
      { kind: "del", text: "things" },
      { kind: "add", text: "everything" },
      { kind: "same", text: " down" },
      { kind: "del", text: "." },
      { kind: "add", text: "!" },
    ],
  );
  assert.deepEqual(diffWords("same", "same"), [{ kind: "same", text: "same" }]);
  assert.deepEqual(diffWords("", "new"), [{ kind: "add", text: "new" }]);
});

Deno.test("diffWords parts rebuild both texts", () => {
  const before = "One two three four five six. Seven eight!";
  const after = "Zero one two four five 6 six. Eight seven!";
  const parts = diffWords(before, after);
  const join = (kinds: string[]) =>
    parts.filter((p) => kinds.includes(p.kind)).map((p) => p.text).join("");
  assert.equal(join(["same", "del"]), before);
  assert.equal(join(["same", "add"]), after);
});

Deno.test("minimalChange replaces only the middle and never splits an emoji", () => {
  assert.deepEqual(minimalChange("hello world", "hello brave world"), {
    from: 6,
    to: 6,
    insert: "brave ",
  });
  assert.deepEqual(minimalChange("abc", "abc"), { from: 3, to: 3, insert: "" });
  assert.deepEqual(minimalChange("a😀b", "a😃b"), { from: 1, to: 3, insert: "😃" });
  assert.deepEqual(minimalChange("aaa", "aa"), { from: 2, to: 3, insert: "" });
});
