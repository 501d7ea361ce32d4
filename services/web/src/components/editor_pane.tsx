import { useEffect, useRef } from "preact/hooks";
import { useSignalEffect } from "@preact/signals";
import type { LiveEditorSession } from "../editor/session.ts";
import { createEditorView, type MountedEditor } from "../editor/editor_view.ts";

/**
 * The CodeMirror editor of a session, mounted once the document has synced the first time (so
 * nobody types into an empty copy of a post that has text). Publishes the view on
 * `session.view` and follows `session.extraExtensions`.
 */
export function EditorPane({ session }: { session: LiveEditorSession }) {
  const host = useRef<HTMLDivElement>(null);
  const mounted = useRef<MountedEditor | null>(null);
  const ready = session.synced.value;

  useEffect(() => {
    if (!ready || !host.current) return;
    const editor = createEditorView(session, host.current);
    mounted.current = editor;
    session.view.value = editor.view;
    return () => {
      session.view.value = null;
      mounted.current = null;
      editor.view.destroy();
    };
  }, [session, ready]);

  useSignalEffect(() => {
    const extensions = session.extraExtensions.value;
    mounted.current?.setExtra(extensions);
  });

  return (
    <div class="editor-pane">
      {!ready && (
        <p class="editor-pane-waiting" role="status">
          {session.closedReason.value ?? "Opening the live document…"}
        </p>
      )}
      <div ref={host} class="editor-host" />
    </div>
  );
}
