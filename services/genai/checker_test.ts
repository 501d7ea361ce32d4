import assert from "node:assert/strict";
import { checkerAnnotations, GrammarChecker } from "./checker.ts";
import type { RawLint } from "./checker_worker.ts";

const opts = { sanitizeOps: false, sanitizeResources: false };

/** The words each annotation covers, with its type and suggestion. */
function found(
  text: string,
  annotations: { range: [number, number]; type: string; suggestion: string }[],
) {
  return annotations.map((a) => [text.slice(...a.range), a.type, a.suggestion]);
}

Deno.test("the built-in checker (Harper, in a worker)", opts, async (t) => {
  const checker = new GrammarChecker();
  try {
    await t.step('finds a/an, a repeated word, "should of" and misspelt common words', async () => {
      const text =
        "This is an test. I saw the the cat. You should of known. I recieve mail becuase.";
      const annotations = await checker.check(text);
      assert.deepEqual(found(text, annotations), [
        ["an", "grammar", "a"],
        ["the the", "grammar", "the"],
        ["should of", "grammar", "should have"],
        ["recieve", "grammar", "receive"],
        ["becuase", "grammar", "because"],
      ]);
      for (const a of annotations) assert.ok(a.message.length > 0 && !a.message.includes("`"));
    });

    await t.step("a text dense with misspellings is still English: each one is found", async () => {
      const dense = "Thsi is a smple post wiht typos.";
      assert.deepEqual(found(dense, await checker.check(dense)), [
        ["Thsi", "grammar", "This"],
        ["smple", "grammar", "sample"],
        ["wiht", "grammar", "with"],
      ]);
      const sentence = "Great launch. I recieve teh mesage tommorow.";
      assert.deepEqual(
        found(sentence, await checker.check(sentence)).map(([words]) => words),
        ["recieve", "teh", "mesage", "tommorow"],
      );
      // Other languages are still left alone, beside English or on their own.
      const mixed = "Great launch today! Wir haben heute ein neues Produkt gestartet. Thanks all.";
      assert.deepEqual(await checker.check(mixed), []);
      const german = "Ich habe heute etwas über verteilte Systeme gelernt und es war spannend.";
      assert.deepEqual(await checker.check(german), []);
    });

    await t.step("ranges are JavaScript string offsets, emoji before them included", async () => {
      const text = "🚀👩‍💻 Launch day: this is an test.";
      const [a] = await checker.check(text);
      assert.equal(text.slice(...a.range), "an");
    });

    await t.step("hashtags, mentions, URLs, names and other languages are left alone", async () => {
      const text = "Thanks @janedoe and Olga Kowalczyk at Zalando for GraphQL v2! #remotework " +
        "https://example.test/some-pathh. Wir haben heute ein neues Produkt gestartet.";
      assert.deepEqual(await checker.check(text), []);
      const spanish = "Hoy lanzamos un producto nuevo para equipos remotos. Es una prueba.";
      assert.deepEqual(await checker.check(spanish), []);
    });

    await t.step("a pasted run of 40000 characters neither stalls nor breaks it", async () => {
      // Harper panics on such a "word": it is cut out, and the offsets around it still hold.
      const text = "This is an test. " + "c".repeat(40_000) + " I saw the the end.";
      const started = performance.now();
      assert.deepEqual(found(text, await checker.check(text)), [
        ["an", "grammar", "a"],
        ["the the", "grammar", "the"],
      ]);
      assert.ok(performance.now() - started < 2_000, "the check took over 2 s");
      assert.equal((await checker.check("I has a apple.")).length, 2, "the checker still works");
    });

    await t.step("clean text and empty text have no findings", async () => {
      assert.deepEqual(await checker.check("Remote teams write things down."), []);
      assert.deepEqual(await checker.check("   "), []);
    });

    await t.step("a closed checker refuses further checks", async () => {
      checker.close();
      await assert.rejects(() => checker.check("an test"), /closed/);
      assert.equal(checker.loaded, false);
    });
  } finally {
    checker.close();
  }
});

Deno.test("a lint's suggestion becomes the replacement of its range", () => {
  const text = "I saw it it here, and and more.";
  const lint = (start: number, end: number, kind: string, suggestions: RawLint["suggestions"]) =>
    ({ start, end, kind, message: "Use `x`", suggestions }) satisfies RawLint;
  assert.deepEqual(
    checkerAnnotations(text, [
      lint(6, 11, "Repetition", [{ kind: 0, text: "it" }]),
      lint(20, 27, "Repetition", [{ kind: 1, text: "" }]),
      lint(0, 1, "Style", [{ kind: 2, text: " really" }]),
      lint(2, 5, "Readability", []),
      lint(40, 90, "Grammar", [{ kind: 0, text: "beyond" }]),
    ]),
    [
      { range: [6, 11], type: "grammar", message: "Use “x”", suggestion: "it" },
      { range: [20, 27], type: "grammar", message: "Use “x”", suggestion: "" },
      { range: [0, 1], type: "suggestion", message: "Use “x”", suggestion: "I really" },
      { range: [2, 5], type: "suggestion", message: "Use “x”", suggestion: "" },
      { range: [31, 31], type: "grammar", message: "Use “x”", suggestion: "beyond" },
    ],
  );
});

Deno.test(
  "a checker left without checks ends its worker and loads again on the next",
  opts,
  async () => {
    const checker = new GrammarChecker({ idleMs: 300 });
    try {
      assert.equal(checker.loaded, false);
      assert.deepEqual((await checker.check("This is an test.")).map((a) => a.suggestion), ["a"]);
      assert.equal(checker.loaded, true);
      await new Promise((r) => setTimeout(r, 200));
      assert.equal(checker.loaded, true, "ended before its idle period was over");
      await new Promise((r) => setTimeout(r, 600));
      assert.equal(checker.loaded, false, "still loaded after its idle period");
      assert.deepEqual((await checker.check("I saw the the cat.")).map((a) => a.suggestion), [
        "the",
      ]);
      assert.equal(checker.loaded, true);
    } finally {
      checker.close();
    }
  },
);
