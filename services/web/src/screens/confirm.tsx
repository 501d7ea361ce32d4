import type { ScreenProps } from "../routes.ts";

/** Enter the 6-digit code we emailed you. (placeholder: the screen's helper fills it in) */
export default function ConfirmScreen(_: ScreenProps) {
  return (
    <section class="stack">
      <h1>Confirm your email</h1>
      <p>Enter the 6-digit code we emailed you.</p>
    </section>
  );
}
