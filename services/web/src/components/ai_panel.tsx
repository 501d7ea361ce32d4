/**
 * AI on the post: draft from the linked idea, rewrite on an instruction (a diff to accept or
 * discard), proofread (underlines in the editor, one click applies a suggestion). Every
 * change lands in the live document as one Yjs change, seen by everyone editing.
 */
import { useEffect } from "preact/hooks";
import { useSignal } from "@preact/signals";
import type { Schemas } from "../state/api.ts";
import type { EditorSession } from "../editor/session.ts";
import { type ProofreadMark, proofreadMarks } from "../editor/proofread_marks.ts";
import { AiGenerate } from "./ai_generate.tsx";
import { AiIterate } from "./ai_iterate.tsx";
import { AiProofread } from "./ai_proofread.tsx";

export function AiPanel({ session, post }: { session: EditorSession; post: Schemas["Post"] }) {
  const marks = useSignal<ProofreadMark[]>([]);

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
      <AiGenerate session={session} ideaId={post.source_idea_id} />
      <AiIterate session={session} />
      <AiProofread session={session} marks={marks} />
    </section>
  );
}
