/**
 * Each line of the post lays itself out in its own direction: `dir="auto"` on every line, so a
 * paragraph in Arabic or Hebrew reads right to left beside English ones, and CodeMirror's
 * per-line direction so the cursor moves the way the line reads.
 */
import { type Extension, RangeSetBuilder } from "@codemirror/state";
import {
  Decoration,
  type DecorationSet,
  EditorView,
  ViewPlugin,
  type ViewUpdate,
} from "@codemirror/view";

const autoLine = Decoration.line({ attributes: { dir: "auto" } });

function lines(view: EditorView): DecorationSet {
  const builder = new RangeSetBuilder<Decoration>();
  for (const { from, to } of view.visibleRanges) {
    for (let pos = from; pos <= to;) {
      const line = view.state.doc.lineAt(pos);
      builder.add(line.from, line.from, autoLine);
      pos = line.to + 1;
    }
  }
  return builder.finish();
}

export function lineDirection(): Extension {
  return [
    EditorView.perLineTextDirection.of(true),
    ViewPlugin.fromClass(
      class {
        decorations: DecorationSet;
        constructor(view: EditorView) {
          this.decorations = lines(view);
        }
        update(update: ViewUpdate) {
          if (update.docChanged || update.viewportChanged) this.decorations = lines(update.view);
        }
      },
      { decorations: (v) => v.decorations },
    ),
  ];
}
