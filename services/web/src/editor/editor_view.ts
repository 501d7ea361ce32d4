/**
 * Builds the CodeMirror view of a session: y-codemirror.next's sync and undo on the Y.Text
 * "content", our class-based remote cursors (CSP-safe), the `Post text` accessible name
 * , and a Compartment holding the extensions other features add through
 * `session.extraExtensions`.
 */
import { Compartment, EditorState, type Extension } from "@codemirror/state";
import { EditorView, keymap, placeholder } from "@codemirror/view";
import { defaultKeymap } from "@codemirror/commands";
import { yCollab, YSyncConfig, ySyncFacet, yUndoManagerKeymap } from "y-codemirror.next";
import type { EditorSession } from "./session.ts";
import { remoteCursors } from "./remote_cursors.ts";
import { accessibleName } from "./accessible_name.ts";
import { lineDirection } from "./line_direction.ts";

export interface MountedEditor {
  view: EditorView;
  /** Replaces the extensions of other features (comment highlights, proofread marks). */
  setExtra(extensions: Extension[]): void;
}

export function createEditorView(session: EditorSession, parent: HTMLElement): MountedEditor {
  const extra = new Compartment();
  const awareness = session.provider.awareness;
  const view = new EditorView({
    parent,
    state: EditorState.create({
      doc: session.ytext.toString(),
      extensions: [
        // Sync and undo only: y-codemirror.next's own remote cursors use style="" strings.
        yCollab(session.ytext, null),
        // Keep the awareness reachable through the facet for features that read it.
        ySyncFacet.of(new YSyncConfig(session.ytext, awareness)),
        remoteCursors(session.ytext, awareness),
        keymap.of([...yUndoManagerKeymap, ...defaultKeymap]),
        EditorView.lineWrapping,
        lineDirection(),
        accessibleName("Post text"),
        placeholder("Write your post…"),
        extra.of(session.extraExtensions.value),
      ],
    }),
  });
  return {
    view,
    setExtra(extensions) {
      view.dispatch({ effects: extra.reconfigure(extensions) });
    },
  };
}
