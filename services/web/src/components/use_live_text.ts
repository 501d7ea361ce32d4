import { useEffect, useState } from "preact/hooks";
import type { EditorSession } from "../editor/session.ts";

/** The session's live text, re-read on every change of its `Y.Text` (no network involved). */
export function useLiveText(session: EditorSession): string {
  const [text, setText] = useState(() => session.ytext.toString());
  useEffect(() => {
    const update = () => setText(session.ytext.toString());
    session.ytext.observe(update);
    update();
    return () => session.ytext.unobserve(update);
  }, [session]);
  return text;
}
