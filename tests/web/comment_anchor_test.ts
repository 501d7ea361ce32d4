import assert from "node:assert/strict";
import * as Y from "yjs";
import {
  decodeAnchor,
  encodeAnchor,
  MARK_ID_MAX,
  resolveAnchor,
} from "../../services/web/src/editor/comment_anchor.ts";

function sync(from: Y.Doc, to: Y.Doc) {
  Y.applyUpdate(to, Y.encodeStateAsUpdate(from, Y.encodeStateVector(to)));
}

Deno.test("a comment anchor follows its words through edits before, after and by another copy", () => {
  const a = new Y.Doc();
  const text = a.getText("content");
  text.insert(0, "Hello team, the launch is on Friday");
  const from = text.toString().indexOf("launch");
  const markId = encodeAnchor(text, from, from + "launch".length)!;
  assert.match(markId, /^rp1:[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
  assert.ok(markId.length <= MARK_ID_MAX);

  const b = new Y.Doc();
  sync(a, b);
  const other = b.getText("content");
  other.insert(0, "Update: ");
  const end = other.toString().indexOf("launch") + "launch".length;
  other.insert(end, " date"); // typed right after the words: stays outside
  sync(b, a);

  for (const t of [text, other]) {
    const at = resolveAnchor(t, decodeAnchor(markId)!);
    assert.ok(at);
    assert.equal(t.toString().slice(at.from, at.to), "launch");
  }
});

Deno.test("a comment anchor whose words were deleted resolves to nothing", () => {
  const doc = new Y.Doc();
  const text = doc.getText("content");
  text.insert(0, "keep drop keep");
  const anchor = decodeAnchor(encodeAnchor(text, 5, 9))!;
  text.delete(5, 5);
  assert.equal(resolveAnchor(text, anchor), null);
});

Deno.test("a mark_id that is not ours decodes to null", () => {
  assert.equal(decodeAnchor(undefined), null);
  assert.equal(decodeAnchor("m-123"), null);
  assert.equal(decodeAnchor("rp1:only-one-part"), null);
  assert.equal(decodeAnchor("rp1:@@.!!"), null);
});
