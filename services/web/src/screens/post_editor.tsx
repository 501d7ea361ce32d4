import type { ScreenProps } from "../routes.ts";

/** The live editor, comments and AI for one post. (placeholder: the screen's helper fills it in) */
export default function PostEditorScreen(_: ScreenProps) {
  return (
    <section class="stack">
      <h1>Post</h1>
      <p>The live editor, comments and AI for one post.</p>
    </section>
  );
}
