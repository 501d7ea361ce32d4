import assert from "node:assert/strict";
import type { Annotation } from "./annotation.ts";
import { readModelAnswer } from "./model_annotations.ts";

const content = "Their going to love this. Their team agrees.";
const one: Annotation = {
  range: [0, 5],
  type: "grammar",
  message: "Wrong word",
  suggestion: "They're",
};

Deno.test("a JSON array of annotations is taken as the model gave it", () => {
  assert.deepEqual(readModelAnswer(JSON.stringify([one]), content), {
    annotations: [one],
    usable: true,
  });
  assert.deepEqual(readModelAnswer("[]", content), { annotations: [], usable: true });
});

Deno.test("a code fence or prose around the array is tolerated", () => {
  const fenced = "Here you go:\n```json\n" + JSON.stringify([one], null, 2) + "\n```\nDone.";
  assert.deepEqual(readModelAnswer(fenced, content).annotations, [one]);
  assert.deepEqual(readModelAnswer("```\n[]\n```", content), { annotations: [], usable: true });
  const bare = `Sure! I found one issue: ${JSON.stringify([one])} Hope this helps.`;
  assert.deepEqual(readModelAnswer(bare, content).annotations, [one]);
});

Deno.test("prose, an object or broken JSON is unusable and adds nothing", () => {
  for (
    const raw of [
      "Looks fine to me!",
      "The post reads well. Nothing to fix.",
      '{"range":[0,1],"message":"x"}',
      '{"annotations": []}',
      "null",
      "42",
      "[",
      "[sic] is fine",
      "",
      '["Their -> They\'re"]',
    ]
  ) {
    assert.deepEqual(readModelAnswer(raw, content), { annotations: [], usable: false }, raw);
  }
});

Deno.test("items that quote the text instead of giving a range are placed where it occurs", () => {
  const raw = JSON.stringify([
    { text: "Their", type: "grammar", message: "Wrong word", suggestion: "They're" },
    { original: "Their", correction: "The", explanation: "Second one", type: "spelling" },
    { quote: "love this", replacement: "adore this" },
    { error: "agrees", message: "Fine", type: "tone", range: [0, 3] },
    { text: "not in the post", message: "Dropped" },
  ]);
  const { annotations, usable } = readModelAnswer(raw, content);
  assert.equal(usable, true);
  assert.deepEqual(annotations, [
    { range: [0, 5], type: "grammar", message: "Wrong word", suggestion: "They're" },
    { range: [26, 31], type: "grammar", message: "Second one", suggestion: "The" },
    {
      range: [15, 24],
      type: "suggestion",
      message: "Replace “love this” with “adore this”",
      suggestion: "adore this",
    },
    // a range that does not match the quote: the quote's occurrence wins
    { range: [37, 43], type: "tone", message: "Fine", suggestion: "" },
  ]);
  assert.deepEqual(annotations.map((a) => content.slice(...a.range)), [
    "Their",
    "Their",
    "love this",
    "agrees",
  ]);
});

Deno.test("a quote is found case-insensitively, nearest the range the model gave", () => {
  const raw = JSON.stringify([
    { range: [24, 30], text: "their", message: "Wrong word" },
    { start: 6, end: 11, message: "start and end instead of range" },
  ]);
  assert.deepEqual(readModelAnswer(raw, content).annotations, [
    { range: [26, 31], type: "suggestion", message: "Wrong word", suggestion: "" },
    {
      range: [6, 11],
      type: "suggestion",
      message: "start and end instead of range",
      suggestion: "",
    },
  ]);
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
  assert.deepEqual(readModelAnswer(raw, content).annotations, [
    { range: [0, content.length], type: "suggestion", message: "Whole thing", suggestion: "" },
    { range: [6, 10], type: "tone", message: "Reversed", suggestion: "x" },
  ]);
});
