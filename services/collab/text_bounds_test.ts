import assert from "node:assert/strict";
import * as Y from "yjs";
import { textLengthBounds } from "./text_bounds.ts";

const clone = (doc: Y.Doc, clientID?: number) => {
  const copy = new Y.Doc();
  if (clientID !== undefined) copy.clientID = clientID;
  Y.applyUpdate(copy, Y.encodeStateAsUpdate(doc));
  return copy;
};

/** The text's length once `update` is applied to a copy of `doc`. */
const lengthAfter = (doc: Y.Doc, update: Uint8Array) => {
  const copy = clone(doc);
  Y.applyUpdate(copy, update);
  return copy.getText("content").length;
};

/** What `edit` does to a copy of `doc` (made by `clientID`), as one update. */
function editOf(doc: Y.Doc, edit: (text: Y.Text, d: Y.Doc) => void, clientID?: number) {
  const copy = clone(doc, clientID);
  const before = Y.encodeStateVector(copy);
  edit(copy.getText("content"), copy);
  return { update: Y.encodeStateAsUpdate(copy, before), copy };
}

Deno.test("the text's length after an update is bounded exactly for plain edits", () => {
  const doc = new Y.Doc();
  doc.getText("content").insert(0, "hello world");
  // A fresh client pasting at the start, as a refused writer does.
  const fresh = new Y.Doc();
  fresh.getText("content").insert(0, "x".repeat(50));
  assert.deepEqual(textLengthBounds(doc, "content", Y.encodeStateAsUpdate(fresh)), {
    min: 61,
    max: 61,
  });
  // Typing after existing text, deleting some of it, both at once.
  const typed = editOf(doc, (t) => t.insert(5, "!!!"));
  assert.deepEqual(textLengthBounds(doc, "content", typed.update), { min: 14, max: 14 });
  const cut = editOf(doc, (t) => t.delete(0, 6));
  assert.deepEqual(textLengthBounds(doc, "content", cut.update), { min: 5, max: 5 });
  const both = editOf(doc, (t) => {
    t.insert(11, "abc");
    t.delete(0, 3);
    t.delete(9, 2); // part of the new text
  });
  assert.equal(lengthAfter(doc, both.update), 9);
  assert.deepEqual(textLengthBounds(doc, "content", both.update), { min: 9, max: 9 });
  // An empty update (a fresh provider's sync step 2) changes nothing.
  assert.deepEqual(textLengthBounds(doc, "content", Y.encodeStateAsUpdate(new Y.Doc())), {
    min: 11,
    max: 11,
  });
});

Deno.test("what waits for a missing update adds nothing to the lower bound", () => {
  const doc = new Y.Doc();
  doc.getText("content").insert(0, "abc");
  const writer = clone(doc);
  const updates: Uint8Array[] = [];
  writer.on("update", (u: Uint8Array) => updates.push(u));
  writer.getText("content").insert(3, "1234");
  writer.getText("content").insert(7, "5678");
  // The second alone: it follows the first, which the document has not seen.
  const bounds = textLengthBounds(doc, "content", updates[1])!;
  assert.equal(lengthAfter(doc, updates[1]), 3);
  assert.equal(bounds.min, 3);
  assert.equal(bounds.max, 7);
  // Other types' items are never counted as text, but may be in the upper bound.
  const map = editOf(doc, (_t, d) => d.getMap("m").set("k", "v".repeat(10)));
  assert.deepEqual(textLengthBounds(doc, "content", map.update), { min: 3, max: 4 });
  // A document already holding waiting structs is left to the exact check.
  Y.applyUpdate(doc, updates[1]);
  assert.equal(textLengthBounds(doc, "content", map.update), null);
});

Deno.test("the bounds hold for random concurrent edits", () => {
  let seed = 7;
  const random = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
  const pick = (n: number) => Math.floor(random() * n);
  const mutate = (d: Y.Doc, steps: number) => {
    const t = d.getText("content");
    for (let i = 0; i < steps; i++) {
      const r = random();
      if (r < 0.45 || t.length === 0) t.insert(pick(t.length + 1), "abcdef".slice(0, 1 + pick(6)));
      else if (r < 0.75) {
        const at = pick(t.length);
        t.delete(at, 1 + pick(Math.min(5, t.length - at)));
      } else if (r < 0.85) t.format(pick(t.length), 2, { bold: true });
      else if (r < 0.9) t.insertEmbed(pick(t.length + 1), { image: "x" });
      else d.getMap("meta").set(`k${pick(5)}`, pick(100));
    }
  };
  let checked = 0;
  let exact = 0;
  for (let round = 0; round < 150; round++) {
    const base = new Y.Doc({ gc: round % 2 === 0 });
    mutate(base, 20);
    const forks = [0, 1, 2].map(() => clone(base));
    const incremental: Uint8Array[][] = forks.map(() => []);
    forks.forEach((f, i) => f.on("update", (u: Uint8Array) => incremental[i].push(u)));
    for (let step = 0; step < 6; step++) {
      const i = pick(3);
      mutate(forks[i], 1 + pick(4));
      // Forks see some of each other's edits.
      const j = pick(3);
      if (j !== i) Y.applyUpdate(forks[j], Y.encodeStateAsUpdate(forks[i]));
    }
    const sv = Y.encodeStateVector(base);
    const candidates = [
      ...forks.map((f) => Y.encodeStateAsUpdate(f, sv)),
      Y.mergeUpdates(forks.map((f) => Y.encodeStateAsUpdate(f, sv))),
      ...incremental.flatMap((list) => list.length > 1 ? [list[list.length - 1]] : []),
      ...incremental.flatMap((list) => list.slice(0, 2)),
    ];
    for (const update of candidates) {
      const bounds = textLengthBounds(base, "content", update);
      if (!bounds) continue;
      const actual = lengthAfter(base, update);
      assert.ok(
        bounds.min <= actual && actual <= bounds.max,
        `round ${round}: ${JSON.stringify(bounds)} vs ${actual}`,
      );
      checked++;
      if (bounds.min === actual) exact++;
    }
  }
  assert.ok(checked > 500, `checked ${checked}`);
  // The lower bound is the length itself for most updates: few go on to the exact check.
  assert.ok(exact / checked > 0.8, `exact ${exact} of ${checked}`);
});
