import assert from "node:assert/strict";
import { fallbackTitle as inThread } from "./fallback_title.ts";
import {
  endFallbackTitles,
  FALLBACK_TITLES_IDLE_MS,
  fallbackTitle,
  fallbackTitlesRunning,
} from "./fallback_titles.ts";

const TEXTS = [
  "Pricing page rewrite: customers keep asking what the team plan includes. Lead with the " +
  "three questions sales hears most, then the table.",
  "Hiring story",
  "We moved every status meeting to writing and our release cadence doubled in a quarter.",
];

Deno.test("fallback titles from the worker are the ones made in this thread", async () => {
  try {
    const titles = await Promise.all(TEXTS.map((t) => fallbackTitle(t)));
    assert.deepEqual(titles, TEXTS.map((t) => inThread(t)));
    assert.equal(fallbackTitlesRunning(), true);
  } finally {
    endFallbackTitles();
  }
  assert.equal(fallbackTitlesRunning(), false);
  // Ended, the next title starts it again.
  try {
    assert.equal(await fallbackTitle(TEXTS[1]), inThread(TEXTS[1]));
  } finally {
    endFallbackTitles();
  }
});

Deno.test("the title worker ends once no title has been asked for a while", async () => {
  try {
    await fallbackTitle(TEXTS[0]);
    await new Promise((r) => setTimeout(r, FALLBACK_TITLES_IDLE_MS / 2));
    assert.equal(fallbackTitlesRunning(), true, "ended before its idle period was over");
    await fallbackTitle(TEXTS[2]); // a title restarts the idle period
    await new Promise((r) => setTimeout(r, FALLBACK_TITLES_IDLE_MS * 0.75));
    assert.equal(fallbackTitlesRunning(), true, "the idle period did not start again");
    await new Promise((r) => setTimeout(r, FALLBACK_TITLES_IDLE_MS * 0.5));
    assert.equal(fallbackTitlesRunning(), false, "still running after its idle period");
  } finally {
    endFallbackTitles();
  }
});
