import type { Schemas } from "../api/client.ts";
import type { EditorSession } from "../editor/session.ts";

/** AI generation, iteration and proofreading (placeholder: the AI helper replaces this file). */
export function AiPanel(_: { session: EditorSession; post: Schemas["Post"] }) {
  return (
    <section class="card stack" aria-labelledby="ai-heading">
      <h2 id="ai-heading">AI</h2>
    </section>
  );
}
