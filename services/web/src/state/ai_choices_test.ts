/// <reference lib="deno.ns" />
import assert from "node:assert/strict";
import { aiChoicesKey, loadAiChoices, NO_CHOICES, saveAiChoices } from "./ai_choices.ts";

Deno.test("AI choices are kept per user and workspace, and a stranger's value is ignored", () => {
  localStorage.clear();
  assert.deepEqual(loadAiChoices("u1", "ws1"), NO_CHOICES);
  const mine = { ...NO_CHOICES, tone: "casual", length: "short", promptId: "p9" };
  saveAiChoices("u1", "ws1", mine);
  assert.deepEqual(loadAiChoices("u1", "ws1"), mine);
  assert.deepEqual(loadAiChoices("u1", "ws2"), NO_CHOICES, "another workspace");
  assert.deepEqual(loadAiChoices("u2", "ws1"), NO_CHOICES, "another user");
  localStorage.setItem(aiChoicesKey("u3", "ws1"), JSON.stringify({ tone: 5, audience: "CTOs" }));
  assert.deepEqual(loadAiChoices("u3", "ws1"), { ...NO_CHOICES, audience: "CTOs" });
  localStorage.setItem(aiChoicesKey("u4", "ws1"), "not json");
  assert.deepEqual(loadAiChoices("u4", "ws1"), NO_CHOICES);
  localStorage.clear();
});
