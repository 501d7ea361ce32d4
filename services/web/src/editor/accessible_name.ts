/** The editable text box's accessible name (the post editor is `Post text`). */
import type { Extension } from "@codemirror/state";
import { EditorView } from "@codemirror/view";

export function accessibleName(name: string): Extension {
  return EditorView.contentAttributes.of({ "aria-label": name, "aria-multiline": "true" });
}
