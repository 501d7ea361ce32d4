import type { ScreenProps } from "../routes.ts";

/** Enter the emailed code and a new password. (placeholder: the screen's helper fills it in) */
export default function ResetScreen(_: ScreenProps) {
  return (
    <section class="stack">
      <h1>Reset password</h1>
      <p>Enter the emailed code and a new password.</p>
    </section>
  );
}
