import type { EditorSession } from "../editor/session.ts";

/** Comments on the post (placeholder: the comments helper replaces this file). */
export function CommentsPanel(_: { session: EditorSession }) {
  return (
    <section class="card stack" aria-labelledby="comments-heading">
      <h2 id="comments-heading">Comments</h2>
    </section>
  );
}
