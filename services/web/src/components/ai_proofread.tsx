/**
 * Proofread: POST /api/genai/proofread with the live text; each annotation (the built-in
 * checker's and the AI model's, merged by the server) is underlined in the editor
 * (editor/proofread_marks.ts) and listed here with its type and message. "Apply" replaces the
 * words with the suggestion in one change; ranges follow everyone's edits. The panel says
 * where the findings came from: a model whose answer could not be used is never reported as
 * "nothing to fix".
 */
import { useState } from "preact/hooks";
import type { Signal } from "@preact/signals";
import type { Schemas } from "../state/api.ts";
import { proofreadPost } from "../state/genai.ts";
import type { EditorSession } from "../editor/session.ts";
import { minimalChange } from "../editor/diff_words.ts";
import {
  PROOFREAD_LABELS,
  type ProofreadMark,
  proofreadMarksOf,
  removeProofreadMark,
  setProofreadMarks,
} from "../editor/proofread_marks.ts";
import { AiError, BusyLabel } from "./ai_error.tsx";

export function AiProofread(
  { session, marks }: { session: EditorSession; marks: Signal<ProofreadMark[]> },
) {
  const { workspaceId, postId, ytext } = session;
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [ran, setRan] = useState(false);
  const [model, setModel] = useState<Schemas["ProofreadResponse"]["model"] | null>(null);
  const view = session.view.value;

  async function proofread() {
    const v = session.view.value;
    if (!v) {
      setError(new Error("The editor is still opening; try again in a moment"));
      return;
    }
    const sent = ytext.toString();
    setBusy(true);
    setError(null);
    try {
      const { annotations, model } = await proofreadPost({
        workspace_id: workspaceId,
        post_id: postId,
        content: sent,
      });
      // The text may have moved on while the AI read it: shift the ranges by that edit.
      const now = v.state.doc.toString();
      const edit = minimalChange(sent, now);
      const delta = edit.insert.length - (edit.to - edit.from);
      const map = (pos: number, side: 1 | -1) =>
        pos < edit.from || (pos === edit.from && side < 0)
          ? pos
          : pos >= edit.to
          ? pos + delta
          : side > 0
          ? edit.from + edit.insert.length
          : edit.from;
      const stamp = Date.now().toString(36);
      const next: ProofreadMark[] = annotations.map((a, i) => {
        const from = Math.min(map(a.range[0], 1), now.length);
        const to = Math.max(from, Math.min(map(a.range[1], -1), now.length));
        return {
          id: `${stamp}-${i}`,
          from,
          to,
          type: a.type,
          message: a.message,
          suggestion: a.suggestion,
          stale: a.range[0] < a.range[1] && from === to,
        };
      });
      v.dispatch({ effects: setProofreadMarks.of(next) });
      setModel(model);
      setRan(true);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  }

  function apply(id: string) {
    const v = session.view.value;
    const mark = v && proofreadMarksOf(v.state).find((m) => m.id === id);
    if (!v || !mark || mark.stale) return;
    // One editor transaction: one Yjs change for everyone, and the underline goes with it.
    v.dispatch({
      changes: { from: mark.from, to: mark.to, insert: mark.suggestion },
      effects: removeProofreadMark.of(id),
      selection: { anchor: mark.from + mark.suggestion.length },
      userEvent: "input.ai",
    });
  }

  function dismiss(id: string) {
    session.view.value?.dispatch({ effects: removeProofreadMark.of(id) });
  }

  function show(mark: ProofreadMark) {
    const v = session.view.value;
    if (!v || mark.to > v.state.doc.length) return;
    v.dispatch({ selection: { anchor: mark.from, head: mark.to }, scrollIntoView: true });
    v.focus();
  }

  const list = marks.value;
  return (
    <section class="ai-section stack" aria-labelledby="ai-proofread-heading">
      <h3 id="ai-proofread-heading">Proofread</h3>
      <p class="ai-note">
        Grammar, tone and suggestions, underlined in the post. Apply one with a click.
      </p>
      <div>
        <button type="button" class="button" disabled={busy || !view} onClick={proofread}>
          <BusyLabel busy={busy} idle="Proofread" working="Proofreading…" />
        </button>
      </div>
      <AiError error={error} />
      {ran && !busy && !error && <ProofreadSource model={model} found={list.length > 0} />}
      {list.length > 0 && (
        <ul class="ai-annotations" aria-label="Proofread findings">
          {list.map((m) => {
            const current = view && m.to <= view.state.doc.length
              ? view.state.doc.sliceString(m.from, m.to)
              : "";
            return (
              <li key={m.id} class={`ai-annotation ai-annotation-${m.type}`}>
                <p class="ai-annotation-head">
                  <span class={`ai-badge ai-badge-${m.type}`}>{PROOFREAD_LABELS[m.type]}</span>
                  <span>{m.message}</span>
                </p>
                {!m.stale && (current || m.suggestion) && (
                  <p class="ai-annotation-change">
                    {current && (
                      <button
                        type="button"
                        class="ai-annotation-words"
                        onClick={() => show(m)}
                        title="Show these words in the post"
                      >
                        <del class="ai-diff-del">{current}</del>
                      </button>
                    )}
                    {m.suggestion && (
                      <>
                        <span aria-hidden="true">→</span>
                        <ins class="ai-diff-add">{m.suggestion}</ins>
                      </>
                    )}
                  </p>
                )}
                {m.stale && <p class="ai-note">The words were changed since; nothing to apply.</p>}
                <div class="ai-actions">
                  {!m.stale && (
                    <button
                      type="button"
                      class="button secondary"
                      aria-label={`Apply: ${m.message}`}
                      onClick={() => apply(m.id)}
                    >
                      {m.suggestion ? "Apply" : "Remove the words"}
                    </button>
                  )}
                  <button
                    type="button"
                    class="button secondary"
                    aria-label={`Dismiss: ${m.message}`}
                    onClick={() => dismiss(m.id)}
                  >
                    Dismiss
                  </button>
                </div>
              </li>
            );
          })}
        </ul>
      )}
    </section>
  );
}

/**
 * Where the findings came from, and "nothing left to fix" only when both the checker and a
 * model that answered usably found nothing.
 */
function ProofreadSource(
  { model, found }: { model: Schemas["ProofreadResponse"]["model"] | null; found: boolean },
) {
  if (model === "unusable") {
    return (
      <p class="ai-warning" role="status">
        The AI model's answer could not be used (it did not answer with a list of findings), so
        {found
          ? " these are the built-in checker's findings only."
          : " only the built-in checker read the post, and it found nothing."}{" "}
        Try again, or ask your admin for a model that follows instructions better.
      </p>
    );
  }
  if (model === "none") {
    return (
      <p class={found ? "ai-note" : "ai-done"} role="status">
        {found
          ? "Found by the built-in grammar and spelling checker (no AI model is connected)."
          : "The built-in grammar and spelling checker found nothing to fix."}
      </p>
    );
  }
  return found ? null : <p class="ai-done" role="status">Nothing left to fix.</p>;
}
