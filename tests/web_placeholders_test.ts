import assert from "node:assert/strict";
import { PLACEHOLDER_NAMES, unfilledPlaceholders } from "../shared/ai/placeholders.ts";
import {
  FILLED_PLACEHOLDERS,
  unfilledPlaceholders as webUnfilled,
} from "../services/web/src/components/prompt_placeholders.ts";

Deno.test("the prompt editor lists exactly the placeholders generation fills", () => {
  assert.deepEqual(FILLED_PLACEHOLDERS.map(([name]) => name), PLACEHOLDER_NAMES);
});

Deno.test("the prompt editor flags the same placeholders the server refuses", () => {
  for (
    const template of [
      "About {idea_title} for {audience}",
      "About {bogus} and {Idea_Title}, {bogus} again",
      'JSON like {"a": 1}, { } and {1} is plain text',
    ]
  ) {
    assert.deepEqual(webUnfilled(template), unfilledPlaceholders(template), template);
  }
  assert.deepEqual(webUnfilled("{bogus} {idea_title} {x_1}"), ["bogus", "x_1"]);
});
