import assert from "node:assert/strict";
import {
  type Annotation,
  parseModelAnnotations,
  proofreadAnnotations,
  serviceChecks,
} from "./proofread.ts";

const content = "Their going to love this.";
const one: Annotation = {
  range: [0, 5],
  type: "grammar",
  message: "Wrong word",
  suggestion: "They're",
};

Deno.test("a JSON array of annotations is taken as the model gave it", () => {
  assert.deepEqual(parseModelAnnotations(JSON.stringify([one]), content), [one]);
  assert.deepEqual(parseModelAnnotations("[]", content), []);
});

Deno.test("a Markdown code fence around the array is tolerated", () => {
  const fenced = "Here you go:\n```json\n" + JSON.stringify([one], null, 2) + "\n```\nDone.";
  assert.deepEqual(parseModelAnnotations(fenced, content), [one]);
  assert.deepEqual(parseModelAnnotations("```\n[]\n```", content), []);
});

Deno.test("an answer that is not a JSON array counts as no annotations", () => {
  for (const raw of ["Looks fine to me!", '{"range":[0,1]}', "null", "42", "[", ""]) {
    assert.deepEqual(parseModelAnnotations(raw, content), [], raw);
  }
});

Deno.test("ranges are clamped into the content and unknown types become suggestion", () => {
  const raw = JSON.stringify([
    { range: [-4, 500], type: "style", message: "Whole thing" },
    { range: [10, 6], type: "tone", message: "Reversed", suggestion: "x" },
    { range: [1], type: "grammar", message: "bad range" },
    { range: [1, 2.5], type: "grammar", message: "not an integer" },
    { range: [1, 2], type: "grammar" },
    "a string",
    null,
  ]);
  assert.deepEqual(parseModelAnnotations(raw, content), [
    { range: [0, content.length], type: "suggestion", message: "Whole thing", suggestion: "" },
    { range: [6, 10], type: "tone", message: "Reversed", suggestion: "x" },
  ]);
});

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

Deno.test("unusable model output still gives the service's own checks", () => {
  const text = "x #1 #2 #3 #4 #5 #6";
  const annotations = proofreadAnnotations("Sorry, I cannot help.", text);
  assert.equal(annotations.length, 1);
  assert.equal(annotations[0].type, "suggestion");
  const merged = proofreadAnnotations(JSON.stringify([{ ...one, range: [0, 1] }]), text);
  assert.equal(merged.length, 2);
  assert.equal(merged[0].message, "Wrong word");
});
