import assert from "node:assert/strict";
import { FALLBACK_TITLE_MAX, fallbackTitle } from "./fallback_title.ts";
import { cleanTitle } from "./titles.ts";

/** No title ends on these (a sample of the stop words) or on punctuation. */
const TRAILING = /\b(the|a|an|of|to|for|and|or|with|about|that|this|our|we|is|was)$|[\p{P}\s]$/iu;

Deno.test("a text of one short sentence is its own title, whole", () => {
  assert.equal(
    fallbackTitle("Async writing beats meetings for remote teams."),
    "Async writing beats meetings for remote teams",
  );
  assert.equal(fallbackTitle("  What about   remote work?\n"), "What about remote work");
  assert.equal(fallbackTitle("no punctuation at all"), "no punctuation at all");
  assert.equal(fallbackTitle("Things to write about"), "Things to write about");
});

Deno.test("a long text's title is its most telling phrase, not its first 80 characters", () => {
  const text = "I want to write a post about the thing that happened last week when our " +
    "on-call engineer got paged at 3am for a database failover that turned out to be caused by " +
    "a misconfigured health check and how we fixed the alerting so it only pages for real " +
    "outages and what we learned about write things";
  const title = fallbackTitle(text);
  assert.equal(title, "On-call engineer got paged at 3am for a database failover");
  assert.ok(!text.replace(/\s+/g, " ").startsWith(title), "not the first words");
});

Deno.test("the sentence that holds the text's keywords wins; the first is favoured", () => {
  const text = "Remote teams write more than they talk. When a team writes things down, " +
    "decisions survive the meeting and new people can catch up without asking. I want a post " +
    "about how we moved our standups to written updates and what happened to our release " +
    "cadence after three months of doing it, plus why I think most teams should write things";
  assert.equal(fallbackTitle(text), "Remote teams write more than they talk");
  assert.equal(fallbackTitle("Ship the beta. Then celebrate!"), "Ship the beta");
});

Deno.test("titles fit 80 characters, end on a word, and skip links", () => {
  const texts = [
    "A very long first sentence that keeps going well past any sensible title length without " +
    "stopping for breath, about onboarding new engineers with written guides and pairing. More.",
    "so i was thinking about pricing again. our customers keep asking for annual plans and the " +
    "finance team says cash flow would improve a lot. but churn on annual plans might hide " +
    "problems. post idea: annual plans vs monthly plans for early stage saas, what we learned",
    "https://example.test/article-about-hiring-juniors Great read. We should write about hiring " +
    "juniors, mentoring them through their first year, and what it costs a small team of four.",
  ];
  for (const text of texts) {
    const title = fallbackTitle(text);
    assert.ok(title.length > 0 && title.length <= FALLBACK_TITLE_MAX, title);
    assert.doesNotMatch(title, TRAILING, title);
    assert.doesNotMatch(title, /https?:|example\.test/, title);
    assert.ok(text.toLowerCase().includes(title.toLowerCase()), `${title} is from the text`);
  }
  assert.equal(fallbackTitle("x".repeat(200)), "x".repeat(80));
  assert.equal(fallbackTitle("   "), "Untitled idea");
  assert.equal(
    fallbackTitle("https://example.test/only-a-link"),
    "https://example.test/only-a-link",
  );
});

Deno.test("a title never runs across lines (a captured page's title, link and quote)", () => {
  const capture =
    "The Hidden Cost of Meetings\nhttps://example.test/the-hidden-cost-of-meetings\n" +
    "Research shows that executives spend an average of 23 hours a week in meetings, up from " +
    "less than 10 hours in the 1960s.";
  const title = fallbackTitle(capture);
  assert.ok(capture.split("\n").some((line) => line.includes(title)), title);
  assert.equal(fallbackTitle("Title line\n\nSecond line here"), "Title line");
});

Deno.test("model answers are cleaned to one unquoted line", () => {
  assert.equal(cleanTitle('"Remote work wins"\n'), "Remote work wins");
  assert.equal(cleanTitle("Title: Remote work wins"), "Remote work wins");
  assert.equal(cleanTitle("\n\n**Bold idea**\nsecond line"), "Bold idea");
});

Deno.test("a text in German, French, Italian or Spanish does not end its title on one of that language's stop words", () => {
  const german = "Ein Gedanke: Homeoffice bleibt, aber die Büros ändern sich. Warum wir unsere " +
    "Fläche halbiert haben und trotzdem mehr Platz für Zusammenarbeit haben.";
  const title = fallbackTitle(german);
  assert.ok(title.length > 0 && title.length <= FALLBACK_TITLE_MAX, title);
  assert.doesNotMatch(title, /\b(für|und|die|der|haben|mit|aber)$/iu, title);
  assert.ok(german.includes(title), `${title} is from the text`);
  assert.equal(
    fallbackTitle(
      "Warum Schweizer KMU bei der Digitalisierung zögern und was Berater dagegen tun können, " +
        "wenn sie ehrlich sind mit den Kunden und mit sich selbst.",
    ),
    "Warum Schweizer KMU bei der Digitalisierung zögern",
  );
  // Only the text's own language counts: "die" ends an English phrase as any word does.
  assert.equal(
    fallbackTitle(
      "Old habits die hard in engineering teams. We tried to move from weekly status meetings " +
        "to written updates and it took us a full year of reminders to make it stick.",
    ),
    "Old habits die hard in engineering teams",
  );
});
