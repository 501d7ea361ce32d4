import { useEffect, useRef } from "preact/hooks";
import { useSignalEffect } from "@preact/signals";
import type { LiveEditorSession } from "../editor/session.ts";
import { createEditorView, type MountedEditor } from "../editor/editor_view.ts";

/**
 * A shadow root for the editor, holding the app's own CSS as constructable stylesheets.
 *
 * Why: CodeMirror injects its base theme through style-mod, which on a Document writes a
 * `<style>` element (blocked by our CSP, style-src 'self': the editor would lose its core
 * layout rules and log a violation) but on a ShadowRoot uses a constructable stylesheet
 * (`adoptedStyleSheets`), which CSP allows. The app's rules (editor.css, the other features'
 * highlight classes) are copied from the page's same-origin stylesheets the same way, so
 * nothing is fetched twice and no `<style>` or `<link>` element sits in the shadow root.
 */
function shadowContainer(host: HTMLElement): HTMLElement {
  const shadow = host.shadowRoot ?? host.attachShadow({ mode: "open" });
  shadow.replaceChildren();
  const sheets: CSSStyleSheet[] = [];
  for (const source of Array.from(document.styleSheets)) {
    let rules: string;
    try {
      rules = Array.from(source.cssRules, (r) => r.cssText).join("\n");
    } catch {
      continue; // not readable (another origin): the app serves its CSS itself
    }
    const sheet = new CSSStyleSheet();
    sheet.replaceSync(rules);
    sheets.push(sheet);
  }
  shadow.adoptedStyleSheets = sheets;
  const container = document.createElement("div");
  container.className = "editor-host";
  shadow.append(container);
  return container;
}

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
    const editor = createEditorView(session, shadowContainer(host.current));
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
      <div ref={host} class="editor-shadow-host" />
    </div>
  );
}
