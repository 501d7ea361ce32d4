/**
 * Rewrite on an instruction: POST /api/genai/iterate with the live text, the suggestion shown
 * as a word-level diff; Accept applies it as one change that touches only what differs (the
 * common beginning and end stay, and everyone's cursors in them), Discard drops it.
 */
import { useState } from "preact/hooks";
import { iteratePost } from "../state/genai.ts";
import type { EditorSession } from "../editor/session.ts";
import { replaceText } from "../editor/ai_edit.ts";
import { diffWords, minimalChange } from "../editor/diff_words.ts";
import { AiError, BusyLabel } from "./ai_error.tsx";

interface Suggestion {
  base: string;
  suggestion: string;
}

export function AiIterate(
  { session, noModel = false }: {
    session: EditorSession;
    /** the server has no AI model: rewriting is off, and says why */
    noModel?: boolean;
  },
) {
  const { workspaceId, postId, ytext } = session;
  const [instruction, setInstruction] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [result, setResult] = useState<Suggestion | null>(null);
  const [done, setDone] = useState<string | null>(null);

  async function suggest(e: Event) {
    e.preventDefault();
    if (!instruction.trim()) {
      setError(new Error("Say what to change first, for example “Make it shorter”"));
      return;
    }
    const base = ytext.toString();
    setBusy(true);
    setError(null);
    setDone(null);
    setResult(null);
    try {
      const suggestion = await iteratePost({
        workspace_id: workspaceId,
        post_id: postId,
        instruction: instruction.trim(),
        current_content: base,
      });
      setResult({ base, suggestion });
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  }

  function accept() {
    if (!result) return;
    const live = ytext.toString();
    const change = minimalChange(live, result.suggestion);
    if (change.from !== change.to || change.insert) {
      replaceText(session, change.from, change.to, change.insert);
    }
    setResult(null);
    setDone("The rewrite is in the post.");
  }

  const parts = result ? diffWords(result.base, result.suggestion) : [];
  const unchanged = result !== null && result.base === result.suggestion;
  const moved = result !== null && ytext.toString() !== result.base;

  return (
    <section class="ai-section stack" aria-labelledby="ai-iterate-heading">
      <h3 id="ai-iterate-heading">Rewrite</h3>
      <form class="ai-form stack" onSubmit={suggest}>
        <div class="field">
          <label for="ai-instruction">Instruction</label>
          <textarea
            id="ai-instruction"
            rows={2}
            maxLength={2000}
            value={instruction}
            placeholder="e.g. Shorter, with a stronger first line"
            onInput={(e) => setInstruction(e.currentTarget.value)}
            onKeyDown={(e) => {
              if (e.key === "Enter" && (e.metaKey || e.ctrlKey)) {
                e.preventDefault();
                e.currentTarget.form?.requestSubmit();
              }
            }}
          />
        </div>
        <div>
          <button
            type="submit"
            class="button"
            disabled={busy || noModel}
            aria-describedby={noModel ? "ai-iterate-needs-model" : undefined}
          >
            <BusyLabel busy={busy} idle="Suggest a rewrite" working="Rewriting…" />
          </button>
        </div>
        {noModel && (
          <p id="ai-iterate-needs-model" class="ai-note">
            Rewriting needs an AI model, and none is connected (see above).
          </p>
        )}
      </form>
      <AiError error={error} />
      {done && <p class="ai-done" role="status">{done}</p>}
      {result && (
        <div class="ai-suggestion stack">
          {unchanged ? <p class="ai-note">The AI suggests no changes.</p> : (
            <>
              <p class="ai-note">
                <span class="ai-diff-key ai-diff-del">Removed</span>{" "}
                <span class="ai-diff-key ai-diff-add">Added</span>
              </p>
              <div
                class="ai-diff"
                role="region"
                aria-label="Suggested changes"
                tabIndex={0}
              >
                {parts.map((p, i) =>
                  p.kind === "same"
                    ? <span key={i}>{p.text}</span>
                    : p.kind === "add"
                    ? <ins key={i} class="ai-diff-add">{p.text}</ins>
                    : <del key={i} class="ai-diff-del">{p.text}</del>
                )}
              </div>
            </>
          )}
          {moved && !unchanged && (
            <p class="ai-note">
              The post changed since you asked; accepting replaces the current text with this
              rewrite.
            </p>
          )}
          <div class="ai-actions">
            {!unchanged && <button type="button" class="button" onClick={accept}>Accept</button>}
            <button type="button" class="button secondary" onClick={() => setResult(null)}>
              Discard
            </button>
          </div>
        </div>
      )}
    </section>
  );
}
