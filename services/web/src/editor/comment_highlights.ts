/**
 * Comment highlights: the anchored ranges of the open comment threads, marked in the editor
 * (`cp-comment-highlight`, the focused thread's also `is-active`; styles in
 * components/comment.css). The anchors are Yjs relative positions (comment_anchor.ts): each
 * time the document changes they are resolved again against the `Y.Text`, so a highlight
 * stays on its words whoever edits around it. Clicking a highlight calls `onSelect(id)`.
 *
 * The panel feeds the threads with the `setCommentMarks` effect and the focused one with
 * `setActiveComment`.
 */
import type * as Y from "yjs";
import { type Extension, RangeSetBuilder, StateEffect, StateField } from "@codemirror/state";
import {
  Decoration,
  type DecorationSet,
  EditorView,
  ViewPlugin,
  type ViewUpdate,
} from "@codemirror/view";
import { type CommentAnchor, resolveAnchor } from "./comment_anchor.ts";

export interface CommentMark {
  id: string;
  anchor: CommentAnchor;
}

/** Replaces the highlighted threads. */
export const setCommentMarks = StateEffect.define<CommentMark[]>();
/** Marks one thread as the focused one (null: none). */
export const setActiveComment = StateEffect.define<string | null>();

interface Marks {
  marks: CommentMark[];
  active: string | null;
}

const marksField = StateField.define<Marks>({
  create: () => ({ marks: [], active: null }),
  update(value, tr) {
    for (const effect of tr.effects) {
      if (effect.is(setCommentMarks)) value = { ...value, marks: effect.value };
      if (effect.is(setActiveComment)) value = { ...value, active: effect.value };
    }
    return value;
  },
});

function build(ytext: Y.Text, { marks, active }: Marks, docLength: number): DecorationSet {
  const ranges: { from: number; to: number; id: string }[] = [];
  for (const mark of marks) {
    const at = resolveAnchor(ytext, mark.anchor);
    if (!at || at.to > docLength) continue;
    ranges.push({ ...at, id: mark.id });
  }
  ranges.sort((a, b) => a.from - b.from || a.to - b.to);
  const builder = new RangeSetBuilder<Decoration>();
  for (const r of ranges) {
    builder.add(
      r.from,
      r.to,
      Decoration.mark({
        class: r.id === active ? "cp-comment-highlight is-active" : "cp-comment-highlight",
        attributes: { "data-comment-id": r.id },
      }),
    );
  }
  return builder.finish();
}

/** The highlights extension for the post's `ytext`. */
export function commentHighlights(
  { ytext, onSelect }: { ytext: Y.Text; onSelect: (id: string) => void },
): Extension {
  const plugin = ViewPlugin.fromClass(
    class {
      decorations: DecorationSet;
      constructor(view: EditorView) {
        this.decorations = build(ytext, view.state.field(marksField), view.state.doc.length);
      }
      update(update: ViewUpdate) {
        const marks = update.state.field(marksField);
        if (!update.docChanged && marks === update.startState.field(marksField)) return;
        // y-codemirror's sync plugin (configured before this one) has already brought the
        // Y.Text and the editor to the same text; if they differ for a moment, follow the
        // edit and resolve again at the next change.
        this.decorations = ytext.length === update.state.doc.length
          ? build(ytext, marks, update.state.doc.length)
          : this.decorations.map(update.changes);
      }
    },
    {
      decorations: (p) => p.decorations,
      eventHandlers: {
        click(event) {
          const target = event.target as Element | null;
          const id = target?.closest?.("[data-comment-id]")?.getAttribute("data-comment-id");
          if (id) onSelect(id);
          return false;
        },
      },
    },
  );
  return [marksField, plugin];
}
