import type { ScreenProps } from "../routes.ts";

/** Posts by status: draft, in review, approved, scheduled, published. (placeholder: the screen's helper fills it in) */
export default function PostsScreen(_: ScreenProps) {
  return (
    <section class="stack">
      <h1>Posts</h1>
      <p>Posts by status: draft, in review, approved, scheduled, published.</p>
    </section>
  );
}
