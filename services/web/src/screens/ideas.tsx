import type { ScreenProps } from "../routes.ts";

/** The ideas board: newest first, filters, quick add, "Write a post". (placeholder: the screen's helper fills it in) */
export default function IdeasScreen(_: ScreenProps) {
  return (
    <section class="stack">
      <h1>Ideas</h1>
      <p>The ideas board: newest first, filters, quick add, "Write a post".</p>
    </section>
  );
}
