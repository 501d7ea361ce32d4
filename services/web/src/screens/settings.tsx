import type { ScreenProps } from "../routes.ts";

/** Name, description, timezone, publishing slots, prompts, members. (placeholder: the screen's helper fills it in) */
export default function SettingsScreen(_: ScreenProps) {
  return (
    <section class="stack">
      <h1>Workspace settings</h1>
      <p>Name, description, timezone, publishing slots, prompts, members.</p>
    </section>
  );
}
