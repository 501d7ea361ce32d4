/**
 * AI on the post: draft from the linked idea, rewrite on an instruction (a diff to accept or
 * discard), proofread (underlines in the editor, one click applies a suggestion). Every
 * change lands in the live document as one Yjs change, seen by everyone editing. Without an AI
 * model on the server the panel says so up front: proofread (the built-in checker) and idea
 * titles work, drafting and rewriting wait for a model, and how one is connected.
 */
import { useEffect } from "preact/hooks";
import { useSignal } from "@preact/signals";
import type { Schemas } from "../state/api.ts";
import type { EditorSession } from "../editor/session.ts";
import { type ProofreadMark, proofreadMarks } from "../editor/proofread_marks.ts";
import { AiGenerate } from "./ai_generate.tsx";
import { AiIterate } from "./ai_iterate.tsx";
import { AiProofread } from "./ai_proofread.tsx";
import { AI_SETUP_DOC } from "./ai_error.tsx";
import { loadAiStatus } from "../state/genai.ts";
import { useResource } from "./use_resource.ts";

export function AiPanel({ session, post }: { session: EditorSession; post: Schemas["Post"] }) {
  const marks = useSignal<ProofreadMark[]>([]);
  const status = useResource(loadAiStatus, []);
  // Only a server that said so has no model; while asking (or if asking failed) assume one.
  const noModel = status.data?.backend_configured === false;

  useEffect(() => {
    const extension = proofreadMarks((next) => {
      marks.value = next;
    });
    session.extraExtensions.value = [...session.extraExtensions.value, extension];
    return () => {
      session.extraExtensions.value = session.extraExtensions.value.filter((e) => e !== extension);
    };
  }, [session]);

  return (
    <section class="card stack ai-panel" aria-labelledby="ai-heading">
      <h2 id="ai-heading">AI</h2>
      {noModel && (
        <div class="ai-offline" role="note" aria-label="AI without a model">
          <p>
            <strong>No AI model is connected to this server.</strong>{" "}
            Proofread works without one (a built-in grammar and spelling checker), and new ideas get
            titles from their own text. Drafting and rewriting need a model.
          </p>
          <p class="ai-note">
            To connect one, an admin sets <code>OPENAI_BASE_URL</code> and <code>OPENAI_MODEL</code>
            {" "}
            to a local Ollama or any OpenAI-compatible server and restarts the app ({AI_SETUP_DOC}).
          </p>
        </div>
      )}
      <AiGenerate session={session} ideaId={post.source_idea_id} noModel={noModel} />
      <AiIterate session={session} noModel={noModel} />
      <AiProofread session={session} marks={marks} />
    </section>
  );
}
