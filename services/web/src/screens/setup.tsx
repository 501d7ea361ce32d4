import type { ScreenProps } from "../routes.ts";

/** Create the first admin account with the one-time link from the start-up log. (placeholder: the screen's helper fills it in) */
export default function SetupScreen(_: ScreenProps) {
  return (
    <section class="stack">
      <h1>Set up</h1>
      <p>Create the first admin account with the one-time link from the start-up log.</p>
    </section>
  );
}
