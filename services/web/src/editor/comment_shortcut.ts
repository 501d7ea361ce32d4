/**
 * Commenting from the keyboard: Mod-Alt-m (Ctrl-Alt-M, ⌘⌥M) starts a comment on the
 * selection; `onSelection` follows the selection so the panel knows when there is text to
 * comment on.
 */
import type { Extension } from "@codemirror/state";
import { EditorView, keymap } from "@codemirror/view";

export const COMMENT_SHORTCUT = "Mod-Alt-m";

export function commentShortcut(
  { onComment, onSelection }: {
    /** Starts a comment on the selection; answers whether it did. */
    onComment: (view: EditorView) => boolean;
    onSelection: (from: number, to: number) => void;
  },
): Extension {
  return [
    keymap.of([{ key: COMMENT_SHORTCUT, run: onComment, preventDefault: true }]),
    EditorView.updateListener.of((update) => {
      if (!update.selectionSet && !update.docChanged) return;
      const { from, to } = update.state.selection.main;
      onSelection(from, to);
    }),
  ];
}
