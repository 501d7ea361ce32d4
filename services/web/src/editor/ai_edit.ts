/**
 * Writes AI output into the live document as ONE change: through the editor when it is
 * mounted (y-codemirror turns one CodeMirror transaction into one Yjs transaction, and the
 * change joins the undo history), else straight into the `Y.Text` in one `transact`.
 */
import type { EditorSession } from "./session.ts";

/** Replaces `[from, to)` of the post's text with `insert`; the cursor ends after it. */
export function replaceText(session: EditorSession, from: number, to: number, insert: string) {
  const view = session.view.value;
  if (view && view.state.doc.length === session.ytext.length) {
    view.dispatch({
      changes: { from, to, insert },
      selection: { anchor: from + insert.length },
      scrollIntoView: true,
      userEvent: "input.ai",
    });
    return;
  }
  session.ydoc.transact(() => {
    if (to > from) session.ytext.delete(from, to - from);
    if (insert) session.ytext.insert(from, insert);
  }, "ai");
}
