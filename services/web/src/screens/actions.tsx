import type { ScreenProps } from "../routes.ts";

/** Actions assigned to you and created by you, with attachments. (placeholder: the screen's helper fills it in) */
export default function ActionsScreen(_: ScreenProps) {
  return (
    <section class="stack">
      <h1>Actions</h1>
      <p>Actions assigned to you and created by you, with attachments.</p>
    </section>
  );
}
