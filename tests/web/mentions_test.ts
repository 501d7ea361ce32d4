import assert from "node:assert/strict";
import {
  insertMention,
  mentionAt,
  mentionedIds,
  splitMentions,
  suggest,
} from "../../services/web/src/components/mentions.ts";

const ann = { user_id: "u1", name: "Ann", email: "ann@example.test" };
const annLee = { user_id: "u2", name: "Ann Lee", email: "lee@example.test" };
const bob = { user_id: "u3", name: "Bob Editor", email: "bob@example.test" };
const noName = { user_id: "u4", name: "", email: "zed@example.test" };
const members = [ann, annLee, bob, noName];

Deno.test("mentionAt finds the @ being typed at the caret, and nothing inside a word or across a line", () => {
  assert.deepEqual(mentionAt("Hi @Bo", 6), { at: 3, query: "Bo" });
  assert.deepEqual(mentionAt("@", 1), { at: 0, query: "" });
  assert.deepEqual(mentionAt("(@bob", 5), { at: 1, query: "bob" });
  assert.deepEqual(mentionAt("Hi @Bob E", 9), { at: 3, query: "Bob E" });
  assert.equal(mentionAt("mail me at ann@example", 22), null);
  assert.equal(mentionAt("@bob\nnext", 9), null);
  assert.equal(mentionAt("no mention", 10), null);
  assert.equal(mentionAt("@bob  two spaces", 16), null);
  // the caret before the @ is not in the mention
  assert.equal(mentionAt("Hi @Bo", 2), null);
});

Deno.test("suggest puts name starts first, then word starts, then the rest; a space needs a name prefix", () => {
  assert.deepEqual(suggest(members, "").map((m) => m.user_id), ["u1", "u2", "u3", "u4"]);
  assert.deepEqual(suggest(members, "ann").map((m) => m.user_id), ["u1", "u2"]);
  assert.deepEqual(suggest(members, "lee").map((m) => m.user_id), ["u2"]);
  // a word start ("Editor") before a match inside a name ("zed@...")
  assert.deepEqual(suggest(members, "ED").map((m) => m.user_id), ["u3", "u4"]);
  assert.deepEqual(suggest(members, "zed").map((m) => m.user_id), ["u4"]);
  assert.deepEqual(suggest(members, "bob e").map((m) => m.user_id), ["u3"]);
  assert.deepEqual(suggest(members, "ann x").map((m) => m.user_id), []);
  const many = Array.from({ length: 12 }, (_, i) => ({
    user_id: `m${i}`,
    name: `Member ${i}`,
    email: `m${i}@example.test`,
  }));
  assert.equal(suggest(many, "mem").length, 8);
});

Deno.test("insertMention puts @Name and one space in place of the query and says where the caret goes", () => {
  const typed = "Hi @Bo, look";
  const at = mentionAt(typed, 6)!;
  assert.deepEqual(insertMention(typed, at, bob), {
    text: "Hi @Bob Editor , look",
    caret: "Hi @Bob Editor ".length,
  });
  assert.deepEqual(insertMention("@z", mentionAt("@z", 2)!, noName), {
    text: "@zed@example.test ",
    caret: 18,
  });
  // a space already after the query is not doubled
  assert.equal(insertMention("@b thanks", { at: 0, query: "b" }, bob).text, "@Bob Editor thanks");
});

Deno.test("mentionedIds finds the members a text mentions, the longest name first", () => {
  assert.deepEqual(mentionedIds("Thanks @Bob Editor!", members), ["u3"]);
  assert.deepEqual(mentionedIds("@Ann Lee and @Ann", members).sort(), ["u1", "u2"]);
  assert.deepEqual(mentionedIds("@Ann Lee only", members), ["u2"]);
  assert.deepEqual(mentionedIds("@Annabel is not Ann", members), []);
  assert.deepEqual(mentionedIds("mail bob@Bob Editor", members), []);
  assert.deepEqual(mentionedIds("cc @zed@example.test", members), ["u4"]);
  assert.deepEqual(mentionedIds("nobody", members), []);
});

Deno.test("splitMentions sets the mentions of members apart from the text", () => {
  assert.deepEqual(splitMentions("Hi @Ann Lee and @Bob Editor.", members), [
    "Hi ",
    { mention: "@Ann Lee" },
    " and ",
    { mention: "@Bob Editor" },
    ".",
  ]);
  assert.deepEqual(splitMentions("@Ann", members), [{ mention: "@Ann" }]);
  assert.deepEqual(splitMentions("no one", members), ["no one"]);
  assert.deepEqual(splitMentions("@Ann", []), ["@Ann"]);
});
