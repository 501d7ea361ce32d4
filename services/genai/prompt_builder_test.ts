import assert from "node:assert/strict";
import {
  buildGenerateMessages,
  buildIterateMessages,
  DEFAULT_PERSONA,
  EDITOR_PERSONA,
  EXAMPLE_CONTENT_MAX,
  EXAMPLES_HEADING,
  fillTemplate,
  formatExamples,
  LENGTH_PRESETS,
  rankExamples,
  type SavedPromptInput,
} from "./prompt_builder.ts";

const idea = { title: "Remote work", description: "Why async beats meetings.", tags: ["work"] };
const saved: SavedPromptInput = {
  system_instruction: "You are Ana, a CTO.",
  user_template: "Post about {idea_title} for {audience} in {language}, {tone}, {length}.",
  tone: "casual",
  default_audience: "engineers",
  default_language: "Spanish",
};

Deno.test("with no saved prompt the built-in persona and template are used", () => {
  const messages = buildGenerateMessages({ idea, prompt: null, examples: [] });
  assert.deepEqual(messages, [
    { role: "system", content: DEFAULT_PERSONA },
    {
      role: "user",
      content: "Write a post about this idea.\n\nIdea: Remote work\n\nWhy async beats meetings.",
    },
  ]);
});

Deno.test("a saved prompt replaces the persona and its defaults fill the template", () => {
  assert.deepEqual(buildGenerateMessages({ idea, prompt: saved, examples: [] }), [
    { role: "system", content: "You are Ana, a CTO." },
    {
      role: "user",
      content: "For this post:\n- Audience: engineers\n- Tone: casual\n" +
        "- Language: write the post in Spanish",
    },
    {
      role: "user",
      content:
        "Post about Remote work for engineers in Spanish, casual, the length that suits the idea.",
    },
  ]);
});

Deno.test("the override replaces both personas; per-call options beat the prompt's", () => {
  const [system, brief, user] = buildGenerateMessages({
    idea,
    prompt: saved,
    overrides: { system_instruction: "You are a pirate." },
    options: { audience: "founders", tone: "provocative", language: "French", length: "short" },
    examples: [],
  });
  assert.equal(system.content, "You are a pirate.");
  assert.equal(
    brief.content,
    "For this post:\n- Audience: founders\n- Tone: provocative\n" +
      `- Language: write the post in French\n- Length: ${LENGTH_PRESETS.short}`,
  );
  assert.equal(
    user.content,
    `Post about Remote work for founders in French, provocative, ${LENGTH_PRESETS.short}.`,
  );
  const overrideOnly = buildGenerateMessages({
    idea,
    prompt: null,
    overrides: { system_instruction: "You are a pirate." },
    examples: [],
  });
  assert.deepEqual(overrideOnly[0], { role: "system", content: "You are a pirate." });
  assert.equal(overrideOnly.length, 2, "no brief message when nothing sets one");
});

Deno.test("a blank override or blank option falls through to the layer below", () => {
  const [system, brief] = buildGenerateMessages({
    idea,
    prompt: saved,
    overrides: { system_instruction: "   " },
    options: { audience: " ", tone: "" },
    examples: [],
  });
  assert.equal(system.content, "You are Ana, a CTO.");
  assert.match(brief.content, /Audience: engineers/);
  assert.match(brief.content, /Tone: casual/);
});

Deno.test("each length preset gives its target size; an unknown length changes nothing", () => {
  const none = buildGenerateMessages({ idea, prompt: saved, examples: [] });
  for (const length of ["huge", "MEDIUM", "", "toString", "__proto__"]) {
    assert.deepEqual(
      buildGenerateMessages({ idea, prompt: saved, options: { length }, examples: [] }),
      none,
      `length ${length}`,
    );
  }
  for (const [name, target] of Object.entries(LENGTH_PRESETS)) {
    const [, brief, user] = buildGenerateMessages({
      idea,
      prompt: saved,
      options: { length: name },
      examples: [],
    });
    assert.ok(brief.content.endsWith(`- Length: ${target}`), name);
    assert.ok(user.content.includes(target), name);
  }
});

Deno.test("placeholders are filled once; unknown ones are left as written", () => {
  assert.equal(
    fillTemplate("{a} {b} {unknown} {a}", { a: "{b}", b: "B" }),
    "{b} B {unknown} {b}",
  );
  const [, , user] = buildGenerateMessages({
    idea: { ...idea, title: "{tone} in a title" },
    prompt: { ...saved, user_template: "{idea_title} / {idea_description} / {mood} / {examples}" },
    examples: [],
  });
  assert.equal(user.content, "{tone} in a title / Why async beats meetings. / {mood} /");
});

const ex = (title: string, tags: string[], content = `${title} text`) => ({
  title,
  content,
  tags,
});

Deno.test("examples are ranked by shared tags, ties keeping order, at most 5", () => {
  const examples = [
    ex("none", []),
    ex("one", ["AI"]),
    ex("two", ["ai", "work", "other"]),
    ex("one-b", ["work "]),
    ex("zero", ["cooking"]),
    ex("three", ["ai", "work", "remote", "ai"]),
    ex("none-b", []),
  ];
  const ranked = rankExamples(examples, ["ai", "Work", "remote"]);
  assert.deepEqual(ranked.map((e) => e.title), ["three", "two", "one", "one-b", "none"]);
  assert.deepEqual(rankExamples(examples, [], 3).map((e) => e.title), ["none", "one", "two"]);
});

Deno.test("examples go into {examples}, or before the template in their own message", () => {
  const examples = [ex("First", ["a"]), ex("Second", [], "x".repeat(EXAMPLE_CONTENT_MAX + 10))];
  const block = formatExamples(examples);
  assert.equal(
    block,
    `Example 1: First\nFirst text\n\nExample 2: Second\n${"x".repeat(EXAMPLE_CONTENT_MAX)}`,
  );
  const inline = buildGenerateMessages({
    idea,
    prompt: { ...saved, user_template: "Voice:\n{examples}\nNow write about {idea_title}." },
    examples,
  });
  assert.equal(inline.at(-1)?.content, `Voice:\n${block}\nNow write about Remote work.`);
  assert.ok(!inline[1].content.includes(EXAMPLES_HEADING), "examples placed once");
  assert.deepEqual(buildGenerateMessages({ idea, prompt: null, examples }), [
    { role: "system", content: DEFAULT_PERSONA },
    { role: "user", content: `${EXAMPLES_HEADING}\n\n${block}` },
    {
      role: "user",
      content: "Write a post about this idea.\n\nIdea: Remote work\n\nWhy async beats meetings.",
    },
  ]);
});

Deno.test("iterate uses the saved persona when given, else the editor persona", () => {
  const withPrompt = buildIterateMessages({
    instruction: "Shorter",
    currentContent: "Long text",
    persona: "You are Ana.",
  });
  assert.equal(withPrompt[0].content, "You are Ana.");
  assert.equal(
    withPrompt[1].content,
    "Rewrite the post below as this instruction says, and answer with the rewritten post " +
      "only.\n\nInstruction:\nShorter\n\nPost:\nLong text",
  );
  const editor = buildIterateMessages({ instruction: "x", currentContent: "", persona: null });
  assert.equal(editor[0].content, EDITOR_PERSONA);
});
