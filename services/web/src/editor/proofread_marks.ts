/**
 * Proofread underlines: the annotations of the last proofread as marks in the editor, one
 * class per type (`cp-proofread-grammar`, `-tone`, `-suggestion`; styles in
 * components/ai.css) with the message as a tooltip. Ranges move with every edit (mapped
 * through each change, local or remote), so "Apply" replaces the right words even after the
 * text around them changed. An annotation whose words were deleted is kept, `stale`.
 */
import { type EditorState, type Extension, StateEffect, StateField } from "@codemirror/state";
import { Decoration, EditorView } from "@codemirror/view";

export type ProofreadType = "grammar" | "tone" | "suggestion";

export interface ProofreadMark {
  id: string;
  from: number;
  to: number;
  type: ProofreadType;
  message: string;
  suggestion: string;
  /** The range was not empty and its words are gone: nothing left to replace. */
  stale: boolean;
}

export const PROOFREAD_LABELS: Record<ProofreadType, string> = {
  grammar: "Grammar",
  tone: "Tone",
  suggestion: "Suggestion",
};

/** Replaces every annotation. */
export const setProofreadMarks = StateEffect.define<ProofreadMark[]>();
/** Drops one annotation (applied or dismissed). */
export const removeProofreadMark = StateEffect.define<string>();

const marksField = StateField.define<ProofreadMark[]>({
  create: () => [],
  update(marks, tr) {
    if (tr.docChanged && marks.length > 0) {
      marks = marks.map((m) => {
        const from = tr.changes.mapPos(m.from, 1);
        const to = Math.max(from, tr.changes.mapPos(m.to, -1));
        if (from === m.from && to === m.to) return m;
        return { ...m, from, to, stale: m.stale || (m.from < m.to && from === to) };
      });
    }
    for (const effect of tr.effects) {
      if (effect.is(setProofreadMarks)) marks = effect.value;
      if (effect.is(removeProofreadMark)) marks = marks.filter((m) => m.id !== effect.value);
    }
    return marks;
  },
  provide: (field) =>
    EditorView.decorations.compute([field], (state) =>
      Decoration.set(
        state.field(field).filter((m) => m.from < m.to).map((m) =>
          Decoration.mark({
            class: `cp-proofread cp-proofread-${m.type}`,
            attributes: { title: `${PROOFREAD_LABELS[m.type]}: ${m.message}` },
          }).range(m.from, m.to)
        ),
        true,
      )),
});

/** The annotations as they stand now (ranges in the current text). */
export function proofreadMarksOf(state: EditorState): ProofreadMark[] {
  return state.field(marksField, false) ?? [];
}

/** The underline extension; `onChange` hears every change of the annotations or ranges. */
export function proofreadMarks(onChange: (marks: ProofreadMark[]) => void): Extension {
  return [
    marksField,
    EditorView.updateListener.of((update) => {
      const before = update.startState.field(marksField, false);
      const after = update.state.field(marksField, false);
      if (before !== after) onChange(after ?? []);
    }),
  ];
}
