import { useEffect, useState } from "preact/hooks";
import type { LiveEditorSession } from "../editor/session.ts";
import { type Counts, countText, LINKEDIN_LIMIT } from "../editor/counters.ts";

const nf = new Intl.NumberFormat("en-US");

function useCounts(session: LiveEditorSession): Counts {
  const [counts, setCounts] = useState(() => countText(session.ytext.toString()));
  useEffect(() => {
    const update = () => setCounts(countText(session.ytext.toString()));
    session.ytext.observe(update);
    update();
    return () => session.ytext.unobserve(update);
  }, [session]);
  return counts;
}

/** Connection state (Live / Reconnecting… / Offline — N edits pending) and the live counters. */
export function EditorStatusBar({ session }: { session: LiveEditorSession }) {
  const counts = useCounts(session);
  const state = session.connection.value;
  const pending = session.pendingEdits.value;
  const pendingText = pending > 0
    ? ` — ${pending} ${pending === 1 ? "edit" : "edits"} pending`
    : "";
  const text = state === "live"
    ? "Live"
    : state === "connecting"
    ? "Connecting…"
    : state === "reconnecting"
    ? `Reconnecting…${pendingText}`
    : state === "offline"
    ? `Offline${pendingText}`
    : "Disconnected";
  const over = counts.characters - LINKEDIN_LIMIT;
  return (
    <div class="editor-status-bar">
      <p class={`editor-connection is-${state}`} role="status" aria-label="Connection">
        <span class="editor-connection-dot" aria-hidden="true" />
        {text}
      </p>
      <dl class="editor-counters">
        <div class={`editor-counter is-${counts.level}`}>
          <dt>Characters</dt>
          <dd>
            {nf.format(counts.characters)} / {nf.format(LINKEDIN_LIMIT)}
            {over > 0 && <span class="editor-counter-over">{` (${nf.format(over)} over)`}</span>}
          </dd>
        </div>
        <div class="editor-counter">
          <dt>Hashtags</dt>
          <dd>{counts.hashtags}</dd>
        </div>
        <div class="editor-counter">
          <dt>Emoji</dt>
          <dd>{counts.emoji}</dd>
        </div>
      </dl>
    </div>
  );
}
