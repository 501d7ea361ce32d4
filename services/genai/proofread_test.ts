import assert from "node:assert/strict";
import {
  type Annotation,
  mergeFindings,
  proofreadAnnotations,
  serviceChecks,
} from "./proofread.ts";

const one: Annotation = {
  range: [0, 5],
  type: "grammar",
  message: "Wrong word",
  suggestion: "They're",
};

Deno.test("the service flags a post over 3000 characters", () => {
  const long = "a".repeat(3_001);
  const [flag] = serviceChecks(long);
  assert.deepEqual(flag.range, [3_000, 3_001]);
  assert.equal(flag.type, "suggestion");
  assert.match(flag.message, /3001 characters/);
  assert.deepEqual(serviceChecks("a".repeat(3_000)), []);
});

Deno.test("the service flags more than 5 hashtags, from the sixth to the last", () => {
  const five = "Post #a #b #c #d #e";
  assert.deepEqual(serviceChecks(five), []);
  assert.deepEqual(serviceChecks("see https://x.test/#anchor and C# and a&#38;b " + five), []);
  const seven = "Post #a #b #c #d #e #f and #g_7";
  const [flag] = serviceChecks(seven);
  const start = seven.indexOf("#f");
  assert.deepEqual(flag.range, [start, seven.length]);
  assert.equal(flag.type, "suggestion");
  assert.match(flag.message, /7 hashtags/);
  assert.equal(flag.suggestion, "and");
});

Deno.test("the service flags more than 10 emoji, counting joined emoji once", () => {
  const ten = "🚀".repeat(5) + "👍🏽" + "👩‍💻" + "❤️" + "🎉🎉";
  assert.deepEqual(serviceChecks(ten), []);
  const twelve = ten + " ok 🔥🔥";
  const [flag] = serviceChecks(twelve);
  assert.deepEqual(flag.range, [twelve.indexOf("🔥"), twelve.length]);
  assert.match(flag.message, /12 emoji/);
  assert.equal(flag.suggestion, "");
});

Deno.test("unusable model output still gives the checker's findings and the service's checks", () => {
  const text = "x #1 #2 #3 #4 #5 #6";
  const checker: Annotation = { range: [0, 1], type: "grammar", message: "Typo", suggestion: "y" };
  const prose = proofreadAnnotations("Sorry, I cannot help.", [checker], text);
  assert.equal(prose.model, "unusable");
  assert.deepEqual(prose.annotations.map((a) => a.message), ["Typo", prose.annotations[1].message]);
  assert.equal(prose.annotations[1].type, "suggestion");
  const used = proofreadAnnotations(JSON.stringify([{ ...one, range: [2, 4] }]), [checker], text);
  assert.equal(used.model, "used");
  assert.deepEqual(used.annotations.map((a) => a.message).slice(0, 2), ["Typo", "Wrong word"]);
  const none = proofreadAnnotations(null, [checker], text);
  assert.equal(none.model, "none");
  assert.equal(none.annotations.length, 2);
});

Deno.test("the model wins where its range overlaps the checker's; the rest are merged in order", () => {
  const at = (start: number, end: number, message: string): Annotation => ({
    range: [start, end],
    type: "grammar",
    message,
    suggestion: "",
  });
  const model = [at(10, 15, "model A"), at(30, 30, "model insert")];
  const checker = [
    at(0, 4, "checker before"),
    at(12, 20, "checker overlapping A"),
    at(15, 18, "checker touching A's end"),
    at(28, 31, "checker around the insert"),
    at(40, 45, "checker after"),
  ];
  assert.deepEqual(mergeFindings(model, checker).map((a) => a.message), [
    "checker before",
    "model A",
    "checker touching A's end",
    "model insert",
    "checker after",
  ]);
});
